import { describe, expect, it } from 'vitest';
import { askUsd, judgeRun, runCommittedUsd, usd, type RunCommitment } from './commitment';

const H = 3_600_000;
const run = (over: Partial<RunCommitment>): RunCommitment => ({
  accruedUsd: 0,
  maxDurationMs: 24 * H,
  priceCapPerHour: 0.3,
  liveLeases: [],
  nodesAwaitingLease: 0,
  ...over,
});

describe('what a run commits', () => {
  const now = 100 * H;
  const cases: [string, RunCommitment, number][] = [
    ['an ended run: what it accrued', run({ accruedUsd: 1.25 }), 1.25],
    [
      'a node still to rent: the cap for the whole max duration',
      run({ nodesAwaitingLease: 1 }),
      7.2,
    ],
    ['two nodes still to rent', run({ nodesAwaitingLease: 2 }), 14.4],
    [
      'a lease created 6 h ago: its rate for the 18 h left, plus what it accrued',
      run({ accruedUsd: 1.2, liveLeases: [{ ratePerHour: 0.2, createdAt: now - 6 * H }] }),
      1.2 + 0.2 * 18,
    ],
    [
      'a lease past its max duration commits nothing more',
      run({ accruedUsd: 5, liveLeases: [{ ratePerHour: 0.2, createdAt: now - 30 * H }] }),
      5,
    ],
    [
      'a lease created in the future (clock skew) counts its whole duration, never more',
      run({ liveLeases: [{ ratePerHour: 0.1, createdAt: now + H }] }),
      2.4,
    ],
    [
      'a lease and a node replacing a failed boot',
      run({
        maxDurationMs: 2 * H,
        accruedUsd: 0.05,
        liveLeases: [{ ratePerHour: 0.25, createdAt: now - H }],
        nodesAwaitingLease: 1,
      }),
      0.05 + 0.25 + 0.6,
    ],
    ['a free provider commits nothing', run({ priceCapPerHour: 0, nodesAwaitingLease: 3 }), 0],
  ];
  it.each(cases)('%s', (_name, r, expected) => {
    expect(runCommittedUsd(r, now)).toBeCloseTo(expected, 9);
  });
});

describe('whether a run may start', () => {
  const ask = { count: 2, priceCapPerHour: 0.3, maxDurationMs: 24 * H };
  it('commits every node at the cap for the whole max duration', () => {
    expect(askUsd(ask)).toBeCloseTo(14.4, 9);
  });

  const cases: [
    string,
    Parameters<typeof judgeRun>,
    { ok: true; left?: number | null } | { ok: false; reason: string; message: RegExp },
  ][] = [
    [
      'within the budget',
      [ask, { committedUsd: 0, liveNodes: 0 }, { budgetUsd: 20, maxNodes: null }],
      { ok: true, left: 5.6 },
    ],
    [
      'over what is left: the figures named',
      [ask, { committedUsd: 0.12, liveNodes: 1 }, { budgetUsd: 0.5, maxNodes: null }],
      {
        ok: false,
        reason: 'budget',
        message:
          /^this run commits up to \$14\.40 \(2 × \$0\.30\/h × 24 h\); the session's budget has \$0\.38 of \$0\.50 left$/,
      },
    ],
    [
      'exactly what is left',
      [
        { count: 1, priceCapPerHour: 0.1, maxDurationMs: 3 * H },
        { committedUsd: 0.7, liveNodes: 0 },
        { budgetUsd: 1, maxNodes: null },
      ],
      { ok: true, left: 0 },
    ],
    [
      'a committed spend already over the budget leaves $0',
      [
        { count: 1, priceCapPerHour: 0.1, maxDurationMs: H },
        { committedUsd: 2, liveNodes: 0 },
        { budgetUsd: 1, maxNodes: null },
      ],
      { ok: false, reason: 'budget', message: /has \$0\.00 of \$1\.00 left/ },
    ],
    [
      'no budget (--budget none)',
      [ask, { committedUsd: 1_000, liveNodes: 0 }, { budgetUsd: null, maxNodes: null }],
      { ok: true, left: null },
    ],
    [
      'a free run on an exhausted budget',
      [
        { count: 4, priceCapPerHour: 0, maxDurationMs: 2 * H },
        { committedUsd: 1, liveNodes: 0 },
        { budgetUsd: 1, maxNodes: null },
      ],
      { ok: true, left: 0 },
    ],
    [
      'within the node cap',
      [ask, { committedUsd: 0, liveNodes: 2 }, { budgetUsd: null, maxNodes: 4 }],
      { ok: true },
    ],
    [
      'over the node cap, before the budget is looked at',
      [ask, { committedUsd: 0, liveNodes: 3 }, { budgetUsd: 0.01, maxNodes: 4 }],
      {
        ok: false,
        reason: 'max_nodes',
        message: /needs 2 nodes; the session has 3 of its 4 \(--max-nodes\) live/,
      },
    ],
  ];
  it.each(cases)('%s', (_name, args, expected) => {
    const v = judgeRun(...args);
    expect(v.ok).toBe(expected.ok);
    if (expected.ok && v.ok && 'left' in expected) {
      if (expected.left === null) expect(v.leftAfterUsd).toBeNull();
      else expect(v.leftAfterUsd).toBeCloseTo(expected.left!, 9);
    }
    if (!expected.ok && !v.ok) {
      expect(v.reason).toBe(expected.reason);
      expect(v.message).toMatch(expected.message);
      expect(v.hint).toMatch(/tender_down|count/);
    }
  });

  it.each([
    [14.4, '$14.40'],
    [0.375, '$0.38'],
    [0.004, '$0.0040'],
    [0, '$0.00'],
  ])('writes $%s as %s', (n, text) => expect(usd(n)).toBe(text));
});
