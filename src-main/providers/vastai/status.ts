/** The one table from Vast.ai's instance status to what it means for a lease.
 *
 *  Vast.ai reports `actual_status` (show_instance.yaml): null while provisioning, then
 *  loading, running, stopped, frozen, exited, rebooting, unknown, offline; older answers
 *  and the console also show `created` (container made, not started). `status_msg` carries
 *  Docker's last word: "success, running …" or an error such as "OCI runtime create failed".
 *  `cur_state: unloaded` means the machine allocation is released: the instance is gone. */

export type InstanceState =
  /** Vast.ai no longer has it: nothing bills. */
  | { kind: 'gone' }
  /** Not usable yet, and may still become usable. `isImagePull`: Vast.ai says `loading`
   *  (its image downloading or its container starting, show_instance), where `status_msg`
   *  may carry the pull's progress. */
  | { kind: 'starting'; detail: string; isImagePull: boolean }
  /** The container runs; whether SSH is reachable is the endpoint's question. */
  | { kind: 'running' }
  /** It will never become usable by itself (it may still bill until destroyed). */
  | { kind: 'failed'; reason: string };

type Outcome =
  | 'starting'
  | 'running'
  | 'failed'
  /** Starting while Vast.ai still means to run it (`intended_status: running`), else failed. */
  | 'starting-if-intended';

interface Row {
  clean: Outcome;
  /** When `status_msg` carries a boot error. */
  withError: Outcome;
  /** Said of a failed instance, after "the instance is …". */
  why: string;
}

/** Keyed by `actual_status`; `(none)` is null/absent. A running container with an old error
 *  message is still running. `unknown` (no heartbeat) and `offline` (host disconnected) are
 *  final for a node being set up: waiting on a host that vanished only bills. */
export const STATUS_TABLE: Readonly<Record<string, Row>> = {
  '(none)': { clean: 'starting', withError: 'failed', why: 'not provisioned' },
  created: { clean: 'starting', withError: 'failed', why: 'created but its container failed' },
  loading: { clean: 'starting', withError: 'failed', why: 'loading but its image failed' },
  rebooting: { clean: 'starting', withError: 'failed', why: 'rebooting and failing' },
  running: { clean: 'running', withError: 'running', why: 'running' },
  stopped: {
    clean: 'starting-if-intended',
    withError: 'failed',
    why: 'stopped (it still bills for storage)',
  },
  frozen: { clean: 'failed', withError: 'failed', why: 'frozen (paused)' },
  exited: { clean: 'failed', withError: 'failed', why: 'exited: its container stopped' },
  unknown: { clean: 'failed', withError: 'failed', why: 'unknown to Vast.ai (no heartbeat)' },
  offline: { clean: 'failed', withError: 'failed', why: 'offline: its host disconnected' },
};

/** Docker and registry errors that never fix themselves (an image that cannot be pulled, a
 *  runtime that cannot start the container, a full disk). */
const BOOT_ERROR =
  /oci runtime|error response from daemon|failed to create (shim|task)|manifest (unknown|for .* not found)|pull access denied|repository does not exist|no such image|invalid reference format|unauthorized: authentication required|exec format error|no space left on device|^error\b/i;

export function hasBootError(statusMsg: unknown): boolean {
  return typeof statusMsg === 'string' && BOOT_ERROR.test(statusMsg.trim());
}

/** Gone: no such instance, or its allocation released. A stopped instance is not gone: it
 *  still bills for its disk. */
export function isGoneInstance(inst: Record<string, unknown> | null): boolean {
  return inst === null || inst.cur_state === 'unloaded';
}

export function classifyInstance(inst: Record<string, unknown> | null): InstanceState {
  if (isGoneInstance(inst) || inst === null) return { kind: 'gone' };
  if (inst.next_state === 'unloaded')
    return { kind: 'failed', reason: 'the instance is being destroyed' };
  const raw = inst.actual_status;
  const status = typeof raw === 'string' && raw.trim() ? raw.trim().toLowerCase() : '(none)';
  const msg = typeof inst.status_msg === 'string' ? oneLine(inst.status_msg) : '';
  const row = STATUS_TABLE[status];
  const said = msg ? `: ${msg}` : '';
  // A status this table does not know yet: not final. The orchestrator's deadline bounds it.
  if (!row) return { kind: 'starting', detail: `status "${status}"${said}`, isImagePull: false };
  const outcome = hasBootError(msg) ? row.withError : row.clean;
  const final =
    outcome !== 'starting-if-intended'
      ? outcome
      : inst.intended_status === 'running'
        ? 'starting'
        : 'failed';
  switch (final) {
    case 'running':
      return { kind: 'running' };
    case 'starting':
      return { kind: 'starting', detail: `${status}${said}`, isImagePull: status === 'loading' };
    case 'failed':
      return { kind: 'failed', reason: `the instance is ${row.why}${said}` };
  }
}

const MAX_MSG = 400; // Docker's errors run long; the cause is in the first few hundred chars

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MSG ? `${flat.slice(0, MAX_MSG - 1)}…` : flat;
}
