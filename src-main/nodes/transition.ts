import type { NodeStage } from '../contract';
import { desiredOnLease } from './desired-on-lease';
import type { LeaseFacts, NodeEndpoint } from '../providers/provider';
import type { NodeEffect, NodeMsg } from './messages';
import { NO_LEASE_YET, type NodeRecord } from '../ledger/node-record';

/** The result of one message: the next record and the effects to run after committing it.
 *  `ignored` explains a message that does not apply in the current stage (late results,
 *  duplicates); the record is then unchanged and nothing runs. */
export interface Step {
  record: NodeRecord;
  effects: NodeEffect[];
  ignored?: string;
}

const DESTROY_RETRY_BASE_MS = 2_000;
const DESTROY_RETRY_MAX_MS = 5 * 60_000; // keep trying for ever, but never hammer the API

/** Backoff before destroy attempt `attempt` (1-based): 2 s, 4 s, 8 s … capped at 5 min. */
export function destroyRetryDelay(attempt: number): number {
  return Math.min(DESTROY_RETRY_MAX_MS, DESTROY_RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1));
}

/** NodeManager FSM. Pure: no I/O, no clock, no randomness. */
export function transition(rec: NodeRecord, msg: NodeMsg, now: number): Step {
  if (msg.type === 'GetStatus')
    return { record: rec, effects: [{ type: 'Reply', kind: 'status' }] };
  if (msg.type === 'GetRecord')
    return { record: rec, effects: [{ type: 'Reply', kind: 'record' }] };
  // Released: the lease is another run's node's now; nothing here may act on it.
  if (rec.stage === 'released') return ignore(rec, msg);
  if (msg.type === 'LeaseCreated' && isAdoptedBefore(rec, msg.lease)) return refreshFacts(rec, msg);
  if (msg.type === 'Destroy') return onDestroy(rec, msg.reason, now);
  if (msg.type === 'LeaseLost') return onLeaseLost(rec, msg.reason, now, msg.selfDestroyedAt);

  switch (rec.stage) {
    case 'new':
      // A fresh label: no create can have happened yet, so nothing to look up first.
      if (msg.type === 'Start') {
        return step(to(rec, 'lease_requested', now), { type: 'CreateLease', lookupFirst: false });
      }
      return ignore(rec, msg);

    case 'lease_requested':
      switch (msg.type) {
        case 'LeaseCreated':
        case 'LeaseFound':
          return leaseKnown(rec, msg.lease, msg.endpoint, now);
        case 'LeaseFailed':
          return rec.destroyRequested
            ? destroyed(rec, now)
            : fail(rec, `lease: ${msg.reason}`, now);
        case 'LeaseNotFound':
          return rec.destroyRequested
            ? destroyed(rec, now)
            : fail(rec, `lease: no lease carries the label ${rec.label}`, now);
        default:
          return ignore(rec, msg);
      }

    case 'lease_created':
      if (msg.type === 'EndpointKnown') return endpointKnown(rec, msg.endpoint, now);
      if (msg.type === 'EndpointFailed')
        return fail(rec, `${msg.notTheHost ? 'image' : 'endpoint'}: ${msg.reason}`, now);
      return ignore(rec, msg);

    case 'endpoint_known':
      if (msg.type === 'BootstrapStarted') return bootstrapStarted(rec, msg.sessionId, now);
      if (msg.type === 'BootstrapFailed') return bootstrapFailed(rec, msg, now);
      return ignore(rec, msg);

    case 'bootstrap_running':
      switch (msg.type) {
        case 'BootstrapStarted':
          return bootstrapStarted(rec, msg.sessionId, now);
        case 'BootstrapObserved':
          return observed(rec, msg, now);
        case 'BootstrapFailed':
          return bootstrapFailed(rec, msg, now);
        case 'AgentJoined':
          return step(
            {
              ...to(rec, 'agent_joined', now),
              agent: { ...msg.agent, joinedAt: now, handedOffAt: null },
            },
            { type: 'NotifyConvergence', agentId: msg.agent.agentId },
          );
        case 'BootstrapClosed':
          return fail(rec, 'bootstrap: the session closed before the agent joined', now);
        default:
          return ignore(rec, msg);
      }

    case 'agent_joined':
      switch (msg.type) {
        // A new session after a restart: the old one died with the process that ran it.
        case 'BootstrapStarted':
          return bootstrapStarted(rec, msg.sessionId, now);
        case 'BootstrapObserved':
          return observed(rec, msg, now);
        case 'BootstrapFailed':
          return bootstrapFailed(rec, msg, now);
        case 'BootstrapClosed':
          // The bootstrap session's SSH handle is closed: only now may the node be ready.
          return step(
            {
              ...to(rec, 'handed_off', now),
              ready: true,
              agent: rec.agent && { ...rec.agent, handedOffAt: now },
            },
            { type: 'CompleteHandoff' },
          );
        default:
          return ignore(rec, msg);
      }

    case 'handed_off':
      if (msg.type === 'HandoffComplete') return step(to(rec, 'dormant', now));
      return ignore(rec, msg);

    case 'dormant':
    case 'failed':
      return ignore(rec, msg);

    case 'destroyed':
      if (msg.type === 'Replace') return replaced(rec, msg, now);
      return ignore(rec, msg);

    case 'destroying':
      if (msg.type === 'DestroyConfirmed') return destroyed(rec, now);
      if (msg.type === 'DestroyFailed') {
        const attempts = rec.destroyAttempts + 1;
        const next = { ...rec, destroyAttempts: attempts, lastError: msg.error };
        return step(next, destroyEffect(next, destroyRetryDelay(attempts)));
      }
      return ignore(rec, msg);

    default:
      return assertNever(rec.stage);
  }
}

