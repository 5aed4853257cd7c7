import { describe, expect, it } from 'vitest';
import { countdown, idleEndsText, servedText } from './warm';

const NOW = 1_700_000_000_000;
const MIN = 60_000;

describe('warm node wording', () => {
  it.each([
    [40_000, '40 s'],
    [400, '1 s'],
    [12 * MIN, '12 min'],
    [12 * MIN + 20_000, '12 min'],
    [119 * MIN, '119 min'],
    [125 * MIN, '2 h 05 m'],
  ])('counts %i ms down as %s', (ms, text) => {
    expect(countdown(ms)).toBe(text);
  });

  it('says when the idle timeout ends, that it passed, or that there is none', () => {
    expect(idleEndsText(NOW + 12 * MIN, NOW)).toBe('idle ends in 12 min');
    expect(idleEndsText(NOW - 1, NOW)).toBe('idle timeout reached');
    expect(idleEndsText(null, NOW)).toBe('no idle timeout');
  });

  it('names the runs a lease served only when there was more than one', () => {
    expect(servedText(['r-a', 'r-b'])).toBe('served: r-a, r-b');
    expect(servedText(['r-a'])).toBeNull();
    expect(servedText(undefined)).toBeNull();
  });
});
