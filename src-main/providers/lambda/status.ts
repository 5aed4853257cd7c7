/** The one table from Lambda Cloud's instance `status` to what it means for a lease.
 *
 *  openapi.yaml: `booting` (ip null until an address is assigned) → `active`; `unhealthy`;
 *  `terminating` (newer spec only) → `terminated`. There is no stopped state: Lambda only
 *  restarts and terminates. */

export type InstanceState =
  /** Lambda no longer has it, or it is ending: nothing more will run on it. */
  | { kind: 'gone'; status: string }
  /** Not usable yet, and may still become usable. */
  | { kind: 'starting'; detail: string }
  /** The VM runs and has an address; whether sshd answers is the orchestrator's probe. */
  | { kind: 'running'; ip: string }
  /** Lambda reports the VM unhealthy: it may recover (a restart), or never. */
  | { kind: 'failed'; reason: string };

type Outcome = 'starting' | 'running' | 'failed' | 'gone';

/** Keyed by `status`. `unhealthy` is `failed` here; whether that is final is decided by
 *  how long it lasts (provider.ts: UNHEALTHY_GRACE_MS), since the spec does not say whether
 *  it recovers. */
export const STATUS_TABLE: Readonly<Record<string, Outcome>> = {
  booting: 'starting',
  active: 'running',
  unhealthy: 'failed',
  terminating: 'gone',
  terminated: 'gone',
};

/** Whether the listing should still count the instance as a lease (it bills, or may). */
export function isEnding(status: string): boolean {
  return STATUS_TABLE[status] === 'gone';
}

export function classifyInstance(inst: { status: string; ip: string | null }): InstanceState {
  const status = inst.status.trim().toLowerCase();
  const outcome = STATUS_TABLE[status];
  switch (outcome) {
    case 'gone':
      return { kind: 'gone', status };
    case 'failed':
      return { kind: 'failed', reason: `Lambda Cloud reports the instance ${status}` };
    case 'running':
      // `ip` null = not yet: active without an address is still coming up.
      return inst.ip
        ? { kind: 'running', ip: inst.ip }
        : { kind: 'starting', detail: 'active, no ip yet' };
    case 'starting':
      return { kind: 'starting', detail: status };
    default:
      // A status this table does not know yet: not final. The orchestrator's deadline bounds it.
      return { kind: 'starting', detail: `status "${status}"` };
  }
}
