import { describe, expect, it } from 'vitest';
import { lease } from './fixtures.test-util';
import { canRaiseBid, interruptionBadge, parseBid, suggestedBid } from './bid-model';

const outbid = lease({ interruption: 'outbid', bid: 0.25, minBid: 0.31 });

describe('interruptionBadge', () => {
  it.each([
    ['outbid: red, with the bid and the minimum', outbid, 'outbid', 'red'],
    ['stopped: amber', lease({ interruption: 'stopped' }), 'stopped', 'amber'],
    ['exited: red', lease({ interruption: 'exited' }), 'exited', 'red'],
  ] as const)('%s', (_n, l, text, colour) => {
    expect(interruptionBadge(l)).toMatchObject({ text, colour });
  });

  it('says the prices of an outbid lease', () => {
    expect(interruptionBadge(outbid)?.title).toContain('bid $0.250/h, now min $0.310/h');
  });

  it.each([
    ['running', lease({ interruption: null })],
    ['a lease from before interruptions were recorded', lease({})],
    ['destroyed', lease({ interruption: 'outbid', state: 'destroyed', destroyedAt: 1 })],
  ])('none for a lease %s', (_n, l) => {
    expect(interruptionBadge(l)).toBeNull();
  });
});

describe('canRaiseBid', () => {
  it.each([
    ['an outbid live lease', outbid, true],
    ['a running bid', lease({ bid: 0.25, minBid: 0.21, interruption: null }), false],
    ['a stopped lease (not outbid)', lease({ interruption: 'stopped', bid: 0.25 }), false],
    ['a lease being destroyed', lease({ interruption: 'outbid', state: 'destroying' }), false],
    ['no lease', null, false],
  ] as const)('%s: %s', (_n, l, can) => {
    expect(canRaiseBid(l)).toBe(can);
  });
});

describe('suggestedBid', () => {
  it.each([
    ['the minimum + 10%, rounded up to the thousandth', outbid, '0.341'],
    ['no minimum known: from the bid', lease({ bid: 0.2, interruption: 'outbid' }), '0.220'],
    ['nothing known: empty', lease({ interruption: 'outbid' }), ''],
  ])('%s', (_n, l, text) => {
    expect(suggestedBid(l)).toBe(text);
  });
});

describe('parseBid', () => {
  it.each([
    ['0.32', { bid: 0.32 }],
    [' $0.32/h ', { bid: 0.32 }],
    ['', { error: 'a bid is a price in $/h, such as 0.32' }],
    ['-1', { error: 'a bid is a price in $/h, such as 0.32' }],
    ['abc', { error: 'a bid is a price in $/h, such as 0.32' }],
  ])('%j', (text, out) => {
    expect(parseBid(text)).toEqual(out);
  });
});
