// What Tender says when a run ends, a node is outbid or a budget runs low while nobody is
// looking: one definition for the core (desktop notification, webhook) and the renderer (the
// browser's notification in web mode), which may import only the contract. Pure.
import type { JobStatus } from './stages';

/** The events a person is told about: a run's end, a recovery, an interruptible lease
 *  taken back, a budget running low, GPUs left idle (the GPU idle rule's `notify`). */
export type NoticeEvent =
  | {
      kind: 'run.ended';
      runId: string;
      jobName: string;
      status: Extract<JobStatus, 'completed' | 'failed' | 'cancelled'>;
      /** Why it failed or was stopped; the caller has already redacted it (or passes null). */
      reason: string | null;
      costUsd: number;
    }
  | {
      kind: 'budget.warning';
      runId: string;
      jobName: string;
      costUsd: number;
      budgetUsd: number;
    }
  | {
      kind: 'run.recovered';
      runId: string;
      jobName: string;
      /** The attempt that starts now (2 for the first recovery). */
      attempt: number;
      reason: string | null;
      costUsd: number;
    }
  | {
      /** The GPU idle rule fired with `then = "notify"` on a node: the job goes on. */
      kind: 'gpu.idle';
      runId: string;
      jobName: string;
      nodeName: string;
      /** When it fired (node clock): a new idle stretch is a new notice. */
      at: number;
      reason: string | null;
      costUsd: number;
    }
  | {
      kind: 'lease.interrupted';
      runId: string;
      jobName: string;
      leaseId: string;
      reason: string | null;
      costUsd: number;
    };
export type NoticeKind = NoticeEvent['kind'];

export interface Notice {
  /** One event is told once: `kind:runId:status` (the status, attempt or lease that makes
   *  this event distinct from the run's others). */
  key: string;
  title: string;
  body: string;
  event: NoticeEvent;
}

/** A reason is a line in a notification, not a log: long ones are cut. */
export const NOTICE_REASON_MAX = 240;

/** The dedupe key: event kind + run id + what distinguishes it (status, attempt, lease). */
export function noticeKey(e: NoticeEvent): string {
  switch (e.kind) {
    case 'run.ended':
      return `${e.kind}:${e.runId}:${e.status}`;
    case 'budget.warning':
      return `${e.kind}:${e.runId}:running`;
    case 'run.recovered':
      return `${e.kind}:${e.runId}:attempt-${e.attempt}`;
    case 'lease.interrupted':
      return `${e.kind}:${e.runId}:${e.leaseId}`;
    case 'gpu.idle':
      return `${e.kind}:${e.runId}:${e.nodeName}:${e.at}`;
  }
}

/** The words for an event. Built from job name, run id, status, reason and cost only —
 *  never an environment value. */
export function noticeFor(e: NoticeEvent): Notice {
  const cost = `$${e.costUsd.toFixed(2)}`;
  const why = 'reason' in e && e.reason ? `: ${shortReason(e.reason)}` : '';
  const said = ((): { title: string; body: string } => {
    switch (e.kind) {
      case 'run.ended':
        return {
          title: `${e.jobName} ${e.status}`,
          // A completed run's reason is a note; a cancel's is usually the word itself.
          body: `Run ${e.runId} ${e.status}${e.status === 'completed' || e.reason === e.status ? '' : why} · ${cost}`,
        };
      case 'budget.warning':
        return {
          title: `${e.jobName}: ${Math.round((e.costUsd / e.budgetUsd) * 100)}% of its budget`,
          body: `Run ${e.runId} has spent ${cost} of $${e.budgetUsd.toFixed(2)}; it stops at the budget`,
        };
      case 'run.recovered':
        return {
          title: `${e.jobName} recovered`,
          body: `Run ${e.runId} lost its node${why}; attempt ${e.attempt} is starting · ${cost}`,
        };
      case 'gpu.idle':
        return {
          title: `${e.jobName}: GPUs idle`,
          body: `Run ${e.runId}, ${e.nodeName}${why}; the job goes on · ${cost}`,
        };
      case 'lease.interrupted':
        return {
          title: `${e.jobName}: outbid`,
          body: `Lease ${e.leaseId} of run ${e.runId} was outbid and stopped${why} · ${cost}`,
        };
    }
  })();
  return { key: noticeKey(e), ...said, event: e };
}

function shortReason(reason: string): string {
  const line = reason.replace(/\s+/g, ' ').trim();
  return line.length > NOTICE_REASON_MAX ? `${line.slice(0, NOTICE_REASON_MAX - 1)}…` : line;
}

const THIS_MACHINE = ['localhost', '127.0.0.1', '[::1]'];

/** Why a webhook URL cannot be used, or null when it can: https, or plain http to this
 *  machine only (the rule the providers' base URLs follow); no user:password (put a token
 *  in the path, as Slack does). */
export function webhookUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL: it starts with https://';
  }
  const isLocal = THIS_MACHINE.includes(url.hostname);
  if (url.protocol === 'http:' && !isLocal)
    return 'https only (plain http only to localhost or 127.0.0.1)';
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'an https:// URL, please';
  if (url.username || url.password) return 'no user:password in the URL; put the token in the path';
  return null;
}
