import { describe, expect, it } from 'vitest';
import { canRerun, missingSecret } from './rerun';

describe('rerun', () => {
  it.each([
    ['completed', true],
    ['failed', true],
    ['cancelled', true],
    ['running', false],
    ['pending', false],
  ] as const)('a %s run can be rerun: %s', (status, expected) => {
    expect(canRerun({ status })).toBe(expected);
  });

  it('names the secret a rerun needs again, and nothing for other errors', () => {
    const message = 'run r-aaaaaa had the secret HF_TOKEN, which Tender does not keep';
    expect(missingSecret({ code: 'bad_input', message })).toBe('HF_TOKEN');
    expect(missingSecret({ code: 'conflict', message })).toBeNull();
    expect(missingSecret({ code: 'bad_input', message: 'no workdir' })).toBeNull();
    expect(missingSecret(null)).toBeNull();
  });
});
