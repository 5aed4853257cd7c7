import type { Handlers } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import type { NodeFactory } from '../nodes/node-factory';
import type { Timing } from '../settings/timing';
import { collectDue } from './collect-due';
import { readReceipts } from './receipts';
import { runStartHandlers, type RunStartDeps } from './run-start';
import type { RunService } from './run-service';

export interface RunHandlerDeps extends RunStartDeps {
  ledger: Ledger;
  runs: RunService;
  factory: Pick<NodeFactory, 'connector'>;
  now: () => number;
  timing: () => Timing;
}

type RunHandlers = Pick<
  Handlers,
  | 'run.start'
  | 'run.rerun'
  | 'run.fromReceipt'
  | 'run.plan'
  | 'run.get'
  | 'run.list'
  | 'run.cancel'
  | 'run.detach'
  | 'run.attach'
  | 'run.cells'
  | 'run.cancelCell'
  | 'run.receipts'
  | 'run.collectDue'
>;

export function runHandlers(d: RunHandlerDeps): RunHandlers {
  const { runs } = d;
  return {
    // Every start passes through one path: secrets remembered, the pre-flight, then the run.
    ...runStartHandlers(d),
    'run.plan': async (args) => runs.plan(args),
    'run.get': async ({ runId }) => runs.view(runId),
    'run.list': async () => runs.list(),
    'run.cancel': async ({ runId }) => runs.cancel(runId),
    'run.detach': async ({ runId }) => runs.detach(runId),
    'run.attach': async ({ runId }) => runs.attach(runId),
    'run.cells': async ({ runId }) => runs.cells(runId),
    'run.cancelCell': ({ runId, cellId }) => runs.cancelCell(runId, cellId),
    'run.receipts': async ({ runId, nodeName, cellId }) =>
      readReceipts(d, runId, {
        ...(nodeName !== undefined ? { nodeName } : {}),
        ...(cellId !== undefined ? { cellId } : {}),
      }),
    'run.collectDue': async ({ all }) => {
      d.requireWriter();
      const t = d.timing();
      return collectDue(
        {
          ledger: d.ledger,
          runs,
          factory: d.factory,
          wake: {
            providers: d.providers,
            now: d.now,
            deadlineMs: t.endpointDeadlineMs,
            pollMs: t.endpointPollMs,
          },
        },
        { all },
      );
    },
  };
}
