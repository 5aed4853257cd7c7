import { describe, expect, it } from 'vitest';
import { ClaimCheck } from './claim-check';

const settled = (p: Promise<string>) =>
  Promise.race([p, new Promise<null>((r) => setImmediate(() => r(null)))]);

describe('ClaimCheck', () => {
  it.each([
    [[], null],
    [['stale connection'], null],
    [['stale connection', 'refused'], 'refused'],
    [['a', 'b', 'c'], 'b'],
  ])('after link losses %j the check says %j', async (losses, lost) => {
    const check = new ClaimCheck();
    for (const l of losses) check.linkLost(l);
    expect(await settled(check.lost)).toBe(lost);
  });
});
