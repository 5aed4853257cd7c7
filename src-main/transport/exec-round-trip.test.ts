import { afterEach, describe, expect, it } from 'vitest';
import { forgetExecRoundTrips, noteExecRoundTrip, quickestExecRoundTrip } from './exec-round-trip';

afterEach(forgetExecRoundTrips);

describe('exec round trips', () => {
  it('keeps the quickest per endpoint, over any number of connections', () => {
    expect(quickestExecRoundTrip('10.0.0.1:22')).toBeUndefined();
    for (const ms of [90, 84, 120]) noteExecRoundTrip('10.0.0.1:22', ms);
    noteExecRoundTrip('10.0.0.2:22', 2.5);
    expect(quickestExecRoundTrip('10.0.0.1:22')).toBe(84);
    expect(quickestExecRoundTrip('10.0.0.2:22')).toBe(2.5);
    expect(quickestExecRoundTrip('10.0.0.1:2222')).toBeUndefined();
  });
});
