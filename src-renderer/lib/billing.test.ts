import { describe, expect, it } from 'vitest';
import type { LeaseView } from '../../src-main/contract';
import { leaseView } from '../../src-main/contract/lease-view.test-util';
import {
  accrued,
  billingText,
  burnRate,
  liveCounts,
  needsAttention,
  totalAccrued,
} from './billing';
import { bytes, duration, money, perHour } from './format';

const lease = (over: Partial<LeaseView>): LeaseView =>
  leaseView({ label: 'l', pricePerHour: 1.2, ...over });

describe('billing', () => {
  it('burn rate counts every lease that may bill, and nothing else', () => {
    const leases = [
      lease({ state: 'created', pricePerHour: 1 }),
      lease({ state: 'destroying', pricePerHour: 0.5 }),
      lease({ state: 'requested', pricePerHour: null }),
      lease({ state: 'destroyed', pricePerHour: 9 }),
      lease({ state: 'not_created', pricePerHour: 9 }),
    ];
    expect(burnRate(leases)).toBe(1.5);
  });

  it('accrues from creation to the confirmed destroy, or to now while live', () => {
    const hour = 3_600_000;
    expect(accrued(lease({ createdAt: 0 }), 2 * hour)).toBeCloseTo(2.4);
    expect(accrued(lease({ state: 'destroyed', destroyedAt: hour }), 5 * hour)).toBeCloseTo(1.2);
    expect(accrued(lease({ createdAt: null }), hour)).toBe(0);
    expect(totalAccrued([lease({}), lease({ pricePerHour: 0.8 })], hour)).toBeCloseTo(2);
  });

  it.each<[string, Partial<LeaseView>[], string]>([
    ['none', [], 'nothing billing'],
    [
      'a kept local node',
      [{ provider: 'local', pricePerHour: null }],
      'nothing billing · 1 free node live',
    ],
    [
      'a host of yours',
      [{ provider: 'ssh', pricePerHour: null }],
      'nothing billing · 1 free node live',
    ],
    ['a Vast lease', [{ provider: 'vastai', pricePerHour: 0.4 }], '1 lease billing'],
    [
      'a Vast lease not priced yet',
      [{ provider: 'vastai', state: 'requested', pricePerHour: null }],
      '1 lease billing',
    ],
    [
      'a chain not created yet',
      [{ provider: 'runpod,vastai', state: 'requested', pricePerHour: null }],
      '1 lease billing',
    ],
    ['a priced cluster', [{ provider: 'slurm', pricePerHour: 2 }], '1 lease billing'],
    [
      'both, and a destroyed one',
      [
        { provider: 'local', pricePerHour: null },
        { provider: 'runpod', pricePerHour: 0.7 },
        { provider: 'lambda', pricePerHour: 1.1 },
        { provider: 'vastai', state: 'destroyed', pricePerHour: 0.4 },
      ],
      '2 leases billing · 1 free node live',
    ],
  ])('counts free live nodes apart from billing ones: %s', (_, over, text) => {
    expect(billingText(liveCounts(over.map((o) => lease({ state: 'created', ...o }))))).toBe(text);
  });

  it('flags failed destroys and lost leases', () => {
    expect(needsAttention(lease({ state: 'destroying', lastError: 'HTTP 500' }))).toBe(true);
    expect(needsAttention(lease({ state: 'destroying' }))).toBe(false);
    expect(needsAttention(lease({ state: 'lost' }))).toBe(true);
  });
});

describe('format', () => {
  it('money, rates, durations and sizes', () => {
    expect(money(1.5)).toBe('$1.50');
    expect(money(0.004)).toBe('$0.004');
    expect(money(null)).toBe('—');
    expect(perHour(0.3208)).toBe('$0.321/h');
    expect(duration(42_000)).toBe('42 s');
    expect(duration(187_000)).toBe('3 m 07 s');
    expect(duration(7_500_000)).toBe('2 h 05 m');
    expect(duration(100 * 3_600_000)).toBe('4 d 4 h');
    expect(bytes(512)).toBe('512 B');
    expect(bytes(1536)).toBe('1.5 KiB');
    expect(bytes(300 * 1024 * 1024)).toBe('300 MiB');
  });
});
