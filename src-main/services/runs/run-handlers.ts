import type { Handlers } from '../../contract';
import type { RunService } from './run-service';

type RunHandlers = Pick<
  Handlers,
  | 'run.start'
  | 'run.rerun'
  | 'run.plan'
  | 'run.get'
  | 'run.list'
  | 'run.cancel'
  | 'run.detach'
  | 'run.attach'
  | 'run.cells'
  | 'run.cancelCell'
  | 'run.fromReceipt'
>;

export function runHandlers(runs: RunService): RunHandlers {
  return {
    'run.start': (args) => runs.start(args),
    'run.rerun': (args) => runs.rerun(args),
    'run.plan': async (args) => runs.plan(args),
    'run.get': async ({ runId }) => runs.view(runId),
    'run.list': async () => runs.list(),
    'run.cancel': async ({ runId }) => runs.cancel(runId),
    'run.detach': async ({ runId }) => runs.detach(runId),
    'run.attach': async ({ runId }) => runs.attach(runId),
    'run.cells': async ({ runId }) => runs.cells(runId),
    'run.cancelCell': ({ runId, jobId }) => runs.cancelCell(runId, jobId),
    'run.fromReceipt': (args) => runs.fromReceipt(args),
  };
}