/** The provider no longer lists the lease. While destroying, that is the confirmation;
 *  otherwise the lease is lost (something else destroyed it) and the node has failed. */
function onLeaseLost(rec: NodeRecord, reason: string, now: number, selfDestroyedAt?: number): Step {
  if (!rec.lease || rec.stage === 'destroyed' || rec.leaseLost) {
    return { record: rec, effects: [], ignored: `LeaseLost in ${rec.stage}` };
  }
  if (rec.stage === 'destroying') return destroyed(rec, now);
  if (selfDestroyedAt !== undefined) {
    // Gone by its own dead-man switch (confirmed gone by the caller): destroyed, and billed
    // until the moment its switch fired, not until we noticed.
    return step(
      {
        ...to(rec, 'destroyed', now),
        ready: false,
        destroyedAt: Math.min(now, selfDestroyedAt),
        destroyReason: reason,
      },
      { type: 'CancelWork' },
    );
  }
  return step(
    {
      ...to(rec, 'failed', now),
      ready: false,
      leaseLost: true,
      failedReason: `lease lost: ${reason}`,
    },
    { type: 'CancelWork' },
  );
}

/** A fresh start for the same logical node on a new lease: only once the failed lease is
 *  destroyed (confirmed), so a replacement never runs beside a lease still billing. */
function replaced(rec: NodeRecord, msg: Extract<NodeMsg, { type: 'Replace' }>, now: number): Step {
  const excluded = Array.isArray(rec.desired.shape.excludeMachines)
    ? (rec.desired.shape.excludeMachines as string[])
    : [];
  const shape = msg.excludeMachine
    ? { ...rec.desired.shape, excludeMachines: [...new Set([...excluded, msg.excludeMachine])] }
    : rec.desired.shape;
  return step({
    ...to(rec, 'new', now),
    label: msg.label,
    attempt: rec.attempt + 1,
    desired: { ...rec.desired, shape },
    ...NO_LEASE_YET,
    ...(msg.agentSeqOffset !== undefined ? { agentSeqOffset: msg.agentSeqOffset } : {}),
  });
}

function onDestroy(rec: NodeRecord, reason: string, now: number): Step {
  switch (rec.stage) {
    case 'destroying':
    case 'destroyed':
      return { record: rec, effects: [], ignored: `Destroy in ${rec.stage}` };
    case 'new':
      return destroyed({ ...rec, destroyReason: reason }, now);
    case 'lease_requested':
      // The create call may be in flight, or may have happened before a crash: find out what
      // carries the label and destroy that. Never create.
      return step({ ...rec, destroyRequested: true, destroyReason: reason }, { type: 'FindLease' });
    default:
      if (!rec.lease) return destroyed({ ...rec, destroyReason: reason }, now);
      return beginDestroy({ ...rec, destroyReason: reason }, now);
  }
}

function beginDestroy(rec: NodeRecord, now: number): Step {
  const next = { ...to(rec, 'destroying', now), ready: false };
  return step(next, { type: 'CancelWork' }, destroyEffect(next, 0));
}

