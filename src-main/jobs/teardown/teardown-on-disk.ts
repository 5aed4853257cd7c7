// `D/teardown.json` read over a shell, without the agent: a node whose dead-man switch
// removed the run's files ends its agent, and then only this file says what happened.
import type { TeardownRecord } from '../../../src-agent/wire/protocol';
import type { AgentAddress } from '../../ledger/node-record';
import { execCapture } from '../../transport/exec-helpers';
import type { NodeShell } from '../../transport/node-shell';

const STATES: readonly TeardownRecord['state'][] = [
  'stopping_job',
  'destroying',
  'destroy_requested',
  'stopping_instance',
  'stop_requested',
  'files_removed',
  'outputs_kept',
  'failed',
];

/** The record the node's switch left, read over a shell of its own (closed after), or
 *  null: none (it never fired), unreadable, or the node not reached within `withinMs`. */
export async function readTeardownOnDisk(
  connect: (signal: AbortSignal) => Promise<NodeShell>,
  address: AgentAddress,
  withinMs: number,
): Promise<TeardownRecord | null> {
  const signal = AbortSignal.timeout(withinMs);
  const shell = await connect(signal).catch(() => null);
  if (!shell) return null;
  try {
    const command = `cat ${address.dirWord}/teardown.json 2>/dev/null`;
    const r = await execCapture(shell, command, { signal });
    return r.code === 0 ? parseTeardownRecord(r.stdout) : null;
  } catch {
    return null;
  } finally {
    await shell.close().catch(() => {});
  }
}

/** The file's record (it also holds how to tear down, for a restarted agent: left out),
 *  read defensively: anything not shaped like a record is none. The file is one line; a
 *  login shell's noise may come before it. */
export function parseTeardownRecord(text: string): TeardownRecord | null {
  const line = text.trim().split('\n').at(-1) ?? '';
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  const state = STATES.find((s) => s === o.state);
  if (!state || typeof o.cause !== 'string' || typeof o.reason !== 'string') return null;
  return {
    cause: o.cause as TeardownRecord['cause'],
    reason: o.reason,
    at: typeof o.at === 'number' ? o.at : 0,
    state,
    ...(typeof o.error === 'string' ? { error: o.error } : {}),
  };
}
