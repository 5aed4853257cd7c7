// The fake Lambda Cloud itself, spoken to over raw HTTP as openapi.yaml describes it.
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { generateEd25519 } from '../../src-main/transport/keys';
import { startFakeLambda, type FakeLambda } from '../fakes/lambda';
import { eventuallyAsync, until } from '../helpers/wait';

let fake: FakeLambda | null = null;
afterEach(async () => {
  await fake?.stop();
  fake = null;
});

async function call(
  f: FakeLambda,
  method: string,
  path: string,
  body?: unknown,
  auth = `Bearer ${f.apiKey}`,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw answers, asserted field by field
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${f.url}/api/v1${path}`, {
    method,
    headers: { Authorization: auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text.startsWith('{') ? JSON.parse(text) : text };
}

function isPortOpen(port: number): boolean {
  try {
    execFileSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('fake Lambda Cloud', () => {
  it('speaks the envelopes, with Bearer and Basic auth, and refuses a bad key', async () => {
    fake = await startFakeLambda();
    const types = await call(fake, 'GET', '/instance-types');
    expect(types.status).toBe(200);
    expect(types.json.data.gpu_1x_a10).toMatchObject({
      instance_type: {
        name: 'gpu_1x_a10',
        gpu_description: 'A10 (24 GB PCIe)',
        price_cents_per_hour: 75,
      },
      regions_with_capacity_available: [
        { name: 'us-east-1', description: 'Virginia, USA' },
        expect.anything(),
      ],
    });
    const basic = `Basic ${Buffer.from(`${fake.apiKey}:`).toString('base64')}`;
    expect((await call(fake, 'GET', '/instances', undefined, basic)).json).toEqual({ data: [] });
    const bad = await call(fake, 'GET', '/instances', undefined, 'Bearer nope');
    expect(bad.status).toBe(401);
    expect(bad.json.error.code).toBe('global/invalid-api-key');
  });

  it('launches a real node: refused while booting, sshd listening once active; terminate ends it', async () => {
    fake = await startFakeLambda({ timings: { bootMs: 400 } });
    const { public: publicKey } = generateEd25519('fake-test');
    expect(
      (await call(fake, 'POST', '/ssh-keys', { name: 'k1', public_key: publicKey })).status,
    ).toBe(200);
    const dup = await call(fake, 'POST', '/ssh-keys', { name: 'k1', public_key: publicKey });
    expect(dup.json.error.code).toBe('global/duplicate');

    const launched = await call(fake, 'POST', '/instance-operations/launch', {
      region_name: 'us-east-1',
      instance_type_name: 'gpu_1x_a10',
      ssh_key_names: ['k1'],
      quantity: 1,
      name: 'tender-x-run-node-0',
    });
    const [id] = launched.json.data.instance_ids as string[];
    const booting = await call(fake, 'GET', `/instances/${id}`);
    expect(booting.json.data).toMatchObject({
      status: 'booting',
      ip: null,
      name: 'tender-x-run-node-0',
    });
    const port = fake.state.instances()[0]!.node.port;
    expect(isPortOpen(port)).toBe(false);

    await eventuallyAsync(
      async () => (await call(fake!, 'GET', `/instances/${id}`)).json.data.status === 'active',
    );
    await fake.sync();
    expect((await call(fake, 'GET', `/instances/${id}`)).json.data.ip).toBe('127.0.0.1');
    await until(() => isPortOpen(port), 10_000);

    const term = await call(fake, 'POST', '/instance-operations/terminate', { instance_ids: [id] });
    expect(term.json.data.terminated_instances[0]).toMatchObject({ id, status: 'terminated' });
    await fake.sync();
    expect(fake.state.liveInstances()).toEqual([]);
    expect(fake.state.billing(id!).accruedUsd).toBeGreaterThan(0);
    await eventuallyAsync(
      async () => (await call(fake!, 'GET', `/instances/${id}`)).status === 404,
    );
    const again = await call(fake, 'POST', '/instance-operations/terminate', {
      instance_ids: [id],
    });
    expect(again.json.error.code).toBe('global/object-does-not-exist');
  });

  it('faults: capacity, launch rate limit, 429 storms, failing terminates, launch-then-500', async () => {
    fake = await startFakeLambda();
    const { public: publicKey } = generateEd25519('fake-test');
    await call(fake, 'POST', '/ssh-keys', { name: 'k1', public_key: publicKey });
    const launch = (region = 'us-east-1') =>
      call(fake!, 'POST', '/instance-operations/launch', {
        region_name: region,
        instance_type_name: 'gpu_1x_a10',
        ssh_key_names: ['k1'],
        name: 'n',
      });
    fake.faults.insufficientCapacity({ region: 'us-east-1', count: 1 });
    const refused = await launch();
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('instance-operations/launch/insufficient-capacity');
    expect((await launch('eu-west-9')).json.error.code).toBe(
      'instance-operations/launch/insufficient-capacity',
    );

    fake.faults.launchRateLimit(60_000);
    expect((await launch()).status).toBe(200);
    expect((await launch()).status).toBe(429);
    fake.faults.reset();

    fake.faults.failLaunchAfterCommit(1, 500);
    expect((await launch()).status).toBe(500);
    expect(fake.state.liveInstances()).toHaveLength(2); // it launched all the same

    fake.faults.rateLimit({ next: 2 });
    expect((await call(fake, 'GET', '/instances')).status).toBe(429);
    expect((await call(fake, 'GET', '/instances')).status).toBe(429);
    expect((await call(fake, 'GET', '/instances')).status).toBe(200);

    const id = fake.state.liveInstances()[0]!.id;
    fake.faults.failTerminates(1, 503);
    expect(
      (await call(fake, 'POST', '/instance-operations/terminate', { instance_ids: [id] })).status,
    ).toBe(503);
    expect(fake.state.liveInstances()).toHaveLength(2);
    expect(fake.state.calls().filter((c) => c.status === 429)).toHaveLength(3);
  });
});
