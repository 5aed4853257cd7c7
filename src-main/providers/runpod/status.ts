import type { LeaseCondition } from '../provider';
import { isRecord } from './errors';

/** What a pod is, for the orchestrator. */
export type PodState =
  | { kind: 'starting' }
  | { kind: 'running' }
  | { kind: 'failed'; reason: string }
  | { kind: 'gone' };

/** The one table: GraphQL `desiredStatus` (CREATED, RUNNING, RESTARTING, EXITED, PAUSED,
 *  DEAD, TERMINATED — graphql-spec.runpod.io) × whether `runtime` is there.
 *
 *  A create answers RUNNING at once with `runtime: null` while the image is pulled; the pod
 *  is usable once `runtime` appears (dstack, SkyPilot). A pod that stays RUNNING without a
 *  runtime (too small a disk, a CUDA mismatch) is caught by the orchestrator's endpoint
 *  deadline, not here. EXITED is a stopped container — podStop, or an interruptible pod
 *  taken back — which never becomes usable by itself. */
export function classifyPod(pod: Record<string, unknown> | null): PodState {
  if (!pod) return { kind: 'gone' };
  const status = statusOf(pod);
  const hasRuntime = isRecord(pod.runtime);
  switch (status) {
    case 'TERMINATED':
      return { kind: 'gone' };
    case 'DEAD':
      return { kind: 'failed', reason: 'the pod died (desiredStatus DEAD)' };
    case 'EXITED':
      return {
        kind: 'failed',
        reason: isInterruptiblePod(pod)
          ? 'the interruptible pod was taken back (desiredStatus EXITED)'
          : 'the pod was stopped (desiredStatus EXITED)',
      };
    case 'RUNNING':
      return hasRuntime ? { kind: 'running' } : { kind: 'starting' };
    case 'CREATED':
    case 'RESTARTING':
    case 'PAUSED':
    case null:
      return { kind: 'starting' };
    default:
      // A status this table does not know yet: not usable until it says RUNNING.
      return { kind: 'starting' };
  }
}

/** A starting pod's status line (`report` of lookupEndpoint): its desiredStatus, whether its
 *  runtime is there yet, and `lastStatusChange`, the one status message RunPod's API gives
 *  (it has no pull progress or logs of its own: runpod-python#400). A RUNNING pod without a
 *  runtime is pulling its image or starting its container: the stall rule applies, and
 *  whatever progress `lastStatusChange` says is read as the pull's. */
export function podReport(pod: Record<string, unknown> | null): {
  line: string;
  isImagePull: boolean;
} {
  const status = (pod && statusOf(pod)) ?? 'not listed yet';
  const said =
    pod && typeof pod.lastStatusChange === 'string' && pod.lastStatusChange.trim()
      ? oneLine(pod.lastStatusChange)
      : null;
  if (status === 'RUNNING' && pod && !isRecord(pod.runtime))
    return {
      line: `RUNNING, no runtime yet: ${said ?? 'pulling the image or starting the container'}`,
      isImagePull: true,
    };
  return { line: said ? `${status}: ${said}` : status, isImagePull: false };
}

/** Hands a starting pod's status line to lookupEndpoint's reporter. */
export function reportPod(
  pod: Record<string, unknown> | null,
  report?: (line: string, isImagePull: boolean) => void,
): void {
  const said = podReport(pod);
  report?.(said.line, said.isImagePull);
}

const MAX_LINE = 300;

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_LINE ? `${flat.slice(0, MAX_LINE - 1)}…` : flat;
}

/** What a listed pod is doing, for the reconciler (`LeaseFacts.condition`). An interruptible
 *  pod that went EXITED was taken back by a higher bid or an on-demand renter ("spot
 *  preempted → EXITED"): `outbid`, recovered per `[recovery]` (`preempted`). An on-demand
 *  EXITED pod was stopped by someone: `stopped`. DEAD is the container gone by itself:
 *  `exited` (a lost node). TERMINATED pods are not listed at all. */
export function conditionOf(pod: Record<string, unknown>): LeaseCondition | undefined {
  const interruptible = isInterruptiblePod(pod);
  const cost = typeof pod.costPerHr === 'number' ? pod.costPerHr : undefined;
  const bid = interruptible && cost !== undefined ? { bid: cost } : {};
  switch (statusOf(pod)) {
    case 'RUNNING':
      return { state: isRecord(pod.runtime) ? 'running' : 'loading', ...bid };
    case 'CREATED':
    case 'RESTARTING':
    case null:
      return { state: 'loading', ...bid };
    case 'EXITED':
      return { state: interruptible ? 'outbid' : 'stopped', ...bid };
    case 'PAUSED':
      return { state: 'stopped', ...bid };
    case 'DEAD':
      return { state: 'exited', ...bid };
    default:
      return undefined;
  }
}

export function isGonePod(pod: Record<string, unknown> | null): boolean {
  return classifyPod(pod).kind === 'gone';
}

/** Set to 1 on every interruptible pod Tender creates: `podType` is not in every answer. */
export const INTERRUPTIBLE_ENV = 'TENDER_INTERRUPTIBLE';

/** `podType` INTERRUPTABLE (RunPod's spelling), or Tender's own env marker. */
export function isInterruptiblePod(pod: Record<string, unknown>): boolean {
  if (typeof pod.podType === 'string' && pod.podType.toUpperCase() === 'INTERRUPTABLE') return true;
  const env: unknown[] = Array.isArray(pod.env) ? pod.env : [];
  return env.includes(`${INTERRUPTIBLE_ENV}=1`);
}

function statusOf(pod: Record<string, unknown>): string | null {
  const s = pod.desiredStatus;
  return typeof s === 'string' && s.trim() ? s.trim().toUpperCase() : null;
}
