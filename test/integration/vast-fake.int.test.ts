// The fake Vast.ai (test/fakes/vast) is what the Vast provider is proven against, so it is
// tested itself: search filters applied for real, instances that are real sshd nodes
// (null → loading → running, CONTAINER_ID in ~/.vast-env), label filters, destroy that ends
// the node's processes and its billing, instance-scoped keys, and every fault knob.
// Real HTTP on 127.0.0.1, real OpenSSH, an injected clock. Needs root.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateEd25519 } from '../../src-main/transport/keys';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeVast,
  type FakeVastOptions,
  ManualClock,
  OCI_ERROR_MSG,
  type OfferSeed,
  RATE_LIMIT_TEXT,
  startFakeVast,
  systemClock,
} from '../fakes/vast';
import { callVast, isPortRefused, isProcessAlive, sshInstance } from '../fakes/vast/probe';

const OFFERS: OfferSeed[] = [
  { id: 1001, gpu_name: 'RTX 4090', dph_base: 0.35, reliability: 0.995, geolocation: 'Sweden, SE' },
  {
    id: 1002,
    gpu_name: 'RTX 4090',
    num_gpus: 2,
    dph_base: 0.7,
    reliability: 0.97,
    geolocation: 'Texas, US',
  },
  {
    id: 1003,
    gpu_name: 'RTX 3090',
    dph_base: 0.2,
    reliability: 0.99,
    geolocation: 'Norway, NO',
    verification: 'unverified',
  },
  {
    id: 1004,
    gpu_name: 'H100 SXM',
    num_gpus: 8,
    gpu_ram: 81_920,
    dph_base: 16,
    reliability: 0.999,
    geolocation: 'California, US',
    hosting_type: 1,
  },
  { id: 1005, gpu_name: 'RTX 4090', dph_base: 0.3, rentable: false },
  {
    id: 1006,
    gpu_name: 'A100 PCIE',
    gpu_ram: 40_960,
    dph_base: 0.9,
    reliability: 0.9,
    geolocation: 'Germany, DE',
    inet_down: 100,
  },
];

/** What vast.py's `search offers` sends by default (plus the CLI's default storage). */
const CLI_DEFAULT_QUERY = {
  verified: { eq: true },
  external: { eq: false },
  rentable: { eq: true },
  rented: { eq: false },
  order: [['score', 'desc']],
  type: 'on-demand',
  allocated_storage: 5.0,
};

interface InstanceJson {
  id: number;
  label: string | null;
  actual_status: string | null;
  cur_state: string;
  status_msg: string | null;
  ssh_host: string;
  ssh_port: number;
  public_ipaddr: string;
  ports: Record<string, { HostIp: string; HostPort: string }[]>;
  extra_env: [string, string][];
  dph_total: number;
  disk_space: number;
  machine_id: number;
  gpu_name: string;
}

let keyDir: string;
let account: { privateKey: string; publicKey: string; file: string };
const fakes: FakeVast[] = [];

beforeAll(() => {
  keyDir = mkdtempSync(join(tmpdir(), 'tender-vast-fake-'));
  account = keyPair('account');
});

afterAll(() => rmSync(keyDir, { recursive: true, force: true }));

afterEach(async () => {
  for (const vast of fakes.splice(0)) {
    const nodes = vast.state.instances().map((i) => i.node);
    await vast.stop();
    for (const node of nodes) {
      // Every node's user, sshd and processes are gone.
      expect(spawnSync('getent', ['passwd', node.user]).status).not.toBe(0);
      expect(existsSync(node.home)).toBe(false);
      expect(await isPortRefused(node.port)).toBe(true);
      const sshds = spawnSync('pgrep', ['-af', 'sshd'], { encoding: 'utf8' }).stdout;
      expect(sshds).not.toContain(join(node.home, '..'));
    }
  }
});

async function fake(opts: FakeVastOptions = {}): Promise<FakeVast> {
  const vast = await startFakeVast({ offers: OFFERS, clock: new ManualClock(), ...opts });
  fakes.push(vast);
  return vast;
}

