import { describe, expect, it } from 'vitest';
import { chartGeometry } from './cost-chart-geometry';

describe('cost chart geometry', () => {
  const pts = [
    { at: 0, usd: 0 },
    { at: 50, usd: 1 },
    { at: 100, usd: 2 },
  ];

  it('keeps the budget in view and draws its 80% line below it', () => {
    const g = chartGeometry(pts, 4, 100, 100);
    expect(g.maxUsd).toBe(4);
    expect(g.budgetY).toBe(0);
    expect(g.warnY).toBeCloseTo(20);
    expect(g.line).toBe('M0.0,100.0 L50.0,75.0 L100.0,50.0');
    expect(g.area.endsWith('L100.0,100 L0,100 Z')).toBe(true);
  });

  it('without a budget, leaves headroom over what was spent', () => {
    const g = chartGeometry(pts, null, 100, 100);
    expect(g.budgetY).toBeNull();
    expect(g.maxUsd).toBeCloseTo(2.3);
  });

  it('an empty series draws nothing', () => {
    expect(chartGeometry([], null, 100, 100).line).toBe('');
  });
});
