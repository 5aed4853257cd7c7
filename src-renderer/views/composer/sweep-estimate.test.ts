import { describe, expect, it } from 'vitest';
import { estimateSweep } from '../../../src-main/contract';
import { estimateText } from './sweep-estimate';

describe('estimateText', () => {
  it('says the clock time and the node time, from the earlier sweep it is based on', () => {
    expect(
      estimateText(estimateSweep(6, 2, { runId: 'r-old', ms: [100_000, 120_000, 900_000] })),
    ).toBe(
      'about 6 m 00 s on the clock, 12 node-minutes (a cell took 2 m 00 s in r-old; setup left out)',
    );
    expect(estimateText(estimateSweep(24, 4, { runId: 'r-old', ms: [1_800_000] }))).toBe(
      'about 3 h 00 m on the clock, 12 node-hours (a cell took 30 m 00 s in r-old; setup left out)',
    );
  });

  it('a short sweep in node-hours with a tenth', () => {
    expect(estimateText(estimateSweep(3, 3, { runId: 'r-old', ms: [3_600_000] }))).toMatch(
      /^about 1 h 00 m on the clock, 3\.0 node-hours/,
    );
  });

  it('a minute of node time is one', () => {
    expect(estimateText(estimateSweep(6, 2, { runId: 'r-old', ms: [3_000] }))).toBe(
      'about 9 s on the clock, 1 node-minute (a cell took 3 s in r-old; setup left out)',
    );
  });

  it('says nothing without an earlier sweep', () => {
    expect(estimateText(estimateSweep(6, 2, null))).toBeNull();
    expect(estimateText(null)).toBeNull();
  });
});
