import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TenderError } from '../base/tender-error';
import { PoolSpec, type PoolSpecInput } from '../contract';
import { LocalProvider } from './local/local-provider';
import { countedShapes, marketShape, refuseMarketFields, type NodeShape } from './pool-shapes';
import type { Provider } from './provider';
import { writeHosts } from './ssh/hosts-file';
import { SshProvider } from './ssh/ssh-provider';
import { VastProvider } from './vastai/provider';

const pool = (input: PoolSpecInput): PoolSpec => PoolSpec.parse(input);

/** What a call threw, as error data: `{ code, message, hint }`. */
function thrown(f: () => unknown): { code: string; message: string; hint?: string } {
  try {
    f();
  } catch (err) {
    if (!(err instanceof TenderError)) throw err;
    return err.toData();
  }
  throw new Error('expected a TenderError, nothing was thrown');
}

const ALL_MARKET = {
  gpu: 'RTX 4090',
  gpu_count: 2,
  min_vram_gb: 24,
  max_price: 0.5,
  image: 'pytorch/pytorch:latest',
  disk_gb: 40,
  min_reliability: 0.98,
  min_down_mbps: 100,
  min_up_mbps: 50,
  verified: true,
} as const;

const MARKET_HINT = 'use --provider vastai (or provider = "vastai" in [pool]), or leave them out';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempHome(): string {
  const d = mkdtempSync(join(tmpdir(), 'tender-pool-shapes-'));
  dirs.push(d);
  return d;
}

describe('marketShape', () => {
  it.each([
    { name: 'no marketplace field', input: {}, shape: {} },
    {
      name: 'only the fields given',
      input: { gpu: 'A100', max_price: 1.2 },
      shape: { gpu: 'A100', max_price: 1.2 },
    },
    {
      name: 'verified = false is a given field',
      input: { verified: false },
      shape: { verified: false },
    },
    { name: 'every marketplace field', input: ALL_MARKET, shape: ALL_MARKET },
    {
      name: 'count, verify, offers and hosts are not marketplace fields',
      input: { provider: 'vastai', count: 3, verify: ['nvidia-smi'], offers: ['1'], hosts: ['h'] },
      shape: {},
    },
  ])('$name', ({ input, shape }) => {
    expect(marketShape(pool(input))).toEqual(shape);
  });
});

describe('refuseMarketFields', () => {
  it.each([
    { input: {}, error: null },
    { input: { verify: ['true'], count: 2 }, error: null },
    {
      input: { gpu: 'A100' },
      error: {
        code: 'bad_input',
        message: 'gpu is for a marketplace provider, not local',
        hint: MARKET_HINT,
      },
    },
    {
      // Named in the contract's order, whatever the order given.
      input: { max_price: 1, gpu: 'A100' },
      error: {
        code: 'bad_input',
        message: 'gpu, max_price are for a marketplace provider, not local',
        hint: MARKET_HINT,
      },
    },
    {
      input: { verified: false },
      error: {
        code: 'bad_input',
        message: 'verified is for a marketplace provider, not local',
        hint: MARKET_HINT,
      },
    },
    {
      input: { offers: ['123'] },
      error: { code: 'bad_input', message: 'offers are picked from a marketplace, not local' },
    },
    {
      input: { offers: ['123'], image: 'x' },
      error: {
        code: 'bad_input',
        message: 'image is for a marketplace provider, not local',
        hint: MARKET_HINT,
      },
    },
  ])('$input → $error.message', ({ input, error }) => {
    const p = pool(input);
    if (error === null) expect(() => refuseMarketFields('local', p)).not.toThrow();
    else expect(thrown(() => refuseMarketFields('local', p))).toEqual(error);
  });
});

describe('countedShapes', () => {
  it.each([
    { name: 'the default count', input: {}, shapes: [{}] },
    { name: 'one per count', input: { count: 3 }, shapes: [{}, {}, {}] },
    {
      name: 'each with the marketplace fields',
      input: { count: 2, gpu: 'A100', disk_gb: 80 },
      shapes: [
        { gpu: 'A100', disk_gb: 80 },
        { gpu: 'A100', disk_gb: 80 },
      ],
    },
    {
      name: 'one per offer picked by hand, beyond the count',
      input: { offers: ['11', '22'] },
      shapes: [{ offerId: '11' }, { offerId: '22' }],
    },
    {
      name: 'a count beyond the offers adds plain shapes',
      input: { count: 3, offers: ['11'], gpu: 'A100' },
      shapes: [{ gpu: 'A100', offerId: '11' }, { gpu: 'A100' }, { gpu: 'A100' }],
    },
  ])('$name', ({ input, shapes }) => {
    expect(countedShapes('vastai', pool(input))).toEqual(shapes);
  });

  it('refuses hosts, naming the provider', () => {
    expect(thrown(() => countedShapes('someprovider', pool({ hosts: ['lab1'] })))).toEqual({
      code: 'bad_input',
      message: 'hosts are for the ssh provider, not someprovider',
    });
  });
});

const HOSTS = [
  { name: 'lab1', host: '10.0.0.1', port: 22, user: 'me', identityFile: null },
  { name: 'lab2', host: '10.0.0.2', port: 2222, user: 'me', identityFile: null },
];

type Kind = 'local' | 'ssh' | 'vastai';
/** A bad-input error's message and hint; a hint may name the data folder. */
type BadInput = { message: string; hint?: string | ((home: string) => string) };

