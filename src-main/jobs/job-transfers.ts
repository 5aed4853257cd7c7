import type { AgentLink } from '../nodes/agent-link';
import type { AgentAddress } from '../nodes/node-layout';
import type { JobEvent } from './job-fsm';
import { pullOutputs } from './outputs/pull';
import {
  outputsNote,
  PROGRESS_NOTE_MS,
  pushProgressNote,
  pushResultNote,
  pushStartNote,
} from './transfer-notes';
import type { NodeManifestMemory } from './workspace/node-manifest-memory';
import type { PushPlan } from './workspace/push';
import { syncWorkspace } from './workspace/sync';

// The job's bulk transfers: each opens its own shell beside the agent link, and closes it.

export interface TransferDeps {
  link: AgentLink;
  /** Read when the shell is up: the agent's address as the node's record says now. */
  address(): AgentAddress;
  note(line: string): void;
  now(): number;
}

/** Pushes the workspace (a delta against what the node last had, when it is known). */
export async function pushJobWorkspace(
  d: TransferDeps,
  plan: PushPlan,
  opts: { hashCacheFile: string; memory: { store: NodeManifestMemory; key: string } },
): Promise<Extract<JobEvent, { type: 'WorkspaceMaterialized' }>> {
  const shell = await d.link.bulkShell();
  try {
    d.note(pushStartNote(plan));
    let lastNote = d.now();
    const res = await syncWorkspace(shell, d.address(), plan, {
      ...opts,
      onProgress: (p) => {
        if (d.now() - lastNote < PROGRESS_NOTE_MS) return;
        lastNote = d.now();
        d.note(pushProgressNote(p));
      },
    });
    d.note(pushResultNote(res));
    return { type: 'WorkspaceMaterialized' };
  } finally {
    await shell.close();
  }
}

/** Pulls the job's outputs into `outputsDir`. A failed pull is an outcome, not a fault:
 *  teardown follows either way. `onCollected` runs once they are in place. */
export async function pullJobOutputs(
  d: TransferDeps,
  outputs: string[],
  outputsDir: string,
  onCollected: () => void,
): Promise<Extract<JobEvent, { type: 'OutputsCollected' | 'OutputsFailed' }>> {
  const shell = await d.link.bulkShell();
  try {
    const pulled = await pullOutputs(shell, d.address(), outputs, outputsDir);
    d.note(outputsNote(pulled));
    onCollected();
    return { type: 'OutputsCollected', missing: pulled.missing };
  } catch (err) {
    d.note(`outputs not collected: ${(err as Error).message}`);
    return { type: 'OutputsFailed', error: (err as Error).message };
  } finally {
    await shell.close();
  }
}
