import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { loadJobFile } from '../../jobs/job-file/job-file';
import { poolSize } from '../../jobs/job-file/job-file-distributed';
import { KNOWN_PROVIDERS } from '../../providers/known';
import { poolFlags, type PoolFlagValues } from './run-pool-flags';

const HEAD = '[job]\nname = "gang"\nrun = "torchrun train.py"\ndistributed = true\n';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tender-pool-flags-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(toml: string, flags: PoolFlagValues) {
  const file = path.join(dir, 'tender.toml');
  await writeFile(file, toml);
  return loadJobFile(file, { knownProviders: KNOWN_PROVIDERS, poolFlags: poolFlags(flags) });
}

describe('a distributed job file and the pool flags laid over it', () => {
  // prettier-ignore
  const loads: [string, string, PoolFlagValues, { provider: string; hosts: string[]; count: number }][] = [
    ['--hosts a,b: a pool of two on the ssh provider', HEAD, { hosts: 'a,b' }, { provider: 'ssh', hosts: ['a', 'b'], count: 1 }],
    ['--hosts with spaces and a trailing comma', HEAD, { hosts: ' a , b ,' }, { provider: 'ssh', hosts: ['a', 'b'], count: 1 }],
    ['--count 2 over a file without count', HEAD, { count: '2' }, { provider: 'local', hosts: [], count: 2 }],
    ['hosts in [pool], no flags', `${HEAD}[pool]\nprovider = "ssh"\nhosts = ["a", "b"]\n`, {}, { provider: 'ssh', hosts: ['a', 'b'], count: 1 }],
    ['--hosts keeps a provider the file named', `${HEAD}[pool]\nprovider = "ssh"\n`, { hosts: 'a,b' }, { provider: 'ssh', hosts: ['a', 'b'], count: 1 }],
  ];
  test.each(loads)('%s', async (_what, toml, flags, want) => {
    const { pool } = await load(toml, flags);
    expect({ provider: pool.provider, hosts: pool.hosts, count: pool.count }).toEqual(want);
  });

  // prettier-ignore
  const refused: [string, string, PoolFlagValues, string][] = [
    ['no flags: one node', HEAD, {}, 'distributed = true needs count ≥ 2 (the pool has 1 node)'],
    ['--hosts with one host', HEAD, { hosts: 'a' }, 'distributed = true needs count ≥ 2 (the pool has 1 node)'],
    ['--count 1 over count = 2', `${HEAD}[pool]\ncount = 2\n`, { count: '1' }, 'distributed = true needs count ≥ 2 (the pool has 1 node)'],
  ];
  test.each(refused)('%s', async (_what, toml, flags, text) => {
    await expect(load(toml, flags)).rejects.toThrow(text);
  });

  test('a bad flag is refused before the file is read', () => {
    expect(() => poolFlags({ count: '0' })).toThrow('--count must be a whole number from 1 to 64');
    expect(() => poolFlags({ provider: 'aws' })).toThrow('unknown provider "aws"');
  });
});

describe('poolSize', () => {
  // prettier-ignore
  const cases: [string, { count: number; hosts: string[]; offers: string[] }, number][] = [
    ['count alone', { count: 3, hosts: [], offers: [] }, 3],
    ['one node per host, whatever the count', { count: 1, hosts: ['a', 'b'], offers: [] }, 2],
    ['offers picked beyond the count', { count: 1, hosts: [], offers: ['o1', 'o2'] }, 2],
    ['a count beyond the offers', { count: 4, hosts: [], offers: ['o1'] }, 4],
  ];
  test.each(cases)('%s', (_what, pool, n) => expect(poolSize(pool)).toBe(n));
});
