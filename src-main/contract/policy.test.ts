import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './policy';

describe('durations', () => {
  it.each([
    ['90s', 90_000],
    ['20m', 1_200_000],
    ['6h', 21_600_000],
    ['1h30m', 5_400_000],
    ['2d', 172_800_000],
    ['1.5h', 5_400_000],
    [' 10 m ', 600_000],
    ['250ms', 250],
    ['none', null],
    ['OFF', null],
  ])('%s → %s', (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(['', '6', 'h', '6 hours', '-5m', '0s', '1y'])('"%s" is not a duration', (text) =>
    expect(parseDuration(text)).toBeUndefined(),
  );

  it.each([
    [5_400_000, '1h30m'],
    [45_000, '45s'],
    [86_400_000, '1d'],
    [null, 'none'],
  ] as const)('formats %s as %s and reads it back', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});
