import { describe, expect, it } from 'vitest';
import {
  budgetDeadline,
  costByDay,
  costSeries,
  leaseCost,
  summarize,
  type BilledLease,
} from './cost';
import { currentRate, rateFor } from '../contract/billing';

const H = 3_600_000;
const T0 = Date.UTC(2026, 10, 30, 22, 0, 0); // 22:00 UTC

type Row = BilledLease & { label: string; runId: string | null; provider: string };

function lease(p: Partial<Row>): Row {
  return {
    label: 'l',
    runId: 'r',
    provider: 'vastai',
    pricePerHour: 0.5,
    createdAt: T0,
    destroyedAt: null,
    state: 'created',
    ...p,
  };
}

describe('cost', () => {
  it('a live lease bills until now; a destroyed one until its confirmed destroy', () => {
    expect(leaseCost(lease({}), T0 + 2 * H)).toBeCloseTo(1.0);
    expect(leaseCost(lease({ destroyedAt: T0 + H, state: 'destroyed' }), T0 + 5 * H)).toBeCloseTo(
      0.5,
    );
  });

  it('a lease never created, or without a price, costs nothing', () => {
    expect(leaseCost(lease({ createdAt: null, state: 'not_created' }), T0 + H)).toBe(0);
    expect(leaseCost(lease({ pricePerHour: null }), T0 + H)).toBe(0);
  });

  it('a lost lease with no confirmed destroy is not billed past its last known moment', () => {
    expect(leaseCost(lease({ state: 'lost' }), T0 + H)).toBe(0);
  });

  it('sums a run: failed boot attempts count, only live leases burn', () => {
    const s = summarize(
      [
        lease({ label: 'a1', destroyedAt: T0 + H / 2, state: 'destroyed' }), // failed boot
        lease({ label: 'a2', createdAt: T0 + H / 2 }),
        lease({ label: 'b', pricePerHour: 1.0, state: 'destroying' }),
      ],
      T0 + H,
    );
    expect(s.accruedUsd).toBeCloseTo(0.25 + 0.25 + 1.0);
    expect(s.burnUsdPerHour).toBeCloseTo(1.5);
    expect(s.billing).toBe(2);
  });

  it('budget deadline: when the current burn spends what is left', () => {
    const s = { accruedUsd: 1, burnUsdPerHour: 2, billing: 1 };
    expect(budgetDeadline(2, s, T0)).toBe(T0 + H / 2);
    expect(budgetDeadline(1, s, T0)).toBe(T0);
    expect(budgetDeadline(5, { ...s, burnUsdPerHour: 0 }, T0)).toBeNull();
  });

  it('splits cost across UTC days', () => {
    const days = costByDay([lease({})], T0 - H, T0 + 4 * H);
    expect(days.map((d) => d.day)).toEqual(['2026-11-30', '2026-12-01']);
    expect(days[0]!.usd).toBeCloseTo(1.0); // 22:00–24:00
    expect(days[1]!.usd).toBeCloseTo(1.0); // 00:00–02:00
  });

  it('a cost series rises with billed time and ends at the total', () => {
    const pts = costSeries(
      [lease({ destroyedAt: T0 + 2 * H, state: 'destroyed' })],
      T0,
      T0 + 4 * H,
      5,
    );
    expect(pts.map((p) => Number(p.usd.toFixed(2)))).toEqual([0, 0.5, 1, 1, 1]);
  });
});

describe('rate changes (a raised bid, storage only while stopped)', () => {
  // Created at a bid of 0.231 + storage 0.0067; outbid after 1 h (disk only); raised to
  // 0.32 and running again after 2 h; destroyed at 4 h.
  const storage = 0.0067;
  const rates = [
    { from: T0 + H, perHour: storage },
    { from: T0 + 2 * H, perHour: 0.32 + storage },
  ];
  const l = lease({
    pricePerHour: 0.231 + storage,
    rates,
    destroyedAt: T0 + 4 * H,
    state: 'destroyed',
  });

  it('bills each rate for its own time', () => {
    expect(leaseCost(l, T0 + 9 * H)).toBeCloseTo(
      0.231 + storage + storage + 2 * (0.32 + storage),
      9,
    );
    // A window inside one segment, and one across two.
    expect(leaseCost(l, T0 + 9 * H, T0 + H, T0 + 2 * H)).toBeCloseTo(storage, 9);
    expect(leaseCost(l, T0 + 9 * H, T0 + 1.5 * H, T0 + 2.5 * H)).toBeCloseTo(
      0.5 * storage + 0.5 * (0.32 + storage),
      9,
    );
  });

  it('burns at its last rate', () => {
    const live = lease({ pricePerHour: 0.5, rates: [{ from: T0 + H, perHour: 0.01 }] });
    expect(summarize([live], T0 + 2 * H).burnUsdPerHour).toBeCloseTo(0.01, 9);
    expect(currentRate(live)).toBe(0.01);
    expect(currentRate(lease({ pricePerHour: 0.5 }))).toBe(0.5);
  });

  it.each([
    ['outbid, storage known', 'outbid', 0.2, 0.01, 0.01],
    ['stopped, storage known', 'stopped', null, 0.01, 0.01],
    ['stopped, storage unknown: the full price, never less', 'stopped', null, null, 0.5],
    ['exited: billed as running', 'exited', null, 0.01, 0.5],
    ['running at a bid', null, 0.3, 0.01, 0.31],
    ['running on-demand', null, null, 0.01, 0.5],
  ])('%s', (_name, interruption, bid, storagePerHour, want) => {
    expect(rateFor({ pricePerHour: 0.5 }, { interruption, bid, storagePerHour })).toBeCloseTo(
      want,
      9,
    );
  });
});
