// A RunView for unit tests (main and renderer alike): a one-node local run, running, with
// what a test changes. Not part of any bundle.
import type { RunView } from './run-view';

export function runView(
  over: Partial<Omit<RunView, 'cost'>> & { cost?: Partial<RunView['cost']> } = {},
): RunView {
  const { cost, ...rest } = over;
  return {
    id: 'r-abc123',
    jobName: 'train',
    source: null,
    origin: null,
    provider: 'local',
    count: 1,
    status: 'running',
    detached: false,
    createdAt: 0,
    endedAt: null,
    failedReason: null,
    outputsDir: '/tmp/outputs',
    nodes: [],
    policy: null,
    sweep: null,
    distributed: false,
    ...rest,
    cost: {
      accruedUsd: 0.5,
      burnUsdPerHour: 1,
      budgetUsd: null,
      budgetFraction: null,
      budgetWarning: false,
      ...cost,
    },
  };
}
