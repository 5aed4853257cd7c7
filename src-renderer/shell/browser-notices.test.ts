import { describe, expect, it } from 'vitest';
import { runView } from '../../src-main/contract/run-view.test-util';
import { browserNotice, isUnwatched, seenOf } from './browser-notices';

const running = seenOf(runView({ status: 'running' }));

describe('browserNotice: the browser tells only what this page saw happen', () => {
  it.each([
    [
      'a run it saw running completes',
      running,
      runView({ status: 'completed' }),
      'train completed',
    ],
    [
      'a pending run fails',
      { ...running, status: 'pending' as const },
      runView({ status: 'failed', failedReason: 'x' }),
      'train failed',
    ],
    ['a running run is cancelled', running, runView({ status: 'cancelled' }), 'train cancelled'],
    [
      'a run crosses its budget warning',
      running,
      runView({
        cost: { budgetUsd: 1, accruedUsd: 0.9, budgetFraction: 0.9, budgetWarning: true },
      }),
      'train: 90% of its budget',
    ],
  ])('%s', (_, prev, next, title) => {
    expect(browserNotice(prev, next)?.title).toBe(title);
  });

  it.each([
    ['first seen already over (page load)', undefined, runView({ status: 'completed' })],
    [
      'an ended run seen again',
      seenOf(runView({ status: 'failed' })),
      runView({ status: 'failed' }),
    ],
    ['still running', running, runView({ status: 'running' })],
    [
      'a budget warning seen before',
      seenOf(runView({ cost: { budgetUsd: 1, budgetWarning: true } })),
      runView({ cost: { budgetUsd: 1, budgetWarning: true } }),
    ],
  ])('nothing when %s', (_, prev, next) => {
    expect(browserNotice(prev, next)).toBeNull();
  });

  it('never carries the reason (it may echo what the page cannot scrub)', () => {
    const n = browserNotice(
      running,
      runView({ status: 'failed', failedReason: 'echo s3cret-value' }),
    );
    expect(JSON.stringify(n)).not.toContain('s3cret-value');
    expect(n?.body).toBe('Run r-abc123 failed · $0.50');
  });
});

describe('isUnwatched', () => {
  it.each([
    [false, true, false],
    [true, true, true],
    [false, false, true],
  ])('hidden %s, focused %s → %s', (hidden, focused, expected) => {
    expect(isUnwatched({ hidden, hasFocus: () => focused })).toBe(expected);
  });
});
