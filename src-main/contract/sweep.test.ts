import { describe, expect, it } from 'vitest';
import { cellCount, cellId, expandSweep, parseGridFlag, SweepSpec } from './sweep';

describe('expandSweep', () => {
  it.each([
    [
      'product, first axis slowest',
      { axes: { LR: ['1e-4', '3e-4'], SEED: ['1', '2', '3'] } },
      [
        { LR: '1e-4', SEED: '1' },
        { LR: '1e-4', SEED: '2' },
        { LR: '1e-4', SEED: '3' },
        { LR: '3e-4', SEED: '1' },
        { LR: '3e-4', SEED: '2' },
        { LR: '3e-4', SEED: '3' },
      ],
    ],
    ['one axis', { axes: { A: ['x'] } }, [{ A: 'x' }]],
    [
      'explicit cells after the product',
      { axes: { A: ['1', '2'] }, cells: [{ A: '9', B: 'b' }] },
      [{ A: '1' }, { A: '2' }, { A: '9', B: 'b' }],
    ],
    ['cells only', { axes: {}, cells: [{ K: 'v' }] }, [{ K: 'v' }]],
  ])('%s', (_name, spec, values) => {
    const cells = expandSweep(SweepSpec.parse(spec));
    expect(cells.map((c) => c.values)).toEqual(values);
    expect(cells.map((c) => c.index)).toEqual(values.map((_, i) => i));
  });

  it('ids are padded to the widest index so they sort', () => {
    expect([cellId(0, 1), cellId(9, 10), cellId(3, 24), cellId(23, 24), cellId(7, 101)]).toEqual([
      'j0',
      'j9',
      'j03',
      'j23',
      'j007',
    ]);
    expect(cellCount({ axes: { A: ['1', '2'], B: ['1', '2', '3'] }, cells: [{}] })).toBe(7);
  });

  it.each([
    [{ axes: { LR: [] } }, 'an axis needs at least one value'],
    [{ axes: { 'bad-name': ['1'] } }, 'a param name is a letter'],
    [{ axes: {} }, 'at least one axis or one cell'],
    [
      { axes: { A: Array.from({ length: 101 }, String), B: Array.from({ length: 100 }, String) } },
      'more than 10000',
    ],
  ])('refuses %j', (spec, message) => {
    const r = SweepSpec.safeParse(spec);
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain(message);
  });
});

describe('parseGridFlag', () => {
  it('reads NAME=v1,v2, repeatable', () => {
    expect(parseGridFlag(['LR=1e-4,3e-4', 'SEED=1'])).toEqual({
      LR: ['1e-4', '3e-4'],
      SEED: ['1'],
    });
  });
  it.each([
    ['LR', 'write NAME=v1,v2'],
    ['1x=1', 'write NAME=v1,v2'],
    ['LR=1,,2', 'an empty value'],
    ['LR=', 'an empty value'],
  ])('refuses %s', (flag, message) => {
    expect(() => parseGridFlag([flag])).toThrow(message);
  });
  it('refuses an axis given twice', () => {
    expect(() => parseGridFlag(['A=1', 'A=2'])).toThrow('given twice');
  });
});