/** Each provider, the ssh one with lab1 and lab2 in the hosts.toml of `home`. */
function providers(): { home: string; of: Record<Kind, Provider> } {
  const home = tempHome();
  writeHosts(home, HOSTS);
  const of = {
    local: new LocalProvider(home, () => 0),
    ssh: new SshProvider(home, () => Promise.reject(new Error('shapeNodes connects to nothing'))),
    vastai: new VastProvider({
      apiKey: 'k'.repeat(64),
      baseUrl: 'http://127.0.0.1:9', // never called: shapeNodes makes no request
      publicKey: () => 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA test',
      now: () => 0,
    }),
  };
  return { home, of };
}

describe('shapeNodes of each provider', () => {
  it.each<{ provider: Kind; input: PoolSpecInput; shapes: NodeShape[] }>([
    { provider: 'local', input: { provider: 'local' }, shapes: [{}] },
    {
      provider: 'local',
      input: { provider: 'local', count: 2, verify: ['true'] },
      shapes: [{}, {}],
    },
    { provider: 'ssh', input: { provider: 'ssh', hosts: ['lab2'] }, shapes: [{ host: 'lab2' }] },
    {
      provider: 'ssh',
      input: { provider: 'ssh', hosts: ['lab2', 'lab1'] },
      shapes: [{ host: 'lab2' }, { host: 'lab1' }],
    },
    {
      provider: 'ssh',
      input: { provider: 'ssh', count: 2, hosts: ['lab1', 'lab2'] },
      shapes: [{ host: 'lab1' }, { host: 'lab2' }],
    },
    { provider: 'vastai', input: { provider: 'vastai', count: 2 }, shapes: [{}, {}] },
    {
      provider: 'vastai',
      input: { provider: 'vastai', gpu: 'RTX 4090', max_price: 0.4 },
      shapes: [{ gpu: 'RTX 4090', max_price: 0.4 }],
    },
    {
      provider: 'vastai',
      input: { provider: 'vastai', offers: ['101', '202'] },
      shapes: [{ offerId: '101' }, { offerId: '202' }],
    },
    {
      provider: 'vastai',
      input: { provider: 'vastai', count: 3, offers: ['101'] },
      shapes: [{ offerId: '101' }, {}, {}],
    },
  ])('$provider: $input → $shapes', ({ provider, input, shapes }) => {
    expect(providers().of[provider].shapeNodes(pool(input))).toEqual(shapes);
  });

  it.each<{ why: string; provider: Kind; input: PoolSpecInput; error: BadInput }>([
    {
      why: 'marketplace fields on local',
      provider: 'local',
      input: { gpu: 'A100', min_vram_gb: 40 },
      error: {
        message: 'gpu, min_vram_gb are for a marketplace provider, not local',
        hint: MARKET_HINT,
      },
    },
    {
      why: 'marketplace fields on ssh',
      provider: 'ssh',
      input: { hosts: ['lab1'], image: 'ubuntu' },
      error: { message: 'image is for a marketplace provider, not ssh', hint: MARKET_HINT },
    },
    {
      why: 'offers on local',
      provider: 'local',
      input: { offers: ['101'] },
      error: { message: 'offers are picked from a marketplace, not local' },
    },
    {
      why: 'offers on ssh',
      provider: 'ssh',
      input: { hosts: ['lab1'], offers: ['101'] },
      error: { message: 'offers are picked from a marketplace, not ssh' },
    },
    {
      why: 'hosts on local',
      provider: 'local',
      input: { hosts: ['lab1'] },
      error: { message: 'hosts are for the ssh provider, not local' },
    },
    {
      why: 'hosts on vastai',
      provider: 'vastai',
      input: { hosts: ['lab1'] },
      error: { message: 'hosts are for the ssh provider, not vastai' },
    },
    {
      why: 'ssh without hosts',
      provider: 'ssh',
      input: {},
      error: {
        message: 'the ssh provider needs hosts',
        hint: 'pass --hosts lab1,lab2 or set hosts in [pool]; `tender hosts add` registers one',
      },
    },
    {
      why: 'ssh count mismatch',
      provider: 'ssh',
      input: { count: 3, hosts: ['lab1', 'lab2'] },
      error: {
        message: 'count 3 does not match the 2 hosts given',
        hint: 'with the ssh provider each host is one node; leave count out',
      },
    },
    {
      why: 'a host named twice',
      provider: 'ssh',
      input: { hosts: ['lab1', 'lab2', 'lab1'] },
      error: { message: 'a host is named twice in hosts' },
    },
    {
      why: 'an unknown host',
      provider: 'ssh',
      input: { hosts: ['lab1', 'lab9'] },
      error: {
        message: 'unknown host "lab9"',
        hint: (home: string) => `hosts in ${join(home, 'hosts.toml')}: lab1, lab2`,
      },
    },
  ])('$why: $error.message', ({ provider, input, error }) => {
    const { home, of } = providers();
    const got = thrown(() => of[provider].shapeNodes(pool({ provider, ...input })));
    const hint = typeof error.hint === 'function' ? error.hint(home) : error.hint;
    expect(got).toEqual({
      code: 'bad_input',
      message: error.message,
      ...(hint === undefined ? {} : { hint }),
    });
  });

  it('an unknown host with no hosts.toml says how to add one', () => {
    const ssh = new SshProvider(tempHome(), () => Promise.reject(new Error('unused')));
    expect(thrown(() => ssh.shapeNodes(pool({ provider: 'ssh', hosts: ['lab1'] })))).toEqual({
      code: 'bad_input',
      message: 'unknown host "lab1"',
      hint: 'add one with `tender hosts add <name> user@host[:port]`',
    });
  });
});
