// The fake RunPod itself (test/fakes/runpod): the GraphQL shapes it answers, its auth, its
// pods' real nodes and its fault knobs. Needs root (sshd, useradd).
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  NO_CAPACITY_MESSAGE,
  NOT_FOUND_TO_TERMINATE,
  startFakeRunpod,
  type FakeRunpod,
} from '../fakes/runpod';

const fakes: FakeRunpod[] = [];
afterEach(async () => {
  for (const f of fakes.splice(0)) await f.stop();
});

async function fake(opts: Parameters<typeof startFakeRunpod>[0] = {}) {
  const f = await startFakeRunpod(opts);
  fakes.push(f);
  return f;
}

interface Answer {
  status: number;
  headers: Headers;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
}

async function gql(
  f: FakeRunpod,
  query: string,
  variables: Record<string, unknown> = {},
  key = f.apiKey,
): Promise<Answer> {
  const res = await fetch(`${f.url}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  let body: Answer['body'] = {};
  try {
    body = JSON.parse(text) as Answer['body'];
  } catch {
    // a text answer (429, 500)
  }
  return { status: res.status, headers: res.headers, body };
}

const DEPLOY = `mutation D($input: PodFindAndDeployOnDemandInput!) { podFindAndDeployOnDemand(input: $input) { id name desiredStatus env runtime { ports { ip isIpPublic privatePort publicPort type } } } }`;
const POD = `query P($input: PodFilter!) { pod(input: $input) { id desiredStatus runtime { ports { privatePort publicPort isIpPublic } } } }`;
const TERMINATE = `mutation T($input: PodTerminateInput!) { podTerminate(input: $input) }`;
const input = (over: Record<string, unknown> = {}) => ({
  name: 'tender-x-run-node-0',
  imageName: 'runpod/base:0.6.2-cuda12.4.1',
  gpuTypeId: 'NVIDIA GeForce RTX 4090',
  gpuCount: 1,
  cloudType: 'SECURE',
  ports: '22/tcp',
  supportPublicIp: true,
  startSsh: true,
  env: [{ key: 'PUBLIC_KEY', value: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake test' }],
  ...over,
});

function isRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

describe('fake RunPod GraphQL', () => {
  it('answers 401 for a bad or missing key; takes ?api_key= too', async () => {
    const f = await fake();
    expect((await gql(f, 'query { myself { id } }', {}, 'nope')).status).toBe(401);
    const res = await fetch(`${f.url}/graphql?api_key=${f.apiKey}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'query { myself { id } }' }),
    });
    expect(res.status).toBe(200);
  });

  it('answers only what was selected, and a GraphQL error (HTTP 200) for a field the schema lacks', async () => {
    const f = await fake();
    const ok = await gql(
      f,
      'query G($lp: GpuLowestPriceInput) { gpuTypes { id lowestPrice(input: $lp) { uninterruptablePrice minimumBidPrice stockStatus } } }',
      {
        lp: { gpuCount: 2, secureCloud: false },
      },
    );
    expect(ok.body.data?.gpuTypes).toEqual([
      {
        id: 'NVIDIA GeForce RTX 4090',
        lowestPrice: { uninterruptablePrice: 0.34, minimumBidPrice: 0.2, stockStatus: 'High' },
      },
      {
        id: 'NVIDIA A100 80GB PCIe',
        lowestPrice: { uninterruptablePrice: 1.19, minimumBidPrice: null, stockStatus: 'High' },
      },
    ]);
    const bad = await gql(f, 'query { gpuTypes { id price } }');
    expect(bad.status).toBe(200);
    expect(bad.body.errors?.[0]?.message).toBe('Cannot query field "price" on type "GpuType".');
  });

  it('creates a pod whose runtime is null until its sshd listens; env K=V; the pod env file has its id and pod key', async () => {
    const f = await fake({ bootMs: 400 });
    const created = await gql(f, DEPLOY, { input: input() });
    const pod = created.body.data?.podFindAndDeployOnDemand as {
      id: string;
      desiredStatus: string;
      env: string[];
      runtime: unknown;
    };
    expect(pod).toMatchObject({
      desiredStatus: 'RUNNING',
      runtime: null,
      name: 'tender-x-run-node-0',
    });
    expect(pod.env).toContain('PUBLIC_KEY=ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake test');
    const [snap] = f.state.pods();
    expect(await isRefused(snap!.node.port)).toBe(true);
    await new Promise((r) => setTimeout(r, 450));
    const later = await gql(f, POD, { input: { podId: pod.id } });
    expect(later.body.data?.pod).toMatchObject({
      runtime: { ports: [{ privatePort: 22, publicPort: snap!.node.port, isIpPublic: true }] },
    });
    expect(await isRefused(snap!.node.port)).toBe(false);
    const env = readFileSync(snap!.node.envFile, 'utf8').split('\0');
    expect(env).toEqual(
      expect.arrayContaining([`RUNPOD_POD_ID=${pod.id}`, `RUNPOD_API_KEY=${snap!.apiKey}`]),
    );
    expect(readFileSync(snap!.node.envFile, 'utf8')).not.toContain(f.apiKey);
  });

  it("scopes a pod's key to that pod: its own pod and terminate only", async () => {
    const f = await fake();
    const a = (await gql(f, DEPLOY, { input: input() })).body.data?.podFindAndDeployOnDemand as {
      id: string;
    };
    const b = (await gql(f, DEPLOY, { input: input({ name: 'other' }) })).body.data
      ?.podFindAndDeployOnDemand as { id: string };
    const key = f.state.pods()[0]!.apiKey;
    expect((await gql(f, POD, { input: { podId: a.id } }, key)).status).toBe(200);
    expect((await gql(f, 'query { myself { pods { id } } }', {}, key)).status).toBe(403);
    expect((await gql(f, TERMINATE, { input: { podId: b.id } }, key)).status).toBe(403);
    const done = await gql(f, TERMINATE, { input: { podId: a.id } }, key);
    expect(done.body).toEqual({ data: { podTerminate: null } });
    expect(f.state.pods()[0]).toMatchObject({ desiredStatus: 'TERMINATED', terminatedBy: 'pod' });
    // Its key dies with it; the pod is gone from every answer.
    expect((await gql(f, POD, { input: { podId: a.id } }, key)).status).toBe(401);
    expect((await gql(f, POD, { input: { podId: a.id } })).body.data).toEqual({ pod: null });
    const again = await gql(f, TERMINATE, { input: { podId: a.id } });
    expect(again.body.errors?.[0]?.message).toBe(NOT_FOUND_TO_TERMINATE);
    expect(f.state.livePods().map((p) => p.id)).toEqual([b.id]);
  });

  it('fault knobs: no capacity, 429 with Retry-After, a create that creates then answers 500, failing terminates, stuck booting, preemption', async () => {
    const f = await fake({ bootMs: 50 });
    f.faults.noCapacity('NVIDIA GeForce RTX 4090');
    const none = await gql(f, DEPLOY, { input: input() });
    expect(none.body.errors?.[0]?.message).toBe(NO_CAPACITY_MESSAGE);
    f.faults.restoreCapacity();

    f.faults.rateLimit({ next: 1, retryAfterS: 2 });
    const limited = await gql(f, 'query { myself { id } }');
    expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '2']);

    f.faults.failCreateAfterCreate(1, 500);
    expect((await gql(f, DEPLOY, { input: input() })).status).toBe(500);
    expect(f.state.livePods()).toHaveLength(1); // made, and billing

    const id = f.state.pods()[0]!.id;
    f.faults.failTerminates(1, 502);
    expect((await gql(f, TERMINATE, { input: { podId: id } })).status).toBe(502);
    expect(f.state.livePods()).toHaveLength(1);

    f.faults.stuckBooting(1);
    const stuck = (await gql(f, DEPLOY, { input: input({ name: 'stuck' }) })).body.data
      ?.podFindAndDeployOnDemand as { id: string };
    await new Promise((r) => setTimeout(r, 150));
    expect((await gql(f, POD, { input: { podId: stuck.id } })).body.data?.pod).toMatchObject({
      desiredStatus: 'RUNNING',
      runtime: null,
    });

    const RENT = `mutation R($input: PodRentInterruptableInput!) { podRentInterruptable(input: $input) { id costPerHr podType } }`;
    const low = await gql(f, RENT, { input: input({ bidPerGpu: 0.1 }) });
    expect(low.body.errors?.[0]?.message).toMatch(/below the minimum bid/);
    const spot = (await gql(f, RENT, { input: input({ bidPerGpu: 0.4, gpuCount: 2 }) })).body.data
      ?.podRentInterruptable as { id: string };
    expect(spot).toMatchObject({ costPerHr: 0.8, podType: 'INTERRUPTABLE' });
    await new Promise((r) => setTimeout(r, 100));
    await gql(f, POD, { input: { podId: spot.id } }); // boots it
    const node = f.state.pods().find((p) => p.id === spot.id)!.node;
    expect(await isRefused(node.port)).toBe(false);
    await f.faults.preempt(spot.id);
    expect((await gql(f, POD, { input: { podId: spot.id } })).body.data?.pod).toMatchObject({
      desiredStatus: 'EXITED',
      runtime: null,
    });
    expect(await isRefused(node.port)).toBe(true);
    expect(f.state.billing(spot.id).costPerHr).toBe(0.8);
  });
});
