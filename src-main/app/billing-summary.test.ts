import { describe, expect, it } from 'vitest';
import type { DestroyAllReport, LeaseView } from '../contract';
import {
  formatRate,
  leaseLine,
  quitChoice,
  QUIT_CHOICES,
  quitPrompt,
  summarize,
  teardownError,
  teardownFailure,
  teardownProgress,
  teardownPrompt,
  trayTitle,
} from './billing-summary';
import { leaseView } from '../contract/lease-view.test-util';

const lease = (over: Partial<LeaseView>): LeaseView => leaseView({ pricePerHour: 0.37, ...over });

describe('summarize', () => {
  it('counts every lease that may bill and sums the known prices', () => {
    const s = summarize([
      lease({ state: 'created', pricePerHour: 0.37 }),
      lease({ state: 'destroying', pricePerHour: 0.37 }),
      lease({ state: 'requested', pricePerHour: null }),
      lease({ state: 'destroyed', pricePerHour: 9 }),
      lease({ state: 'lost', pricePerHour: 9 }),
      lease({ state: 'not_created', pricePerHour: 9 }),
    ]);
    expect(s.live.map((l) => l.state)).toEqual(['created', 'destroying', 'requested']);
    expect(s.ratePerHour).toBeCloseTo(0.74, 10);
  });
});

describe('tray title', () => {
  it('reads "Tender — $0.74/h, 2 leases billing"', () => {
    const s = summarize([lease({}), lease({ label: 'b' })]);
    expect(trayTitle(s)).toBe('Tender — $0.74/h, 2 leases billing');
  });

  it('says so when nothing bills, and uses the singular for one lease', () => {
    expect(trayTitle(summarize([]))).toBe('Tender — nothing billing');
    expect(trayTitle(summarize([lease({ provider: 'local', pricePerHour: null })]))).toBe(
      'Tender — $0.00/h, 1 lease billing',
    );
  });

  it('keeps a third digit below a cent so a small rate never reads as zero', () => {
    expect(formatRate(0.004)).toBe('$0.004/h');
    expect(formatRate(0)).toBe('$0.00/h');
    expect(formatRate(12.5)).toBe('$12.50/h');
  });
});

describe('quit prompt', () => {
  it('asks "N leases still billing ($X/h)" and names each lease', () => {
    const p = quitPrompt(summarize([lease({}), lease({ leaseId: 'vastai:2', runId: 'r-bbbbbb' })]));
    expect(p.message).toBe('2 leases still billing ($0.74/h)');
    expect(p.detail).toContain('vastai:1 · $0.370/h · r-aaaaaa');
    expect(p.detail).toContain('vastai:2 · $0.370/h · r-bbbbbb');
    expect(p.detail).toContain('Keep them running');
    expect(p.detail).toContain('Tear down all');
  });

  it('lists at most eight leases and counts the rest', () => {
    const many = Array.from({ length: 11 }, (_, i) => lease({ leaseId: `vastai:${i}` }));
    const p = quitPrompt(summarize(many));
    expect(p.message).toBe('11 leases still billing ($4.07/h)');
    expect(p.detail).toContain('vastai:7');
    expect(p.detail).not.toContain('vastai:8 ');
    expect(p.detail).toContain('and 3 more');
  });

  it('maps the buttons in order: keep, tear down, cancel (Escape is cancel)', () => {
    expect(QUIT_CHOICES).toEqual(['Keep them running', 'Tear down all', 'Cancel']);
    expect([0, 1, 2].map(quitChoice)).toEqual(['keep', 'teardown', 'cancel']);
  });

  it('names a lease without an id by provider and state', () => {
    expect(leaseLine(lease({ leaseId: null, state: 'requested', pricePerHour: null }))).toBe(
      'vastai (requested) · no price · r-aaaaaa',
    );
  });
});

describe('tear-down texts', () => {
  const outcome = (over: Partial<DestroyAllReport['outcomes'][number]>) => ({
    label: 'l',
    leaseId: 'vastai:1',
    provider: 'vastai',
    confirmed: true,
    error: null,
    ...over,
  });

  it('says nothing when every lease is confirmed gone', () => {
    expect(teardownFailure({ outcomes: [outcome({})], allConfirmed: true })).toBeNull();
  });

  it('names every lease not confirmed, with its error', () => {
    const f = teardownFailure({
      outcomes: [
        outcome({}),
        outcome({ leaseId: 'vastai:2', confirmed: false, error: 'HTTP 500 from DELETE' }),
        outcome({ leaseId: null, label: 'tender-x', confirmed: false, error: null }),
      ],
      allConfirmed: false,
    });
    expect(f?.message).toBe('2 of 3 leases could not be confirmed destroyed');
    expect(f?.detail).toContain('vastai:2: HTTP 500 from DELETE');
    expect(f?.detail).toContain('tender-x: not confirmed gone');
    expect(f?.detail).toContain('may still be billing');
  });

  it('tells the leases shown apart from an orphan search that did not finish', () => {
    const report = {
      outcomes: [
        outcome({ label: 'mine' }),
        outcome({
          label: '(every orphan of vastai)',
          leaseId: null,
          confirmed: false,
          error: 'could not list leases: timeout',
        }),
      ],
      allConfirmed: false,
    };
    const f = teardownFailure(report, ['mine']);
    expect(f?.message).toBe('1 lease destroyed; 1 more could not be confirmed');
    expect(f?.detail).toContain('(every orphan of vastai): could not list leases: timeout');
    const g = teardownFailure(
      { ...report, outcomes: [outcome({ label: 'mine', confirmed: false, error: 'x' })] },
      ['mine'],
    );
    expect(g?.message).toBe('1 of 1 lease could not be confirmed destroyed');
  });

  it('carries the core error and its hint', () => {
    const e = teardownError({ message: 'already running (pid 42)', hint: 'quit the CLI' });
    expect(e.detail).toContain('already running (pid 42)\nquit the CLI');
  });

  it('confirms and reports progress in plain words', () => {
    expect(teardownPrompt(summarize([lease({})])).message).toBe('Tear down 1 lease ($0.37/h)?');
    expect(teardownProgress(1, 3)).toBe('Tender — tearing down: 1 of 3 leases confirmed gone');
  });
});
