// The fake Vast.ai's instances are real nodes: null → loading → running, real sshd with
// CONTAINER_ID in ~/.vast-env, label filters and v1 paging, a destroy that ends the node's
// processes and its billing, instance-scoped keys. Real HTTP on 127.0.0.1, real OpenSSH, an
// injected clock. Needs root.
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../fakes/vast';
import { callVast, isPortRefused, isProcessAlive } from '../fakes/vast/probe';
import {
  clockOf,
  create,
  fakeVastFixture,
  type InstanceJson,
  type KeyPair,
  listed,
  running,
  search,
  show,
} from '../fakes/vast/self-test';

const { fake, keyPair, ssh } = fakeVastFixture();
let account: KeyPair;
beforeAll(() => {
  account = keyPair('account');
});

describe('an instance is a real node', () => {
  it('goes null → loading → running, runs ssh commands, sees its container env', async () => {
    const vast = await fake({ timings: { loadingAfterMs: 1_000, runningAfterMs: 5_000 } });
    const added = await callVast(vast, 'POST', '/api/v0/ssh/', {
      body: { ssh_key: account.publicKey },
    });
    expect(added.json).toMatchObject({ success: true, key: { public_key: account.publicKey } });
    const id = await create(vast, 1001, {
      label: 'tender-i1-r1-node-0',
      disk: 20,
      env: { HF_TOKEN: 'abc def', '-p 8080:8080': '1' },
    });
    const first = await show(vast, id);
    expect(first).toMatchObject({ actual_status: null, label: 'tender-i1-r1-node-0', ports: {} });
    expect(await isPortRefused(first!.ssh_port)).toBe(true); // sshd listens only once running

    clockOf(vast).advance(1_000);
    expect((await show(vast, id))?.actual_status).toBe('loading');
    clockOf(vast).advance(4_000);
    const inst = (await show(vast, id))!;
    expect(inst).toMatchObject({
      actual_status: 'running',
      ssh_host: '127.0.0.1',
      public_ipaddr: '127.0.0.1',
      disk_space: 20,
    });
    expect(inst.ports['22/tcp']).toEqual([{ HostIp: '0.0.0.0', HostPort: String(inst.ssh_port) }]);
    expect(inst.extra_env).toEqual([
      ['HF_TOKEN', 'abc def'],
      ['-p 8080:8080', '1'],
    ]);
    expect(inst.dph_total).toBeCloseTo(0.35 + (20 * 0.15) / 720, 9);

    const env = await ssh(vast, id, account.file, "tr '\\0' '\\n' < ~/.vast-env");
    expect(env.code, env.stderr).toBe(0);
    const apiKey = vast.state.instances()[0]!.apiKey;
    expect(env.stdout.split('\n').filter(Boolean).sort()).toEqual(
      [`CONTAINER_API_KEY=${apiKey}`, `CONTAINER_ID=${id}`, 'HF_TOKEN=abc def'].sort(),
    );
    const stranger = keyPair('stranger');
    expect((await ssh(vast, id, stranger.file, 'true')).code).toBe(255);
  });

  it('lists by label (v0 and v1), relabels, stops and starts', async () => {
    const vast = await fake({ accountSshKeys: [account.publicKey] });
    const a = await running(vast, 1001, { label: 'tender-i1-r1-node-0' });
    const b = await running(vast, 1002, { label: 'tender-i2-r9-node-0' });
    expect((await listed(vast)).map((i) => [i.id, i.label])).toEqual([
      [a.id, 'tender-i1-r1-node-0'],
      [b.id, 'tender-i2-r9-node-0'],
    ]);
    const byLabel = async (labels: (string | null)[]) => {
      const res = await callVast(vast, 'GET', '/api/v1/instances/', {
        query: {
          select_filters: JSON.stringify({ label: { in: labels } }),
          order_by: JSON.stringify([{ col: 'id', dir: 'asc' }]),
          limit: '25',
        },
      });
      expect(res.status, res.text).toBe(200);
      const body = res.json as {
        instances: InstanceJson[];
        total_instances: number;
        next_token: string | null;
      };
      expect(body.next_token).toBeNull();
      return body.instances.map((i) => i.id);
    };
    expect(await byLabel(['tender-i1-r1-node-0'])).toEqual([a.id]);
    expect(await byLabel(['tender-i3-r1-node-0'])).toEqual([]);

    const relabel = await callVast(vast, 'PUT', `/api/v0/instances/${a.id}/`, {
      body: { label: 'tender-i1-r2-node-1' },
    });
    expect(relabel.json).toEqual({ success: true });
    expect(await byLabel(['tender-i1-r2-node-1'])).toEqual([a.id]);

    const stop = await callVast(vast, 'PUT', `/api/v0/instances/${b.id}/`, {
      body: { state: 'stopped' },
    });
    expect(stop.json).toEqual({ success: true });
    expect((await show(vast, b.id))?.actual_status).toBe('stopped');
    expect(await isPortRefused(b.ssh_port)).toBe(true);
    await callVast(vast, 'PUT', `/api/v0/instances/${b.id}/`, { body: { state: 'running' } });
    expect((await show(vast, b.id))?.actual_status).toBe('running');
    expect((await ssh(vast, b.id, account.file, 'echo back')).stdout).toBe('back\n');
  });

  it('pages the v1 list with next_token', async () => {
    const vast = await fake();
    const ids = [await create(vast, 1001), await create(vast, 1002), await create(vast, 1003)];
    const page = async (token?: string) => {
      const res = await callVast(vast, 'GET', '/api/v1/instances/', {
        query: { limit: '2', ...(token ? { after_token: token } : {}) },
      });
      return res.json as {
        instances: { id: number }[];
        next_token: string | null;
        total_instances: number;
      };
    };
    const p1 = await page();
    expect(p1.instances.map((i) => i.id)).toEqual(ids.slice(0, 2));
    expect(p1.total_instances).toBe(3);
    const p2 = await page(p1.next_token!);
    expect(p2.instances.map((i) => i.id)).toEqual(ids.slice(2));
    expect(p2.next_token).toBeNull();
  });

  it('destroy ends the node, its processes and its billing; the instance disappears', async () => {
    const vast = await fake({ accountSshKeys: [account.publicKey] });
    const inst = await running(vast, 1001, { label: 'tender-i1-r1-node-0' });
    const daemon = await ssh(
      vast,
      inst.id,
      account.file,
      'setsid nohup sleep 1000 >/dev/null 2>&1 < /dev/null & echo $!',
    );
    const pid = Number(daemon.stdout.trim());
    expect(isProcessAlive(pid)).toBe(true);
    expect(await search(vast, { id: { eq: 1001 }, rented: { eq: false } })).toEqual([]);

    clockOf(vast).advance(30 * 60_000);
    const node = vast.state.instances()[0]!.node;
    const res = await callVast(vast, 'DELETE', `/api/v0/instances/${inst.id}/`, { body: {} });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true });
    await vast.sync();

    expect(isProcessAlive(pid)).toBe(false);
    expect(spawnSync('getent', ['passwd', node.user]).status).not.toBe(0);
    expect(await isPortRefused(inst.ssh_port)).toBe(true);
    expect(await show(vast, inst.id)).toBeNull();
    expect(await listed(vast)).toEqual([]);
    expect(vast.state.liveInstances()).toEqual([]);
    expect(vast.state.destroyLog()).toEqual([
      { instanceId: inst.id, label: 'tender-i1-r1-node-0', at: clockOf(vast).now(), by: 'account' },
    ]);
    const billed = vast.state.billing(inst.id);
    const hours = (1_000 + 30 * 60_000) / 3_600_000;
    expect(billed.hours).toBeCloseTo(hours, 9);
    expect(billed.accruedUsd).toBeCloseTo(inst.dph_total * hours, 9);
    clockOf(vast).advance(3_600_000);
    expect(vast.state.billing(inst.id).accruedUsd).toBeCloseTo(inst.dph_total * hours, 9);

    const again = await callVast(vast, 'DELETE', `/api/v0/instances/${inst.id}/`);
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ success: false, error: 'not_found', msg: 'Instance not found' });
    expect(await search(vast, { id: { eq: 1001 }, rented: { eq: false } })).toEqual([1001]);
  });

  it('on the system clock, runs by itself (the background sync) and answers ssh', async () => {
    const vast = await fake({ clock: systemClock, accountSshKeys: [account.publicKey] });
    const id = await create(vast, 1001);
    const deadline = Date.now() + 20_000;
    let status: string | null | undefined;
    while ((status = (await show(vast, id))?.actual_status) !== 'running' && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(status).toBe('running');
    expect((await ssh(vast, id, account.file, 'echo $((6 * 7))')).stdout).toBe('42\n');
  });

  it('rents an offer once: of two concurrent creates, one gets no_such_ask', async () => {
    const vast = await fake();
    const put = () =>
      callVast(vast, 'PUT', '/api/v0/asks/1001/', {
        body: { image: 'vastai/base-image:cuda-12.4' },
      });
    const statuses = (await Promise.all([put(), put()])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 404]);
    expect(vast.state.liveInstances().length).toBe(1);
  });

  it("accepts an instance's own key for that instance only, and logs who destroyed it", async () => {
    const vast = await fake();
    const a = await create(vast, 1001);
    const b = await create(vast, 1002);
    const keyA = vast.state.instances().find((i) => i.id === a)!.apiKey;
    expect((await show(vast, a, keyA))?.id).toBe(a);
    const refused: [string, string][] = [
      ['GET', `/api/v0/instances/${b}/`],
      ['DELETE', `/api/v0/instances/${b}/`],
      ['PUT', `/api/v0/instances/${b}/`],
      ['GET', '/api/v0/instances/'],
      ['POST', '/api/v0/bundles/'],
      ['PUT', '/api/v0/asks/1003/'],
      ['GET', '/api/v0/users/current/'],
    ];
    for (const [method, path] of refused) {
      const res = await callVast(vast, method, path, {
        key: keyA,
        ...(method === 'GET' ? {} : { body: {} }),
      });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect(vast.state.liveInstances().map((i) => i.id)).toEqual([a, b]);
    expect(
      (await callVast(vast, 'PUT', `/api/v0/instances/${a}/`, { key: keyA, body: { label: 'x' } }))
        .status,
    ).toBe(200);
    expect((await callVast(vast, 'DELETE', `/api/v0/instances/${a}/`, { key: keyA })).status).toBe(
      200,
    );
    expect((await callVast(vast, 'DELETE', `/api/v0/instances/${b}/`)).status).toBe(200);
    expect(vast.state.destroyLog().map((d) => [d.instanceId, d.by])).toEqual([
      [a, 'instance'],
      [b, 'account'],
    ]);
    expect((await callVast(vast, 'GET', `/api/v0/instances/${a}/`, { key: keyA })).status).toBe(
      401,
    );
    expect(vast.state.calls().filter((c) => c.keyInstanceId === a).length).toBe(refused.length + 3);
  });
});
