import type { NodeRecord } from '../../ledger/node-record';

/** Provisioning has an answer: the node is up (dormant), or it will not come up on this
 *  lease (failed, or already being destroyed). */
export function isBootSettled(rec: NodeRecord): boolean {
  return (
    rec.stage === 'dormant' ||
    rec.stage === 'failed' ||
    rec.stage === 'destroying' ||
    rec.stage === 'destroyed'
  );
}

/** A destroy has an answer: the provider confirmed the lease gone, or `maxAttempts` tries
 *  failed (the NodeManager keeps retrying; the lease stays listed and loud). */
export function isDestroySettled(rec: NodeRecord, maxAttempts: number): boolean {
  return (
    rec.stage === 'destroyed' || (rec.stage === 'destroying' && rec.destroyAttempts >= maxAttempts)
  );
}

/** Failures of the machine itself (it never became reachable or never ran the agent), as
 *  opposed to a provider refusing to lease at all, a lease lost, or the job failing. */
export function isBootFailure(rec: NodeRecord): boolean {
  return (
    rec.lease !== null && !rec.leaseLost && /^(endpoint|bootstrap)\b/.test(rec.failedReason ?? '')
  );
}

export type BootDecision =
  | { kind: 'ready' }
  | { kind: 'fault'; reason: string }
  /** Destroy the failed lease, and once it is confirmed gone, lease another host. */
  | { kind: 'replace'; reason: string; machine: string | null; note: string };

/** What a settled boot (`isBootSettled`) means for the job. Only a boot failure is replaced,
 *  and only while the node has leases left: `maxBootAttempts` in all, 1 for providers that
 *  cannot replace (machines you own are what they are). */
export function afterBoot(rec: NodeRecord, maxBootAttempts: number): BootDecision {
  if (rec.stage === 'dormant') return { kind: 'ready' };
  const reason = rec.failedReason ?? `node ${rec.stage}`;
  if (!isBootFailure(rec) || rec.attempt + 1 >= maxBootAttempts) return { kind: 'fault', reason };
  const machine = rec.lease?.metadata.machine_id ?? null;
  const host = machine ? ` (host ${machine})` : '';
  return {
    kind: 'replace',
    reason,
    machine,
    note: `boot failed on ${rec.lease?.leaseId}${host}: ${reason}; destroying it before trying another host`,
  };
}

export type ReplacementDecision =
  | { kind: 'fault'; reason: string }
  /** `attempt`: the replacement lease's number, for its label. */
  | { kind: 'replace'; attempt: number; excludeMachine: string | null };

/** After the failed lease's destroy settled (`isDestroySettled`): a replacement starts only
 *  once the failed lease is confirmed destroyed, so two leases never bill for one node. */
export function afterFailedLeaseDestroy(
  gone: NodeRecord,
  failure: { reason: string; machine: string | null },
): ReplacementDecision {
  if (gone.stage !== 'destroyed') {
    return {
      kind: 'fault',
      reason: `${failure.reason}; the failed lease is not confirmed destroyed, so no replacement was started`,
    };
  }
  return { kind: 'replace', attempt: gone.attempt + 1, excludeMachine: failure.machine };
}
