import { describe, expect, it } from 'vitest';
import { JobSpec } from '../../contract';
import { configureEnv, configureParams } from './job-secrets';

describe('configureEnv: which values go to the agent as secrets', () => {
  it.each<[string, JobSpec['env'], ReturnType<typeof configureEnv>]>([
    ['nothing', {}, { ok: true, env: {}, secretEnv: {} }],
    ['plain values', { A: '1', B: '' }, { ok: true, env: { A: '1', B: '' }, secretEnv: {} }],
    [
      'a secret beside a plain value',
      { A: '1', TOKEN: { secret: true, value: 's3cr3t' } },
      { ok: true, env: { A: '1' }, secretEnv: { TOKEN: 's3cr3t' } },
    ],
    [
      'a resumed job: secrets redacted, none sent (the agent keeps its own)',
      { A: '1', TOKEN: { secret: true, value: '***' } },
      { ok: true, env: { A: '1' } },
    ],
    [
      'one redacted secret withholds the others too',
      { T1: { secret: true, value: '***' }, T2: { secret: true, value: 'v2' } },
      { ok: true, env: {} },
    ],
    [
      'a secret never resolved from the environment',
      { A: '1', TOKEN: { secret: true, fromEnv: 'HF_TOKEN' } },
      { ok: false, error: 'secret TOKEN was never resolved from $HF_TOKEN' },
    ],
    [
      'the first unresolved secret is named',
      { X: { secret: true, fromEnv: 'X_SRC' }, Y: { secret: true, fromEnv: 'Y_SRC' } },
      { ok: false, error: 'secret X was never resolved from $X_SRC' },
    ],
  ])('%s', (_name, env, want) => {
    expect(configureEnv(env)).toEqual(want);
  });
});

describe('configureParams: the configure request of a job', () => {
  const job: JobSpec = JobSpec.parse({
    name: 'j',
    run: 'python train.py',
    params: { lr: '0.1' },
    env: { A: '1', TOKEN: { secret: true, value: 's3cr3t' } },
  });

  it('sends plain env, secret env, params and the outputs (glanced at the exit) for the first attempt', () => {
    expect(configureParams('job-1', job)).toEqual({
      jobId: 'job-1',
      attempt: 0,
      env: { A: '1' },
      secretEnv: { TOKEN: 's3cr3t' },
      params: { lr: '0.1' },
      outputs: job.outputs,
    });
  });

  it('leaves secretEnv out entirely for a redacted job', () => {
    const redacted = { ...job, env: { TOKEN: { secret: true as const, value: '***' } } };
    expect(configureParams('job-1', redacted)).not.toHaveProperty('secretEnv');
  });

  it('refuses an unresolved secret, naming it and never a value', () => {
    const unresolved = { ...job, env: { TOKEN: { secret: true as const, fromEnv: 'HF_TOKEN' } } };
    expect(() => configureParams('job-1', unresolved)).toThrow(
      'secret TOKEN was never resolved from $HF_TOKEN',
    );
  });

  it('carries run_setup, which runs before every run and is not in the host key', () => {
    expect(configureParams('job-1', { ...job, run_setup: 'source env.sh' })).toMatchObject({
      runSetup: 'source env.sh',
    });
    expect(configureParams('job-1', job)).not.toHaveProperty('runSetup');
  });
});
