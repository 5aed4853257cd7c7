import type { JobLink } from '../node-job/job-link';
import { LinkClosedError } from '../../nodes/agent-client';
import type { AgentAddress } from '../../nodes/node-layout';
import type { JobEvent } from '../fsm/job-fsm';
import type { OutputsGlance } from '../../../src-agent/wire/protocol';
import { collectEmptyOutputs } from '../outputs/glance';
import { pullOutputs, type PulledOutputs } from '../outputs/pull';
import {
  outputsNote,
  PROGRESS_NOTE_MS,
  pushProgressNote,
  pushResultNote,
  pushStartNote,
} from './transfer-notes';
import type { NodeManifestMemory } from '../workspace/node-manifest-memory';
import type { PushPlan } from '../workspace/push';
import { syncWorkspace } from '../workspace/sync';
import { WorkspaceSession } from '../workspace/sync-session';
import type { NodeShell } from '../../transport/node-shell';

// The job's bulk transfers: each opens its own shell beside the agent link, and closes it.

export interface TransferDeps {
  link: JobLink;
  /** Read when the shell is up: the agent's address as the node's record says now. */
  address(): AgentAddress;
  note(line: string): void;
  now(): number;
  /** Open a spare bulk connection behind the push's (another transfer may follow soon). */
  spareAfterPush?: boolean;
}

/** A `serve-workspace` session on a bulk shell, opened before the push needs it. */
export interface EarlySession {
  shell: NodeShell;
  session: WorkspaceSession;
}

/** Opens the push's session while the link still handshakes (a warm node: the address is
 *  known), so the node's process start is not on the way to the job's first line. Null
 *  when it cannot (the push then opens its own exec). Nothing on the node changes. */
export async function openEarlySession(d: TransferDeps): Promise<EarlySession | null> {
  try {
    const shell = await d.link.bulkShell({ beforeJoin: true, last: d.spareAfterPush === false });
    return await openSessionOn(shell, d.address());
  } catch {
    return null;
  }
}

/** A `serve-workspace` session on `shell`, checking the node's workspace while this side
 *  scans; the shell is closed when the session cannot open. `isEager`: see
 *  `WorkspaceSession.open`. */
export async function openSessionOn(
  shell: NodeShell,
  address: AgentAddress,
  opts: { isEager?: boolean; command?: string } = {},
): Promise<EarlySession> {
  try {
    const session = await WorkspaceSession.open(shell, address, opts);
    session.prepare();
    return { shell, session };
  } catch (err) {
    await shell.close();
    throw err;
  }
}

/** Closes an early session that no push will use, and its shell. */
export async function closeEarlySession(early: EarlySession | null): Promise<void> {
  await early?.session.close();
  await early?.shell.close();
}

/** What a push needs to say and where it goes (no agent link: an early push has none). */
export type PushDeps = Pick<TransferDeps, 'address' | 'note' | 'now'>;

export interface PushOptions {
  hashCacheFile: string;
  linkRatesFile?: string;
  memory: { store: NodeManifestMemory; key: string };
  /** A lease made for this push: nothing to ask the node (`SyncOptions.isFreshNode`). */
  isFreshNode?: boolean;
}

/** Pushes the workspace (a delta against what the node last had, when it is known), over
 *  `early` when that session opened. */
export async function pushJobWorkspace(
  d: TransferDeps,
  plan: PushPlan,
  opts: PushOptions,
  early: EarlySession | null = null,
): Promise<Extract<JobEvent, { type: 'WorkspaceMaterialized' }>> {
  const shell = early?.shell ?? (await d.link.bulkShell({ last: d.spareAfterPush === false }));
  await pushOnShell(d, plan, opts, shell, early?.session ?? null);
  return { type: 'WorkspaceMaterialized' };
}

/** The push itself, on `shell` (through `session` while it is open); closes both: after a
 *  push that landed, behind its answer (the node's `serve-workspace` exits a round trip
 *  later, and the job's next step need not wait for that). */
export async function pushOnShell(
  d: PushDeps,
  plan: PushPlan,
  opts: PushOptions,
  shell: NodeShell,
  session: WorkspaceSession | null,
): Promise<void> {
  const close = async () => {
    await session?.close();
    await shell.close();
  };
  let isLanded = false;
  try {
    d.note(pushStartNote(plan));
    let lastNote = d.now();
    const res = await syncWorkspace(shell, d.address(), plan, {
      ...opts,
      ...(session?.isOpen ? { via: session } : {}),
      saveCacheBehind: true,
      onProgress: (p) => {
        if (d.now() - lastNote < PROGRESS_NOTE_MS) return;
        lastNote = d.now();
        d.note(pushProgressNote(p));
      },
    });
    d.note(pushResultNote(res));
    isLanded = true;
  } finally {
    if (isLanded) void close().catch(() => {});
    else await close();
  }
}

/** Pulls the job's outputs into `outputsDir`. A failed pull is an outcome, not a fault:
 *  teardown follows either way. `onCollected` runs once they are in place. */
/** Waits before each further try of the final collection: a cut link (its spare shell
 *  included) is opened anew; a stream the node sends wrong is refused each time. */
export const COLLECT_RETRY_MS = [500, 1_500];

export async function pullJobOutputs(
  d: TransferDeps,
  outputs: string[],
  outputsDir: string,
  onCollected: (pulled: PulledOutputs) => void,
  /** The first look, asked already when the run exited (`glanceAhead`). */
  glanced?: Promise<OutputsGlance | null> | null,
): Promise<Extract<JobEvent, { type: 'OutputsCollected' | 'OutputsFailed' }>> {
  for (let attempt = 0; ; attempt++) {
    try {
      // Nothing to bring: said by the agent, no process started on the node. Else only
      // what changed since the last pull while the job ran; no spare shell opened behind
      // it (the job's last bulk transfer).
      const pulled =
        (attempt === 0 ? await collectEmptyOutputs(d.link, outputs, outputsDir, glanced) : null) ??
        (await d.link.withBulkShell(
          (shell) => pullOutputs(shell, d.address(), outputs, outputsDir, { incremental: true }),
          { last: true },
        ));
      d.note(outputsNote(pulled));
      onCollected(pulled);
      return { type: 'OutputsCollected', missing: pulled.missing };
    } catch (err) {
      const message = (err as Error).message;
      const wait = COLLECT_RETRY_MS[attempt];
      if (wait === undefined || err instanceof LinkClosedError) {
        d.note(`outputs not collected: ${message}`);
        return { type: 'OutputsFailed', error: message };
      }
      d.note(`outputs not collected yet (${message}); trying again in ${wait / 1000} s`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** The outputs as they stand while the job runs (periodic-pulls.ts): what changed since
 *  the last pull; a failure is noted, and the next round or the final collection retries. */
export async function pullRunningOutputs(
  d: TransferDeps,
  outputs: string[],
  outputsDir: string,
): Promise<void> {
  try {
    const pulled = await d.link.withBulkShell((shell) =>
      pullOutputs(shell, d.address(), outputs, outputsDir, { incremental: true }),
    );
    d.note(`while running, ${outputsNote(pulled)}`);
  } catch (err) {
    d.note(`outputs not pulled while running: ${(err as Error).message}`);
  }
}
