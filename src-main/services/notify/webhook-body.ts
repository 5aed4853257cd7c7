import type { Notice } from '../../contract';

/** A Slack-compatible body: Slack reads `text` and ignores the rest; `tender` is for any
 *  other receiver. Built from the notice only (job name, run id, status, reason, cost, each
 *  already scrubbed of secret values): never an environment value. */
export interface WebhookBody {
  text: string;
  tender: {
    event: Notice['event']['kind'];
    key: string;
    runId: string;
    jobName: string;
    status: string;
    reason: string | null;
    costUsd: number;
  };
}

export function webhookBody(n: Notice): WebhookBody {
  const e = n.event;
  return {
    text: `${n.title} — ${n.body}`,
    tender: {
      event: e.kind,
      key: n.key,
      runId: e.runId,
      jobName: e.jobName,
      status: statusOf(n),
      reason: 'reason' in e ? e.reason : null,
      costUsd: Math.round(e.costUsd * 10_000) / 10_000,
    },
  };
}

function statusOf(n: Notice): string {
  const e = n.event;
  switch (e.kind) {
    case 'run.ended':
      return e.status;
    case 'budget.warning':
      return 'running';
    case 'run.recovered':
      return 'recovering';
    case 'lease.interrupted':
      return 'outbid';
    case 'gpu.idle':
      return 'running';
  }
}