function destroyEffect(rec: NodeRecord, delayMs: number): NodeEffect {
  if (!rec.lease) throw new Error(`destroy without a lease on ${rec.id}`);
  return { type: 'DestroyLease', handle: rec.lease.destroyHandle, delayMs };
}

function leaseKnown(
  rec: NodeRecord,
  lease: LeaseFacts,
  endpoint: NodeEndpoint | null,
  now: number,
): Step {
  const withLease = { ...rec, lease, desired: desiredOnLease(rec.desired, lease) };
  if (rec.destroyRequested) return beginDestroy(withLease, now);
  if (endpoint) return endpointKnown(withLease, endpoint, now);
  return step(to(withLease, 'lease_created', now), { type: 'LookupEndpoint', lease });
}

function endpointKnown(rec: NodeRecord, endpoint: NodeEndpoint, now: number): Step {
  if (!rec.lease) throw new Error(`endpoint without a lease on ${rec.id}`);
  const next = { ...to(rec, 'endpoint_known', now), connection: endpoint };
  return step(next, { type: 'StartBootstrap', endpoint, lease: rec.lease });
}

function bootstrapStarted(rec: NodeRecord, sessionId: number, now: number): Step {
  return step({
    ...to(rec, 'bootstrap_running', now),
    bootstrap: {
      sessionId,
      lastStage: 'created',
      lastStdoutSeq: null,
      lastStderrSeq: null,
      lastObservedAt: now,
    },
  });
}

function observed(
  rec: NodeRecord,
  msg: Extract<NodeMsg, { type: 'BootstrapObserved' }>,
  now: number,
): Step {
  const prev = rec.bootstrap;
  return step({
    ...rec,
    bootstrap: {
      sessionId: prev?.sessionId ?? 0,
      lastStage: msg.stage,
      lastStdoutSeq: msg.lastStdoutSeq ?? prev?.lastStdoutSeq ?? null,
      lastStderrSeq: msg.lastStderrSeq ?? prev?.lastStderrSeq ?? null,
      lastObservedAt: now,
    },
  });
}

function bootstrapFailed(
  rec: NodeRecord,
  msg: Extract<NodeMsg, { type: 'BootstrapFailed' }>,
  now: number,
): Step {
  const bootstrap = {
    sessionId: rec.bootstrap?.sessionId ?? 0,
    lastStdoutSeq: rec.bootstrap?.lastStdoutSeq ?? null,
    lastStderrSeq: rec.bootstrap?.lastStderrSeq ?? null,
    lastStage: msg.stage,
    lastObservedAt: now,
  };
  return fail({ ...rec, bootstrap }, `bootstrap ${msg.stage}: ${msg.reason}`, now);
}

function fail(rec: NodeRecord, reason: string, now: number): Step {
  return step(
    { ...to(rec, 'failed', now), ready: false, failedReason: reason },
    { type: 'CancelWork' },
  );
}

function destroyed(rec: NodeRecord, now: number): Step {
  return step({ ...to(rec, 'destroyed', now), ready: false, destroyedAt: now });
}

function to(rec: NodeRecord, stage: NodeStage, now: number): NodeRecord {
  return stage === rec.stage ? rec : { ...rec, stage, stageSince: now };
}

/** The reconciler's listing adopted the lease while this node's create was in flight, and
 *  the create's answer comes after: the same lease, past the stage that takes it. */
function isAdoptedBefore(rec: NodeRecord, lease: LeaseFacts): boolean {
  return (
    rec.stage !== 'lease_requested' &&
    rec.stage !== 'destroyed' &&
    rec.lease !== null &&
    rec.lease.leaseId === lease.leaseId
  );
}

/** The create's facts replace the listing's, which lack what only the create knew (a bid's
 *  on-demand bound, the offer's prices); the stage and the work under way stay. */
function refreshFacts(rec: NodeRecord, msg: Extract<NodeMsg, { type: 'LeaseCreated' }>): Step {
  if (JSON.stringify(rec.lease) === JSON.stringify(msg.lease)) return ignore(rec, msg);
  return step({ ...rec, lease: msg.lease, desired: desiredOnLease(rec.desired, msg.lease) });
}

function step(record: NodeRecord, ...effects: NodeEffect[]): Step {
  return { record, effects };
}

function ignore(rec: NodeRecord, msg: NodeMsg): Step {
  return { record: rec, effects: [], ignored: `${msg.type} in ${rec.stage}` };
}

function assertNever(x: never): never {
  throw new Error(`unhandled stage ${String(x)}`);
}
