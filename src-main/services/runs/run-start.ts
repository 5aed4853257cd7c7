// The one way a run starts: `run.start`, `run.rerun` and `run.fromReceipt` (`rerun
// --receipt`) each become a RunStartRequest and pass through `startRun`, so every start
// remembers its secrets and has the run pre-flight before the run service writes anything.
import type { Handlers, RunView } from '../../contract';
import { hashCacheFile } from '../../jobs/workspace/hash-cache';
import type { Ledger } from '../../ledger/ledger';
import type { SecretMemory } from '../notify/secret-memory';
import { diffWorkspace } from './receipt-rerun';
import { receiptRequest, rerunRequest, type RunStartRequest } from './rerun-request';
import { preflightRun, type RunPreflightDeps } from './run-preflight';
import { checkPoolSecrets } from './pool-secrets';
import type { RunService } from './run-service';

export interface RunStartDeps extends RunPreflightDeps {
  home: string;
  ledger: Pick<Ledger, 'getRun' | 'jobSpec' | 'listCells' | 'installId'>;
  env: NodeJS.ProcessEnv;
  runs: Pick<RunService, 'start'>;
  /** What a notice is scrubbed of (services/notify/). */
  secrets: Pick<SecretMemory, 'remember' | 'rememberJob'>;
}

type RunStartHandlers = Pick<Handlers, 'run.start' | 'run.rerun' | 'run.fromReceipt'>;

export function runStartHandlers(d: RunStartDeps): RunStartHandlers {
  return {
    'run.start': (args) => startRun(d, { args }),
    'run.rerun': async (args) => startRun(d, rerunRequest(d.ledger, args)),
    // The workspace is diffed against the one the receipt's job was given.
    'run.fromReceipt': async (args) => {
      const request = receiptRequest(d.ledger, args);
      const workspace = await diffWorkspace(
        d.home,
        request.args.job,
        args.receipt,
        hashCacheFile(d.home),
      );
      return { run: await startRun(d, request), workspace };
    },
  };
}

/** Remembers the request's secret values (given by name, in the job, or read from the
 *  environment) before the run begins, since a run can end before its start returns; then
 *  the pre-flight; then the run service starts it. */
async function startRun(d: RunStartDeps, r: RunStartRequest): Promise<RunView> {
  d.secrets.remember(Object.values(r.given ?? {}));
  d.secrets.rememberJob(r.args.job, d.env);
  d.secrets.remember(checkPoolSecrets(r.args.pool, r.args.secrets, d.env));
  await preflightRun(d, r.args.pool);
  return d.runs.start(r.args, r.cells ? { cells: r.cells } : {});
}
