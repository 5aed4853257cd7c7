// `workspace.sync`: pushes what changed in a run's local workspace into every node whose job
// is running, in place (the job keeps its cwd and the files it made). Writes nothing to the
// ledger, so a read-only core (another process drives the run) can do it too.
import type { CommandOutput } from '../../contract';
import type { NodeFactory } from '../nodes/node-factory';
import { TenderError } from '../../base/tender-error';
import type { Datastream } from '../../datastream/datastream';
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';
import { hashCacheFile } from '../../jobs/workspace/hash-cache';
import { linkRatesFile } from '../../jobs/workspace/link-rates';
import { formatBytes } from '../../jobs/workspace/human-units';
import { scanWorkspace } from '../../jobs/workspace/scan';
import { sessionKey, type WorkspaceSessions } from '../../jobs/workspace/session-pool';
import { SessionOpenError, type WorkspaceSession } from '../../jobs/workspace/sync-session';
import type { NodeShell } from '../../transport/node-shell';
import { syncWorkspace, type SyncResult } from '../../jobs/workspace/sync';

/** What a sync uses. */
export interface RunSyncDeps {
  home: string;
  ledger: Ledger;
  datastream: Datastream;
  isWriter: boolean;
  now: () => number;
  factory: Pick<NodeFactory, 'connector'>;
  /** Kept per node between syncs: `tender sync --watch` and the app push every few seconds. */
  workspaceSessions: WorkspaceSessions;
}

type NodeSync = CommandOutput<'workspace.sync'>['nodes'][number];

// A node that does not answer within this is reported, not waited on for ever.
const CONNECT_DEADLINE_MS = 60_000;
/** Job phases that run in the workspace: before them it is being pushed, after them the
 *  outputs are being collected from it. */
const LIVE_PHASES = new Set(['setup', 'run']);

export async function syncRunWorkspace(
  core: RunSyncDeps,
  runId: string,
): Promise<CommandOutput<'workspace.sync'>> {
  const run = core.ledger.getRun(runId);
  if (!run)
    throw new TenderError('not_found', `no run ${runId}`, 'See `tender status` for the runs.');
  const workspace = core.ledger.jobSpec(run.jobId).workspace;
  if (!workspace) {
    throw new TenderError(
      'conflict',
      `run ${runId} has no workspace to sync`,
      'Only a job with [job.workspace] pushes a folder; this one runs without.',
    );
  }
  const nodes = core.ledger.nodesOfRun(runId).filter((n) => isLive(core, n));
  if (nodes.length === 0) {
    throw new TenderError(
      'conflict',
      `no node of run ${runId} is running its job (run ${run.status})`,
      'A workspace is synced into a running job only; `tender status` shows where it stands.',
    );
  }
  const scan = await scanWorkspace(workspace.workdir, workspace.exclude);
  const outcomes = await Promise.allSettled(nodes.map((rec) => syncNode(core, rec, scan)));
  const failed = outcomes.flatMap((o, i) =>
    o.status === 'rejected' ? [{ rec: nodes[i]!, err: o.reason as Error }] : [],
  );
  if (failed.length === 1 && nodes.length === 1) throw failed[0]!.err;
  if (failed.length > 0) {
    const done = nodes.length - failed.length;
    throw new TenderError(
      'infrastructure',
      failed.map(({ rec, err }) => `${rec.logicalId}: ${err.message}`).join('; '),
      `${done} of ${nodes.length} node(s) were synced; sync again once the cause is fixed.`,
    );
  }
  return { nodes: outcomes.map((o) => (o as PromiseFulfilledResult<NodeSync>).value) };
}

function isLive(core: RunSyncDeps, rec: NodeRecord): boolean {
  const phase = core.ledger.getAttempt(rec.id)?.phase;
  return (
    rec.stage === 'dormant' &&
    rec.agent !== null &&
    rec.connection !== null &&
    phase !== undefined &&
    LIVE_PHASES.has(phase)
  );
}

async function syncNode(
  core: RunSyncDeps,
  rec: NodeRecord,
  scan: Awaited<ReturnType<typeof scanWorkspace>>,
): Promise<NodeSync> {
  const connect = () =>
    core.factory.connector(rec.connection!, CONNECT_DEADLINE_MS)(new AbortController().signal);
  const address = rec.agent!.address;
  const push = (shell: NodeShell, via?: WorkspaceSession) =>
    syncWorkspace(shell, address, scan, {
      inPlace: true,
      hashCacheFile: hashCacheFile(core.home),
      linkRatesFile: linkRatesFile(core.home),
      now: core.now,
      via,
    });
  let res: SyncResult;
  try {
    res = await core.workspaceSessions.with(
      sessionKey(rec.id, address, rec.connection),
      connect,
      address,
      (session) => push(session.shell, session),
    );
  } catch (err) {
    // An agent from before sessions (the node was started by an older Tender): one exec.
    if (!(err instanceof SessionOpenError)) throw err;
    const shell = await connect();
    try {
      res = await push(shell);
    } finally {
      await shell.close();
    }
  }
  // The datastream's files have one writer: the process holding the ledger. A read-only
  // core (another process drives the run) leaves the line out rather than race it.
  if (core.isWriter) {
    core.datastream.append(rec.id, 'events', {
      source: 'event',
      stream: 'info',
      line: `synced: ${describeSync(res)}`,
      ts: core.now(),
    });
  }
  const { mode, filesSent, bytesSent, deleted, unchanged, elapsedMs } = res;
  return { nodeId: rec.id, mode, filesSent, bytesSent, deleted, unchanged, elapsedMs };
}

/** `3 changed, 1 deleted (12.0 kB)`; a full push says so. */
export function describeSync(r: Pick<NodeSync, 'mode' | 'filesSent' | 'deleted' | 'bytesSent'>) {
  const full = r.mode === 'full' ? ', full push' : '';
  return `${r.filesSent} changed, ${r.deleted} deleted (${formatBytes(r.bytesSent)}${full})`;
}