function clockOf(vast: FakeVast): ManualClock {
  return vast.clock as ManualClock;
}

async function search(vast: FakeVast, query: Record<string, unknown>): Promise<number[]> {
  const res = await callVast(vast, 'POST', '/api/v0/bundles/', { body: query });
  expect(res.status).toBe(200);
  return (res.json as { offers: { id: number }[] }).offers.map((o) => o.id);
}

async function create(
  vast: FakeVast,
  offerId: number,
  body: Record<string, unknown> = {},
): Promise<number> {
  const res = await callVast(vast, 'PUT', `/api/v0/asks/${offerId}/`, {
    body: {
      client_id: 'me',
      image: 'vastai/base-image:cuda-12.4',
      disk: 16,
      runtype: 'ssh_direc ssh_proxy',
      ...body,
    },
  });
  expect(res.status, res.text).toBe(200);
  const { success, new_contract } = res.json as { success: boolean; new_contract: number };
  expect(success).toBe(true);
  return new_contract;
}

async function show(vast: FakeVast, id: number, key?: string): Promise<InstanceJson | null> {
  const res = await callVast(vast, 'GET', `/api/v0/instances/${id}/`, {
    query: { owner: 'me' },
    ...(key ? { key } : {}),
  });
  expect(res.status, res.text).toBe(200);
  return (res.json as { instances: InstanceJson | null }).instances;
}

async function listed(vast: FakeVast): Promise<InstanceJson[]> {
  const res = await callVast(vast, 'GET', '/api/v0/instances', { query: { owner: 'me' } });
  expect(res.status).toBe(200);
  return (res.json as { instances: InstanceJson[] }).instances;
}

/** Creates an instance and moves the clock until it runs (default timings). */
async function running(vast: FakeVast, offerId: number, body: Record<string, unknown> = {}) {
  const id = await create(vast, offerId, body);
  clockOf(vast).advance(1_000);
  await vast.sync();
  const inst = await show(vast, id);
  expect(inst?.actual_status).toBe('running');
  return inst!;
}

function keyPair(name: string): { privateKey: string; publicKey: string; file: string } {
  const pair = generateEd25519(`tender-${name}`);
  const file = join(keyDir, name);
  writeFileSync(file, pair.private, { mode: 0o600 });
  return { privateKey: pair.private, publicKey: pair.public, file };
}

function ssh(vast: FakeVast, id: number, keyFile: string, cmd: string) {
  return sshInstance(vast, id, keyFile, cmd, keyDir);
}

describe('auth', () => {
  it('answers 401 with a JSON error to a missing or wrong key, accepts Bearer and ?api_key=', async () => {
    const vast = await fake();
    for (const key of [null, 'not-the-key']) {
      const res = await callVast(vast, 'GET', '/api/v0/users/current/', { key });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ success: false, error: 'auth_error', msg: 'Invalid user key' });
    }
    const bearer = await callVast(vast, 'GET', '/api/v0/users/current/');
    expect(bearer.status).toBe(200);
    expect(bearer.json).toMatchObject({ api_key: vast.apiKey, can_pay: true });
    const query = await callVast(vast, 'GET', '/api/v0/users/current/', {
      key: null,
      query: { api_key: vast.apiKey },
    });
    expect(query.status).toBe(200);
    expect(vast.state.calls().map((c) => [c.key, c.status])).toEqual([
      ['none', 401],
      ['invalid', 401],
      ['account', 200],
      ['account', 200],
    ]);
  });
});

