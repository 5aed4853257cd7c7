import { describe, expect, it } from 'vitest';
import { alignLines } from './align';

describe('alignLines', () => {
  it('lines that share their steps: the steps once, each line as it is', () => {
    expect(
      alignLines([
        [
          [1, 0.5],
          [2, 0.4],
        ],
        [
          [1, 0.9],
          [2, 0.8],
        ],
      ]),
    ).toEqual([
      [1, 2],
      [0.5, 0.4],
      [0.9, 0.8],
    ]);
  });

  it('lines of other steps and lengths: the union, null where a line has no point', () => {
    expect(
      alignLines([
        [
          [0, 1],
          [10, 2],
        ],
        [
          [5, 7],
          [10, 8],
          [20, 9],
        ],
        [],
      ]),
    ).toEqual([
      [0, 5, 10, 20],
      [1, null, 2, null],
      [null, 7, 8, 9],
      [null, null, null, null],
    ]);
  });

  it('puts a line that went back in step order, the later point winning at a step', () => {
    expect(
      alignLines([
        [
          [1, 10],
          [2, 20],
          [1, 11],
          [3, 30],
        ],
      ]),
    ).toEqual([
      [1, 2, 3],
      [11, 20, 30],
    ]);
  });

  it('nothing at all', () => {
    expect(alignLines([])).toEqual([[]]);
  });
});
