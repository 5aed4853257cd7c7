import { describe, expect, it } from 'vitest';
import { estimateSweep } from './sweep';

describe('estimateSweep', () => {
  it('says nothing it does not know', () => {
    expect(estimateSweep(24, 4, null)).toEqual({
      cells: 24,
      nodes: 4,
      cellSeconds: null,
      basedOn: null,
      nodeHours: null,
      hours: null,
    });
  });
  it.each([
    // cells, nodes, earlier cells (min), node-hours, hours
    [24, 4, [10, 10, 20], 4, 1],
    [25, 4, [30], 12.5, 3.5],
    [3, 8, [60, 120, 60], 3, 1],
  ])(
    '%i cells on %i nodes, earlier %j min → %f node-hours, %f h',
    (cells, nodes, mins, nodeHours, hours) => {
      const e = estimateSweep(cells, nodes, { runId: 'r-1', ms: mins.map((m) => m * 60_000) });
      expect(e.nodeHours).toBeCloseTo(nodeHours);
      expect(e.hours).toBeCloseTo(hours);
      expect(e.nodes).toBe(Math.min(nodes, cells));
      expect(e.basedOn).toBe('r-1');
    },
  );
});
