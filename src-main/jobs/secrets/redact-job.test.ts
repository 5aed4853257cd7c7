import { describe, expect, it } from 'vitest';
import { JobSpec } from '../../contract';
import { REDACTED, redactJob, resolveSecretsFromEnv } from './redact-job';

const job = (env: JobSpec['env']): JobSpec =>
  JobSpec.parse({ name: 'j', run: 'true', workspace: { workdir: '/w', exclude: [] }, env });

describe('secrets of a job', () => {
  it('resolves references from the environment Tender runs in, and keeps the rest', () => {
    const resolved = resolveSecretsFromEnv(
      job({ A: 'plain', B: { secret: true, value: 'v' }, C: { secret: true, fromEnv: 'HF' } }),
      { HF: 'hf_123' },
    );
    expect(resolved.env).toEqual({
      A: 'plain',
      B: { secret: true, value: 'v' },
      C: { secret: true, value: 'hf_123' },
    });
  });

  it('names the missing variable and never a value', () => {
    const run = () => resolveSecretsFromEnv(job({ C: { secret: true, fromEnv: 'HF' } }), {});
    expect(run).toThrow('secret C reads $HF, which is not set where Tender runs');
    expect(() =>
      resolveSecretsFromEnv(job({ C: { secret: true, fromEnv: 'HF' } }), { HF: '' }),
    ).toThrow(/not set/);
  });

  it('redacts resolved values before anything is stored', () => {
    const redacted = redactJob(job({ A: 'plain', B: { secret: true, value: 'v' } }));
    expect(redacted.env).toEqual({ A: 'plain', B: { secret: true, value: REDACTED } });
  });
});
