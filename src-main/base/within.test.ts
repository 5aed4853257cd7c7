import { afterEach, describe, expect, it, vi } from 'vitest';
import { within } from './within';

afterEach(() => vi.useRealTimers());

describe('within', () => {
  it.each([
    ['settles first: its value', 10, 'answer'],
    ['the time runs out first: null', 30, null],
  ] as const)('%s', async (_name, answerAfterMs, expected) => {
    vi.useFakeTimers();
    const p = new Promise<string>((r) => setTimeout(() => r('answer'), answerAfterMs));
    const got = within(p, 20);
    await vi.advanceTimersByTimeAsync(40);
    expect(await got).toBe(expected);
    expect(vi.getTimerCount()).toBe(0); // its own timer cleared
  });

  it('a rejection stays a rejection', async () => {
    await expect(within(Promise.reject(new Error('gone')), 1_000)).rejects.toThrow('gone');
  });
});
