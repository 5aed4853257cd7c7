import { describe, expect, it } from 'vitest';
import { JobSpec, PoolSpec, type JobSpecInput, type PoolSpecInput } from '../../contract/job';
import { BadInputError } from '../../base/bad-input-error';
import { parseJobToml } from '../job-file/job-file';
import { checkHostResources, differingFields, hostDeclaration, hostKey } from './host-declaration';

const job = (extra: Partial<JobSpecInput> = {}) =>
  JobSpec.parse({ name: 'j', run: 'true', ...extra });
const pool = (extra: PoolSpecInput = {}) => PoolSpec.parse(extra);
const key = (j: Partial<JobSpecInput>, p: PoolSpecInput = {}, provider = 'local') =>
  hostKey(hostDeclaration(job(j), pool(p), provider));

describe('host declaration → hk1 key', () => {
  const base = key({});
  it.each<[string, Partial<JobSpecInput>, PoolSpecInput, string]>([
    ['env does not change the machine', { env: { A: '1' } }, {}, 'local'],
    ['setup (the job env) is not in the key', { setup: 'pip install -r r.txt' }, {}, 'local'],
    ['run_setup runs every time: not in the key', { run_setup: 'echo hi' }, {}, 'local'],
    ['params are per run', { params: { LR: '1e-4' } }, {}, 'local'],
    ['the price cap is not the machine', {}, { max_price: 2 }, 'local'],
    ['count is the pool, not the machine', {}, { count: 3 }, 'local'],
  ])('same key: %s', (_, j, p, provider) => expect(key(j, p, provider)).toBe(base));

  it.each<[string, Partial<JobSpecInput>, PoolSpecInput, string]>([
    ['host_setup', { host_setup: ['apt-get install -y ffmpeg'] }, {}, 'local'],
    ['bootstrap_script', { bootstrap_script: 'echo once' }, {}, 'local'],
    ['the image', {}, { image: 'pytorch/pytorch' }, 'local'],
    ['the GPU', {}, { gpu: 'RTX_4090' }, 'local'],
    ['the disk', {}, { disk_gb: 100 }, 'local'],
    ['the provider', {}, {}, 'vastai'],
  ])('another key: %s', (_, j, p, provider) => expect(key(j, p, provider)).not.toBe(base));

  it('keeps host_setup order significant and a table entry keyed by its script', () => {
    expect(key({ host_setup: ['a', 'b'] })).not.toBe(key({ host_setup: ['b', 'a'] }));
    expect(key({ host_setup: [{ script: 'a', refresh_capabilities: true }] })).toBe(
      key({ host_setup: ['a'] }),
    );
  });

  it('names the fields two declarations differ in', () => {
    const a = hostDeclaration(job({ host_setup: ['x'] }), pool({ gpu: 'A100' }), 'vastai');
    const b = hostDeclaration(job(), pool({ gpu: 'A100' }), 'vastai');
    expect(differingFields(a, b)).toEqual(['host_setup']);
    expect(differingFields(a, a)).toEqual([]);
    const c = hostDeclaration(job(), pool({ gpu: 'H100', image: 'x' }), 'vastai');
    expect(differingFields(b, c)).toEqual(['image', 'resources']);
  });

  it('refuses a fractional resource with the fix', () => {
    expect(() => hostDeclaration(job(), pool({ min_vram_gb: 23.5 }), 'vastai')).toThrow(
      /min_vram_gb = 23.5 is not a whole number/,
    );
    expect(checkHostResources(pool({ min_vram_gb: 23.5 }))).toEqual([
      expect.objectContaining({
        path: ['pool', 'min_vram_gb'],
        hint: expect.stringContaining('min_vram_gb = 24'),
      }),
    ]);
    expect(checkHostResources(pool({ min_vram_gb: 24 }))).toEqual([]);
  });
});

describe('the host key fields in a job file', () => {
  const parse = (text: string) => () =>
    parseJobToml(text, {
      file: 'tender.toml',
      baseDir: '/tmp',
      knownProviders: ['local', 'vastai'],
    });

  it('a fractional resource is refused at its line and column with the fix', () => {
    const err = thrown(
      parse('[job]\nname = "x"\nrun = "true"\n\n[pool]\nprovider = "vastai"\nmin_vram_gb = 23.5\n'),
    );
    expect(err).toBeInstanceOf(BadInputError);
    expect((err as BadInputError).message).toBe(
      'tender.toml:7:1: min_vram_gb = 23.5 is not a whole number',
    );
    expect((err as BadInputError).hint).toMatch(/write min_vram_gb = 24/);
  });

  it('host_setup, bootstrap_script and run_setup load as written', () => {
    const { job } = parse(
      '[job]\nname = "x"\nrun = "true"\nbootstrap_script = "echo once"\nrun_setup = "nvidia-smi"\nhost_setup = ["apt-get update", { script = "apt-get install -y ffmpeg", refresh_capabilities = true }]\n',
    )();
    expect(job.host_setup).toEqual([
      'apt-get update',
      { script: 'apt-get install -y ffmpeg', refresh_capabilities: true },
    ]);
    expect(job.bootstrap_script).toBe('echo once');
    expect(job.run_setup).toBe('nvidia-smi');
  });
});

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

describe('[recovery] and checkpoints in a job file', () => {
  const parse = (text: string) => () =>
    parseJobToml(text, { file: 'tender.toml', baseDir: '/tmp', knownProviders: ['local'] });
  const HEAD = '[job]\nname = "x"\nrun = "true"\n';

  it('loads [recovery] and checkpoint_every', () => {
    const { job } = parse(
      `${HEAD}checkpoints = "ckpt/"\ncheckpoint_every = "2m"\n\n[recovery]\nmax_restarts = 3\non = ["node_lost", "exit_code:137"]\n`,
    )();
    expect(job).toMatchObject({
      checkpoints: 'ckpt/',
      checkpoint_every_s: 120,
      recovery: { max_restarts: 3, on: ['node_lost', 'exit_code:137'] },
    });
  });

  it.each<[string, RegExp]>([
    [
      '[recovery]\non = ["oom"]\n',
      /^tender\.toml:\d+:\d+: .*"node_lost", "preempted" or "exit_code:N"/,
    ],
    [
      'checkpoints = "../elsewhere"\n',
      /^tender\.toml:4:1: checkpoints "..\/elsewhere" is not a folder inside the workspace/,
    ],
    ['checkpoints = "/abs"\n', /^tender\.toml:4:1: checkpoints "\/abs" is absolute/],
    ['checkpoint_every = "1s"\n', /checkpoint_every must be a duration of at least 5s/],
  ])('refuses %j with its place and the fix', (tail, message) => {
    const text = tail.startsWith('[') ? `${HEAD}\n${tail}` : `${HEAD}${tail}`;
    const err = thrown(parse(text));
    expect(err).toBeInstanceOf(BadInputError);
    expect((err as BadInputError).message).toMatch(message);
  });
});
