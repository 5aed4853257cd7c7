// What the fake's own tests (test/integration/vast-fake-*.int.test.ts) share: six seeded
// offers, the query vast.py's `search offers` sends, a folder of throw-away SSH keys, a fake
// per test that is checked to leave no user, home, port or sshd behind, and client calls
// that expect a 200. Real HTTP on 127.0.0.1, real OpenSSH, an injected clock.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { generateEd25519 } from '../../../src-main/transport/keys';
import {
  type FakeVast,
  type FakeVastOptions,
  ManualClock,
  type OfferSeed,
  startFakeVast,
} from './index';
import { callVast, isPortRefused, sshInstance } from './probe';

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

export const CLI_DEFAULT_QUERY = {
  verified: { eq: true },
  external: { eq: false },
  rentable: { eq: true },
  rented: { eq: false },
  order: [['score', 'desc']],
  type: 'on-demand',
  allocated_storage: 5.0,
};

export interface InstanceJson {
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

export interface KeyPair {
  privateKey: string;
  publicKey: string;
  file: string;
}

export interface FakeVastFixture {
  /** A fake with the six offers and a manual clock (unless `opts` says otherwise), stopped
   *  after the test with every node it made checked gone. */
  fake(opts?: FakeVastOptions): Promise<FakeVast>;
  /** A new ed25519 key pair, its private key written to a 0600 file. */
  keyPair(name: string): KeyPair;
  /** A command on an instance through the system `ssh`, as `keyFile`. */
  ssh(vast: FakeVast, id: number, keyFile: string, cmd: string): ReturnType<typeof sshInstance>;
}

/** Registers the file's hooks (a key folder for the file, a stop and a leak check after each
 *  test); call once at the top of a test file. */
export function fakeVastFixture(): FakeVastFixture {
  let keyDir: string;
  const fakes: FakeVast[] = [];

  beforeAll(() => {
    keyDir = mkdtempSync(join(tmpdir(), 'tender-vast-fake-'));
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

  function keyPair(name: string): KeyPair {
    const pair = generateEd25519(`tender-${name}`);
    const file = join(keyDir, name);
    writeFileSync(file, pair.private, { mode: 0o600 });
    return { privateKey: pair.private, publicKey: pair.public, file };
  }

  function ssh(vast: FakeVast, id: number, keyFile: string, cmd: string) {
    return sshInstance(vast, id, keyFile, cmd, keyDir);
  }

  return { fake, keyPair, ssh };
}

export function clockOf(vast: FakeVast): ManualClock {
  return vast.clock as ManualClock;
}

export async function search(vast: FakeVast, query: Record<string, unknown>): Promise<number[]> {
  const res = await callVast(vast, 'POST', '/api/v0/bundles/', { body: query });
  expect(res.status).toBe(200);
  return (res.json as { offers: { id: number }[] }).offers.map((o) => o.id);
}

export async function create(
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

export async function show(vast: FakeVast, id: number, key?: string): Promise<InstanceJson | null> {
  const res = await callVast(vast, 'GET', `/api/v0/instances/${id}/`, {
    query: { owner: 'me' },
    ...(key ? { key } : {}),
  });
  expect(res.status, res.text).toBe(200);
  return (res.json as { instances: InstanceJson | null }).instances;
}

export async function listed(vast: FakeVast): Promise<InstanceJson[]> {
  const res = await callVast(vast, 'GET', '/api/v0/instances', { query: { owner: 'me' } });
  expect(res.status).toBe(200);
  return (res.json as { instances: InstanceJson[] }).instances;
}

/** Creates an instance and moves the clock until it runs (default timings). */
export async function running(vast: FakeVast, offerId: number, body: Record<string, unknown> = {}) {
  const id = await create(vast, offerId, body);
  clockOf(vast).advance(1_000);
  await vast.sync();
  const inst = await show(vast, id);
  expect(inst?.actual_status).toBe('running');
  return inst!;
}
