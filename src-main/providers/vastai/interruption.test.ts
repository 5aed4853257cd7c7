import { describe, expect, test } from 'vitest';
import type { LeaseCondition } from '../provider';
import { conditionOf } from './interruption';

/** A listed instance: on-demand and running unless said otherwise. */
const inst = (over: Record<string, unknown>) => ({
  id: 7,
  actual_status: 'running',
  intended_status: 'running',
  cur_state: 'running',
  is_bid: false,
  dph_base: 0.4,
  min_bid: 0.21,
  ...over,
});
const outbid = { actual_status: 'stopped', intended_status: 'stopped', cur_state: 'stopped' };

describe('conditionOf: what a listed instance is doing', () => {
  test.each<[string, Record<string, unknown>, LeaseCondition | undefined]>([
    ['on-demand, running: no bid facts', {}, { state: 'running' }],
    [
      'a bid, running: its bid is its dph_base',
      { is_bid: true, dph_base: 0.25 },
      { state: 'running', bid: 0.25, minBid: 0.21 },
    ],
    [
      'a bid stopped with its bid below the minimum: outbid',
      { is_bid: true, dph_base: 0.25, min_bid: 0.31, ...outbid },
      { state: 'outbid', bid: 0.25, minBid: 0.31 },
    ],
    [
      'a bid stopped whose bid still meets the minimum: stopped by someone, not outbid',
      { is_bid: true, dph_base: 0.25, min_bid: 0.21, ...outbid },
      { state: 'stopped', bid: 0.25, minBid: 0.21 },
    ],
    ['on-demand, stopped', outbid, { state: 'stopped' }],
    ['exited', { actual_status: 'exited' }, { state: 'exited' }],
    ['frozen (paused, GPU billed): stopped', { actual_status: 'frozen' }, { state: 'stopped' }],
    ['provisioning (no status yet)', { actual_status: null }, { state: 'loading' }],
    ['loading', { actual_status: 'loading' }, { state: 'loading' }],
    ['created', { actual_status: 'created' }, { state: 'loading' }],
    ['offline says nothing of the instance itself', { actual_status: 'offline' }, undefined],
    ['unknown (no heartbeat) neither', { actual_status: 'unknown' }, undefined],
    ['a status not known yet', { actual_status: 'hibernating' }, undefined],
    ['status in capitals and padded', { actual_status: ' Running ' }, { state: 'running' }],
  ])('%s', (_n, over, expected) => {
    expect(conditionOf(inst(over))).toEqual(expected);
  });
});
