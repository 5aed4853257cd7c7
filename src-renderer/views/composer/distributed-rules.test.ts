import { describe, expect, it } from 'vitest';
import { EMPTY_DRAFT } from '../../store/ui';
import {
  distributedProblem,
  isSweepDraft,
  masterPortProblem,
  masterPortValue,
} from './distributed-rules';

describe('the master port', () => {
  it('is 1–65535; empty is 29500', () => {
    expect(masterPortValue('')).toBe(29500);
    expect(masterPortValue(' 29600 ')).toBe(29600);
    expect(masterPortValue('1')).toBe(1);
    expect(masterPortValue('65535')).toBe(65535);
    for (const bad of ['0', '65536', '-1', '12.5', 'abc', '1e3', '123456'])
      expect(masterPortValue(bad), bad).toBeNaN();
    expect(masterPortProblem('29500')).toBeNull();
    expect(masterPortProblem('70000')).toBe('The master port is a number from 1 to 65535');
  });
});

describe('distributedProblem', () => {
  const d = { ...EMPTY_DRAFT, distributed: true };
  it('none for a draft that is not distributed, whatever else it holds', () => {
    expect(
      distributedProblem({ ...d, distributed: false, sweep: 'A = 1', masterPort: 'x' }, 1),
    ).toBeNull();
  });
  it('too few nodes first, then a sweep, memoization, the port', () => {
    expect(distributedProblem(d, 1)).toBe('A distributed job needs 2 nodes or more');
    expect(distributedProblem({ ...d, sweep: 'A = 1, 2' }, 2)).toBe(
      'A distributed job cannot also be a sweep',
    );
    expect(distributedProblem({ ...d, cache: true }, 2)).toMatch(/cannot reuse completed/);
    expect(distributedProblem({ ...d, masterPort: '0' }, 2)).toMatch(/master port/);
    expect(distributedProblem(d, 2)).toBeNull();
  });
  it('a sweep is axes typed or cells carried; a comment alone is none', () => {
    expect(isSweepDraft({ sweep: '# LR = 1', sweepCells: [] })).toBe(false);
    expect(isSweepDraft({ sweep: '', sweepCells: [{ A: '1' }] })).toBe(true);
  });
});
