import { describe, expect, it } from 'vitest';
import { formatSweepAxes, parseSweepAxes, sweepHint } from './sweep-axes';

describe('parseSweepAxes', () => {
  it('one axis a line, values trimmed, blank lines and comments skipped', () => {
    expect(parseSweepAxes('LR = 1e-4, 3e-4\n\n# seeds\n SEED=1,2 ,3 ')).toEqual({
      axes: { LR: ['1e-4', '3e-4'], SEED: ['1', '2', '3'] },
      problems: [],
    });
  });

  it('reads quoted values and a pasted TOML list', () => {
    expect(parseSweepAxes('NOTE = "a, b", c\nLR = ["1e-4", "3e-4"]\nX = [1, 2]').axes).toEqual({
      NOTE: ['a, b', 'c'],
      LR: ['1e-4', '3e-4'],
      X: ['1', '2'],
    });
  });

  it.each([
    ['LR', 1, /no "=": write NAME = v1, v2/],
    ['= 1, 2', 1, /no name before "="/],
    ['l-r = 1', 1, /l-r is not a param name: a letter or _ then letters, digits or _/],
    ['9LR = 1', 1, /9LR is not a param name/],
    ['LR =', 1, /LR has no values/],
    ['LR = []', 1, /LR has no values/],
    ['LR = 1,,2', 1, /LR has an empty value/],
    ['LR = 1, 2,', 1, /LR has an empty value/],
    ['LR = 1, 1', 1, /LR lists 1 twice/],
    ['LR = 1\nLR = 2', 2, /LR is given twice/],
    ['S = "a, b', 1, /a quoted value is not closed/],
    ['S = "a" b', 1, /write a comma after a quoted value/],
    ['LR = [1, 2', 1, /a list opened with \[ is not closed/],
  ])('%j: a problem on line %i', (text, line, message) => {
    const { problems } = parseSweepAxes(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.line).toBe(line);
    expect(problems[0]!.message).toMatch(message);
  });

  it('keeps the good lines when another is bad', () => {
    const { axes, problems } = parseSweepAxes('LR = 1, 2\nBAD\nSEED = 3');
    expect(axes).toEqual({ LR: ['1', '2'], SEED: ['3'] });
    expect(problems.map((p) => p.line)).toEqual([2]);
  });
});

describe('formatSweepAxes', () => {
  it('reads back as the same axes, quoting what needs it', () => {
    const axes = { LR: ['1e-4', '3e-4'], NOTE: ['a, b', ' pad', 'say "hi"', ''], K: ['[x]'] };
    const text = formatSweepAxes(axes);
    expect(text.split('\n')[0]).toBe('LR = 1e-4, 3e-4');
    expect(parseSweepAxes(text).axes).toEqual(axes);
  });
});

describe('sweepHint', () => {
  it('says how many cells over how many nodes', () => {
    expect(sweepHint({ LR: ['1', '2'], SEED: ['1', '2', '3'] }, 0, 2)?.text).toBe(
      '6 cells over 2 nodes: each node runs setup once, then its cells one after another',
    );
    expect(sweepHint({ A: ['1', '2'] }, 1, 3)?.text).toBe('3 cells over 3 nodes: one cell each');
    expect(sweepHint({ A: ['1'] }, 0, 4)?.text).toBe(
      '1 cell over 1 node: a node needs a cell, so 3 fewer than asked',
    );
    expect(sweepHint({}, 0, 2)).toBeNull();
  });

  it('a sweep of more than 10 000 cells is a problem', () => {
    const big = Array.from({ length: 101 }, (_, i) => String(i));
    const hint = sweepHint({ A: big, B: big }, 0, 2)!;
    expect(hint.problem).toBe(true);
    expect(hint.text).toMatch(/10,201 cells, more than 10,000/);
  });
});
