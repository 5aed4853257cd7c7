// journalNodeCache: the cache's size is journaled for display, and nothing about it fails a
// run or escapes as a rejection (the run phase may leave it unawaited when the drain fails).
import { describe, expect, it } from 'vitest';
import { journalNodeCache } from './node-cache-journal';

const at = { runId: 'r1', nodeId: 'r1/node-0', now: () => 1000 };
const cache = { path: '/c', bytes: 42, measuredAt: 900 };

describe('journalNodeCache', () => {
  it('journals the size the exit state says, asking nothing', async () => {
    const appended: unknown[] = [];
    const request = () => Promise.reject(new Error('not asked'));
    await journalNodeCache({ append: (e) => void appended.push(e) }, request, at, { cache });
    expect(appended).toEqual([
      {
        ts: 1000,
        runId: 'r1',
        nodeId: 'r1/node-0',
        kind: 'node.cache',
        data: { path: '/c', bytes: 42 },
      },
    ]);
  });

  it('resolves where the ledger closed under it (a core closing mid-run)', async () => {
    const closed = {
      append: () => {
        throw new TypeError('The database connection is not open');
      },
    };
    await expect(
      journalNodeCache(closed, () => Promise.reject(new Error('x')), at, { cache }),
    ).resolves.toBeUndefined();
  });
});