describe('search offers', () => {
  it("returns exactly the offers vast.py's default query matches, in its order", async () => {
    const vast = await fake();
    const res = await callVast(vast, 'POST', '/api/v0/bundles/', { body: CLI_DEFAULT_QUERY });
    expect(res.headers.get('content-type')).toBe('application/json');
    // 1003 is unverified, 1005 not rentable; score desc (8, 2, 1, 1 GPUs), then id.
    expect(await search(vast, CLI_DEFAULT_QUERY)).toEqual([1004, 1002, 1001, 1006]);
  });

  it('applies eq, neq, gt, gte, lt, lte, in, notin for real', async () => {
    const vast = await fake();
    const base = { rentable: { eq: true }, order: [['id', 'asc']] };
    const cases: [Record<string, unknown>, number[]][] = [
      [{ gpu_name: { eq: 'RTX 4090' } }, [1001, 1002]],
      [{ gpu_name: { neq: 'RTX 4090' } }, [1003, 1004, 1006]],
      [{ num_gpus: { eq: '1' } }, [1001, 1003, 1006]], // vast.py sends numbers as strings
      [{ num_gpus: { gt: 1 } }, [1002, 1004]],
      [{ gpu_ram: { gte: 40_000 } }, [1004, 1006]], // MB: vast.py multiplies GB by 1000
      [{ reliability: { lt: 0.98 } }, [1002, 1006]],
      [{ dph_total: { lte: 0.36 } }, [1001, 1003]],
      [{ gpu_name: { in: ['RTX 3090', 'A100 PCIE'] } }, [1003, 1006]],
      [{ geolocation: { notin: ['US', 'SE'] } }, [1003, 1006]],
      [{ geolocation: { in: ['US'] }, verified: { eq: true } }, [1002, 1004]],
      [{ datacenter: { eq: true } }, [1004]],
      [{ inet_down: { lt: 500 }, cuda_max_good: { gte: 12 } }, [1006]],
    ];
    for (const [filter, expected] of cases)
      expect(await search(vast, { ...base, ...filter }), JSON.stringify(filter)).toEqual(expected);
  });

  it('prices dph_total for the allocated storage, honours limit, refuses unknown fields', async () => {
    const vast = await fake();
    const priced = async (storage: number) => {
      const res = await callVast(vast, 'POST', '/api/v0/bundles/', {
        body: { id: { eq: 1001 }, allocated_storage: storage },
      });
      return (res.json as { offers: Record<string, unknown>[] }).offers[0]!;
    };
    const offer = await priced(100);
    expect(offer.dph_total).toBeCloseTo(0.35 + (100 * 0.15) / 720, 9);
    expect((await priced(5)).dph_total).toBeCloseTo(0.35 + (5 * 0.15) / 720, 9);
    expect(offer).toMatchObject({
      id: 1001,
      ask_contract_id: 1001,
      gpu_name: 'RTX 4090',
      num_gpus: 1,
      gpu_ram: 24_576,
      storage_cost: 0.15,
      reliability: 0.995,
      reliability2: 0.995,
      verification: 'verified',
      rentable: true,
      rented: false,
      geolocation: 'Sweden, SE',
    });
    for (const field of [
      'machine_id',
      'inet_down',
      'inet_up',
      'direct_port_count',
      'cuda_max_good',
      'dlperf',
      'disk_space',
    ])
      expect(typeof offer[field], field).toBe('number');
    expect(await search(vast, { order: [['dph_total', 'asc']], limit: 2 })).toEqual([1003, 1005]);
    const bad = await callVast(vast, 'POST', '/api/v0/bundles/', {
      body: { gpu_nmae: { eq: 'x' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: 'invalid_request' });
  });
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

describe('fault knobs', () => {
  it('429 storms: the next N calls, a seeded ratio, or only some endpoints', async () => {
    const vast = await fake();
    vast.faults.rateLimit({ next: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await callVast(vast, 'GET', '/api/v0/users/current/');
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.text).toBe(RATE_LIMIT_TEXT);
        expect(res.headers.get('retry-after')).toBeNull();
        expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      }
    }
    expect(statuses).toEqual([429, 429, 429, 200]);

    const pattern = async () => {
      vast.faults.rateLimit({ ratio: 0.5, seed: 7 });
      const out: number[] = [];
      for (let i = 0; i < 60; i++) out.push((await callVast(vast, 'GET', '/api/v0/ssh/')).status);
      return out;
    };
    const first = await pattern();
    expect(first.filter((s) => s === 429).length).toBeGreaterThan(15);
    expect(first.filter((s) => s === 200).length).toBeGreaterThan(15);
    expect(await pattern()).toEqual(first);

    vast.faults.rateLimit({ next: 1, match: (c) => c.path.startsWith('/api/v0/bundles') });
    expect((await callVast(vast, 'GET', '/api/v0/ssh/')).status).toBe(200);
    expect((await callVast(vast, 'POST', '/api/v0/bundles/', { body: {} })).status).toBe(429);
    expect(vast.state.calls().filter((c) => c.status === 429).length).toBe(
      3 + 2 * first.filter((s) => s === 429).length + 1,
    );
    vast.faults.rateLimit({ next: 5 });
    vast.faults.reset();
    expect((await callVast(vast, 'GET', '/api/v0/ssh/')).status).toBe(200);
  });

  it('a 500 after the instance was really created', async () => {
    const vast = await fake();
    vast.faults.failCreateAfterCommit();
    const res = await callVast(vast, 'PUT', '/api/v0/asks/1001/', {
      body: { image: 'vastai/base-image:cuda-12.4', label: 'tender-i1-r1-node-0' },
    });
    expect(res.status).toBe(500);
    expect(res.text).toBe('Internal Server Error');
    expect((await listed(vast)).map((i) => i.label)).toEqual(['tender-i1-r1-node-0']);
    const [inst] = vast.state.liveInstances();
    clockOf(vast).advance(3_600_000);
    expect(vast.state.billing(inst!.id).accruedUsd).toBeCloseTo(inst!.dphTotal, 9);
  });

  it('instances that stay loading, or end exited / offline / created with an OCI error', async () => {
    const vast = await fake();
    vast.faults.nextInstanceFate('stay_loading');
    vast.faults.nextInstanceFate('exited');
    vast.faults.nextInstanceFate('offline');
    vast.faults.nextInstanceFate('created', { statusMsg: 'OCI runtime create failed: bad image' });
    const ids: number[] = [];
    for (const offer of [1001, 1002, 1003, 1004]) ids.push(await create(vast, offer));
    clockOf(vast).advance(24 * 3_600_000);
    await vast.sync();
    const shown = await Promise.all(ids.map((id) => show(vast, id)));
    expect(shown.map((i) => [i?.actual_status, i?.status_msg])).toEqual([
      ['loading', 'Pulling image vastai/base-image:cuda-12.4'],
      ['exited', OCI_ERROR_MSG],
      ['offline', OCI_ERROR_MSG],
      ['created', 'OCI runtime create failed: bad image'],
    ]);
    for (const inst of shown) expect(await isPortRefused(inst!.ssh_port)).toBe(true);
  });

  it('a running instance can be turned offline', async () => {
    const vast = await fake({ accountSshKeys: [account.publicKey] });
    const inst = await running(vast, 1001);
    await vast.faults.setStatus(inst.id, 'offline', 'host went away');
    expect(await show(vast, inst.id)).toMatchObject({
      actual_status: 'offline',
      status_msg: 'host went away',
    });
    expect((await ssh(vast, inst.id, account.file, 'true')).code).toBe(255);
  });

  it('delayed visibility: absent from list and show for T, destroyable meanwhile; lingering after destroy', async () => {
    const vast = await fake();
    vast.faults.delayListVisibility(10_000);
    const id = await create(vast, 1001);
    expect(await listed(vast)).toEqual([]);
    expect(await show(vast, id)).toBeNull();
    clockOf(vast).advance(10_000);
    expect((await listed(vast)).map((i) => i.id)).toEqual([id]);

    const hidden = await create(vast, 1002);
    expect((await callVast(vast, 'DELETE', `/api/v0/instances/${hidden}/`)).status).toBe(200);

    vast.faults.delayGoneVisibility(5_000);
    expect((await callVast(vast, 'DELETE', `/api/v0/instances/${id}/`)).status).toBe(200);
    expect((await show(vast, id))?.cur_state).toBe('unloaded');
    clockOf(vast).advance(5_000);
    expect(await show(vast, id)).toBeNull();
    expect(vast.state.liveInstances()).toEqual([]);
  });

  it('destroys that fail K times before succeeding', async () => {
    const vast = await fake();
    const id = await create(vast, 1001);
    vast.faults.failDestroys(2, { status: 503 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await callVast(vast, 'DELETE', `/api/v0/instances/${id}/`)).status);
      if (i < 2) expect(vast.state.liveInstances().map((x) => x.id)).toEqual([id]);
    }
    expect(statuses).toEqual([503, 503, 200]);
    expect(vast.state.destroyLog().length).toBe(1);
  });

  it('an offer rented away between search and create', async () => {
    const vast = await fake();
    vast.faults.rentAway(1001);
    const res = await callVast(vast, 'PUT', '/api/v0/asks/1001/', { body: { image: 'x/y:z' } });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      success: false,
      error: 'invalid_args',
      msg: 'error 404/3603: no_such_ask Instance type by id 1001 is not available.',
      ask_id: 1001,
    });
    expect(await search(vast, { id: { eq: 1001 } })).toEqual([]);

    vast.faults.rentAwayAfterSearch();
    const [top] = await search(vast, CLI_DEFAULT_QUERY);
    expect(
      (await callVast(vast, 'PUT', `/api/v0/asks/${top}/`, { body: { image: 'x/y:z' } })).status,
    ).toBe(404);
    expect(vast.state.liveInstances()).toEqual([]);
  });

  it('SSH keys that take T to propagate, attached and detached per instance or added to the account', async () => {
    const vast = await fake({ accountSshKeys: [account.publicKey] });
    const inst = await running(vast, 1001);
    vast.faults.sshKeyPropagation(60_000);
    const late = keyPair('late');
    const attach = await callVast(vast, 'POST', `/api/v0/instances/${inst.id}/ssh/`, {
      body: { ssh_key: late.publicKey },
    });
    expect(attach.json).toEqual({ success: true, msg: 'SSH key attached successfully' });
    const keys = await callVast(vast, 'GET', `/api/v0/instances/${inst.id}/ssh/`);
    const attached = JSON.parse((keys.json as { ssh_keys: string }).ssh_keys) as {
      id: number;
      public_key: string;
    }[];
    const lateKey = attached.find((k) => k.public_key === late.publicKey)!;
    expect(lateKey).toBeDefined();
    expect((await ssh(vast, inst.id, late.file, 'true')).code).toBe(255);
    clockOf(vast).advance(60_000);
    await vast.sync();
    expect((await ssh(vast, inst.id, late.file, 'echo in')).stdout).toBe('in\n');

    const detach = await callVast(
      vast,
      'DELETE',
      `/api/v0/instances/${inst.id}/ssh/${lateKey.id}/`,
    );
    expect(detach.json).toMatchObject({ success: true });
    clockOf(vast).advance(60_000);
    await vast.sync();
    expect((await ssh(vast, inst.id, late.file, 'true')).code).toBe(255);

    const added = keyPair('added');
    await callVast(vast, 'POST', '/api/v0/ssh/', { body: { ssh_key: added.publicKey } });
    expect((await ssh(vast, inst.id, added.file, 'true')).code).toBe(255);
    clockOf(vast).advance(60_000);
    await vast.sync();
    expect((await ssh(vast, inst.id, added.file, 'true')).code).toBe(0);
    const accountKeys = await callVast(vast, 'GET', '/api/v0/ssh/');
    expect((accountKeys.json as { key: string }[]).map((k) => k.key)).toEqual([
      account.publicKey,
      added.publicKey,
    ]);
  });

  it('request latency (a lower bound, never a timing assertion on speed)', async () => {
    const vast = await fake();
    vast.faults.latency(150);
    const started = performance.now();
    expect((await callVast(vast, 'GET', '/api/v0/ssh/')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });
});
