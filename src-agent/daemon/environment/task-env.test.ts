import { describe, expect, it } from 'vitest';
import { buildHostSetupEnv, buildTaskEnv, droppedKeysNotice, paramEnvName } from './task-env';

const base = { PATH: '/usr/bin', HOME: '/root', TENDER_HOME: '/app/data', LANG: 'C.UTF-8' };
const input = {
  base,
  jobId: 'job-1',
  attempt: 2,
  env: { FOO: 'bar', PATH: '/evil', TENDER_JOB_ID: 'spoof', PYTHONUNBUFFERED: '0', HOME: '/x' },
  secretEnv: { API_TOKEN: 'tok-123456', TENDER_OUTPUT: 'secret-looking' },
  params: { lr: '0.1', 'batch-size': '32' },
  workspace: '/d/workspace',
  output: '/d/output',
  gpuCount: 0,
};

describe('buildTaskEnv', () => {
  it('layers daemon env, user env, secrets and the contract', () => {
    const { env, dropped } = buildTaskEnv(input);
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      HOME: '/root',
      LANG: 'C.UTF-8',
      FOO: 'bar',
      API_TOKEN: 'tok-123456',
      PYTHONUNBUFFERED: '0',
      TENDER_WORKSPACE: '/d/workspace',
      TENDER_OUTPUT: '/d/output',
      TENDER_JOB_ID: 'job-1',
      TENDER_ATTEMPT: '2',
      TENDER_PARAM_LR: '0.1',
      TENDER_PARAM_BATCH_SIZE: '32',
    });
    expect(env.TENDER_HOME).toBeUndefined();
    expect(env.CUDA_VISIBLE_DEVICES).toBeUndefined();
    expect(dropped).toEqual(['HOME', 'PATH', 'TENDER_JOB_ID', 'TENDER_OUTPUT']);
  });

  it('names the metrics file in TENDER_METRICS, which the job cannot override', () => {
    const { env, dropped } = buildTaskEnv({
      ...input,
      env: { TENDER_METRICS: '/elsewhere' },
      metricsFile: '/d/metrics.jsonl',
    });
    expect(env.TENDER_METRICS).toBe('/d/metrics.jsonl');
    expect(dropped).toContain('TENDER_METRICS');
    expect(buildTaskEnv(input).env.TENDER_METRICS).toBeUndefined();
  });

  it('sets PYTHONUNBUFFERED=1 unless the job says otherwise', () => {
    expect(buildTaskEnv({ ...input, env: {} }).env.PYTHONUNBUFFERED).toBe('1');
  });

  it('exposes every detected GPU and keeps the job from narrowing them', () => {
    const { env, dropped } = buildTaskEnv({
      ...input,
      env: { CUDA_VISIBLE_DEVICES: '0' },
      gpuCount: 4,
    });
    expect(env.CUDA_VISIBLE_DEVICES).toBe('0,1,2,3');
    expect(dropped).toContain('CUDA_VISIBLE_DEVICES');
  });

  it('lets the job set CUDA_VISIBLE_DEVICES when no GPU was detected', () => {
    expect(
      buildTaskEnv({ ...input, env: { CUDA_VISIBLE_DEVICES: '' }, gpuCount: 0 }).env
        .CUDA_VISIBLE_DEVICES,
    ).toBe('');
  });

  it('drops names the OS would refuse', () => {
    expect(buildTaskEnv({ ...input, env: { 'A=B': 'x', '': 'y' }, secretEnv: {} }).dropped).toEqual(
      ['', 'A=B'],
    );
  });
});

describe('buildTaskEnv with a persistent environment', () => {
  const envDir = '/cache/envs/0123456789abcdef';
  const plain = { ...input, env: {}, secretEnv: {} };

  it('sets TENDER_ENV and VIRTUAL_ENV and puts its bin first on PATH', () => {
    const { env, dropped } = buildTaskEnv({ ...plain, envDir });
    expect(env.TENDER_ENV).toBe(envDir);
    expect(env.VIRTUAL_ENV).toBe(envDir);
    expect(env.PATH).toBe(`${envDir}/bin:/usr/bin`);
    expect(dropped).toEqual([]);
  });

  it('PATH is the bin alone when the daemon has no PATH', () => {
    const { PATH: _path, ...noPath } = base;
    expect(buildTaskEnv({ ...plain, base: noPath, envDir }).env.PATH).toBe(`${envDir}/bin`);
  });

  it("replaces the daemon's own VIRTUAL_ENV", () => {
    const daemonVenv = { ...base, VIRTUAL_ENV: '/opt/daemon-venv' };
    expect(buildTaskEnv({ ...plain, base: daemonVenv, envDir }).env.VIRTUAL_ENV).toBe(envDir);
  });

  it('without envDir neither TENDER_ENV nor VIRTUAL_ENV is set and PATH is the base', () => {
    const withStale = { ...base, TENDER_ENV: '/daemon/env' };
    const { env } = buildTaskEnv({ ...plain, base: withStale });
    expect(env.TENDER_ENV).toBeUndefined();
    expect(env.VIRTUAL_ENV).toBeUndefined();
    expect(env.PATH).toBe('/usr/bin');
  });

  it("the job's env and secrets cannot override TENDER_ENV or PATH", () => {
    const { env, dropped } = buildTaskEnv({
      ...input,
      env: { TENDER_ENV: '/evil-env', PATH: '/evil', VIRTUAL_ENV: '/evil-venv' },
      secretEnv: { TENDER_ENV: '/evil-secret' },
      envDir,
    });
    expect(env.TENDER_ENV).toBe(envDir);
    expect(env.VIRTUAL_ENV).toBe(envDir);
    expect(env.PATH).toBe(`${envDir}/bin:/usr/bin`);
    expect(dropped).toEqual(['PATH', 'TENDER_ENV']);
  });

  it('without envDir the job cannot set TENDER_ENV either', () => {
    const { env, dropped } = buildTaskEnv({ ...plain, env: { TENDER_ENV: '/evil-env' } });
    expect(env.TENDER_ENV).toBeUndefined();
    expect(dropped).toEqual(['TENDER_ENV']);
  });
});

describe('helpers', () => {
  it('names params upper-case with underscores', () => {
    expect(paramEnvName('learning.rate-v2')).toBe('TENDER_PARAM_LEARNING_RATE_V2');
  });

  it('names dropped keys and never their values', () => {
    const notice = droppedKeysNotice(buildTaskEnv(input).dropped) ?? '';
    expect(notice).toContain('TENDER_OUTPUT');
    expect(notice).not.toContain('secret-looking');
    expect(notice).not.toContain('/evil');
    expect(droppedKeysNotice([])).toBeUndefined();
  });
});

describe('TENDER_CACHE in the task env', () => {
  it('sets TENDER_CACHE and the tool caches under it; the job may point a tool elsewhere', () => {
    const { env } = buildTaskEnv({
      ...input,
      env: { TORCH_HOME: '/t' },
      cacheDir: '/n/cache/shared',
    });
    expect(env).toMatchObject({
      TENDER_CACHE: '/n/cache/shared',
      HF_HOME: '/n/cache/shared/huggingface',
      PIP_CACHE_DIR: '/n/cache/shared/pip',
      TORCH_HOME: '/t',
    });
  });

  it('gives host setup the daemon env and the cache, without the daemon’s TENDER_*', () => {
    const env = buildHostSetupEnv(base, '/n/cache/shared');
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      TENDER_CACHE: '/n/cache/shared',
      PYTHONUNBUFFERED: '1',
    });
    expect(env.TENDER_HOME).toBeUndefined();
  });
});
