import { describe, expect, it } from 'vitest';
import type { JobSpec } from '../../contract';
import { SecretMemory } from './secret-memory';

const job = (env: JobSpec['env']): JobSpec => ({ name: 'j', run: 'true', env }) as JobSpec;

describe('SecretMemory', () => {
  it('redacts secret values (given, or read from the environment), never plain env', () => {
    const m = new SecretMemory();
    m.rememberJob(
      job({
        A: { secret: true, value: 'alpha-secret' },
        B: { secret: true, fromEnv: 'B_SRC' },
        PLAIN: 'visible-value',
      }),
      { B_SRC: 'beta-from-env' },
    );
    expect(m.redactor()('alpha-secret beta-from-env visible-value')).toBe('*** *** visible-value');
  });

  it('redacts each line of a multi-line secret, the longest first, and extra provider keys', () => {
    const m = new SecretMemory();
    m.remember(['-----BEGIN KEY-----\nAAAABBBBCCCC\n-----END KEY-----', 'AAAA']);
    const r = m.redactor(['vast-api-key-123', null]);
    expect(r('got AAAABBBBCCCC and vast-api-key-123')).toBe('got *** and ***');
  });

  it('leaves values too short to be secrets alone', () => {
    const m = new SecretMemory();
    m.remember(['ab', '   ']);
    expect(m.redactor()('ab cd')).toBe('ab cd');
  });
});
