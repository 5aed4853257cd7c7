// `[policy] gpu_idle`: the GPU idle rule as a person writes it, its defaults, and the
// errors that name the fix.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { BadInputError } from '../../base/bad-input-error';
import { rejection } from './job-file.test-util';
import { loadJobFile } from './job-file';

const HEAD = '[job]\nname = "hello"\nrun = "python train.py"\n[policy]\n'; // lines 1-4

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tender-gpu-idle-'));
  file = path.join(dir, 'tender.toml');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(toml: string) {
  await writeFile(file, toml);
  return loadJobFile(file, { knownProviders: ['local'], env: {} });
}

const failure = (toml: string): Promise<BadInputError> => rejection(() => load(toml));

describe('[policy] gpu_idle', () => {
  test.each([
    [
      'every key written',
      'gpu_idle = { below = 15, for = "45m", then = "teardown" }',
      { belowPct: 15, forMs: 45 * 60_000, then: 'teardown' },
    ],
    [
      'nothing written: the defaults',
      'gpu_idle = {}',
      { belowPct: 10, forMs: 30 * 60_000, then: 'stop' },
    ],
    [
      'as a table of its own',
      '[policy.gpu_idle]\nthen = "notify"',
      { belowPct: 10, forMs: 30 * 60_000, then: 'notify' },
    ],
    [
      'a short window (tests)',
      'gpu_idle = { for = "3s", below = 2.5 }',
      { belowPct: 2.5, forMs: 3_000, then: 'stop' },
    ],
  ])('%s', async (_name, line, rule) => {
    expect((await load(`${HEAD}${line}\n`)).policy).toEqual({ gpuIdle: rule });
  });

  test('no gpu_idle: no rule', async () => {
    expect((await load(`${HEAD}max_duration = "6h"\n`)).policy).toEqual({
      maxDurationMs: 6 * 3_600_000,
    });
  });

  test.each([
    ['then = "kill"', /policy\.gpu_idle\.then must be one of notify, stop, teardown/],
    ['below = 0', /policy\.gpu_idle\.below must be above 0/],
    ['below = 120', /policy\.gpu_idle\.below must be at most 100/],
    ['below = "10%"', /policy\.gpu_idle\.below must be a number/],
    ['for = "half an hour"', /not a duration: write e\.g\. "90s", "20m"/],
    ['for = "none"', /remove gpu_idle to turn the rule off/],
    ['for = "500ms"', /at least 1s/],
  ])('%s is refused, naming the fix', async (entry, why) => {
    const err = await failure(`${HEAD}gpu_idle = { ${entry} }\n`);
    expect(err.message).toMatch(/tender\.toml:5:\d+: /);
    expect(err.message).toMatch(why);
  });

  test('a typo inside gpu_idle suggests the key', async () => {
    const err = await failure(`${HEAD}gpu_idle = { bellow = 10 }\n`);
    expect(err.message).toMatch(/unknown key "bellow"/);
    expect(err.hint).toMatch(/below/);
  });
});
