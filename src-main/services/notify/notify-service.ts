import type { EventBus } from '../../base/event-bus';
import {
  noticeFor,
  noticeKey,
  webhookUrlProblem,
  type LeaseView,
  type Notice,
  type NoticeEvent,
  type RunView,
} from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import type { NotifySettings } from '../settings/settings-store';
import { gpuIdleNoticeEvents, isOutbid, runNoticeEvent } from './run-notices';
import { webhookBody } from './webhook-body';
import { sendWebhook, type WebhookOptions, type WebhookResult } from './webhook-sender';

/** How long closing waits for a webhook still being tried before it gives up on it (a CLI
 *  that ran the job exits soon after the run ends). */
const CLOSE_WAIT_MS = 5_000;

export interface NotifyDeps {
  ledger: Pick<Ledger, 'append' | 'journal'>;
  bus: EventBus;
  now: () => number;
  settings: () => NotifySettings;
  /** A run's view (the name and cost a lease's notice needs); null when unknown. */
  runView: (runId: string) => RunView | null;
  /** Each node's attempt of a run (0: the first): a node past its first has recovered. */
  attempts?: (runId: string) => { nodeId: string; attempt: number }[];
  /** Why a node's attempt began (asked once per attempt told). */
  recoveredFrom?: (runId: string, nodeId: string, attempt: number) => string | null;
  /** Scrubs free text (a job name, a failure reason) of secret values. */
  redactor: () => (text: string) => string;
  /** The desktop shell's notification; it shows one only when nobody looks at the window,
   *  and says whether it did. Absent: no desktop here (CLI, web mode: the browser's). */
  desktop?: (notice: Notice) => boolean;
  webhook?: Pick<WebhookOptions, 'fetch' | 'sleep' | 'delaysMs' | 'timeoutMs'>;
}

/**
 * Being told: a run that ended, a budget warning, a node outbid or a recovery raises a desktop notification and a POST to the webhook. Built
 * only in the ledger's writer, so readers never send. Each event is told at most once, across
 * restarts too: its key is claimed in the journal (`notify.sending {key}`) before anything is
 * sent, then the outcome is journaled (`notify.sent {key, via}` or `notify.failed {key,
 * error}`). A crash between claim and outcome loses that one notice rather than repeating it.
 */
/** The fields of a recovery notice its key does not depend on (noticeKey). */
const RECOVERED_KEY = { kind: 'run.recovered', jobName: '', reason: null, costUsd: 0 } as const;

export class NotifyService {
  /** Keys decided in this process: the journal is read once per key, not per event. */
  private readonly seen = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly closing = new AbortController();
  private offs: (() => void)[] = [];

  constructor(private readonly d: NotifyDeps) {}

  start(): void {
    this.offs = [
      this.d.bus.on('run.changed', (run) => {
        const e = runNoticeEvent(run, this.d.now(), this.d.redactor());
        if (e) this.raise(e);
        for (const idle of gpuIdleNoticeEvents(run, this.d.now(), this.d.redactor()))
          this.raise(idle);
        if (run.status !== 'pending' && run.status !== 'running') return;
        for (const a of this.d.attempts?.(run.id) ?? []) {
          const key = noticeKey({ ...RECOVERED_KEY, runId: run.id, attempt: a.attempt + 1 });
          if (a.attempt === 0 || this.seen.has(key)) continue;
          const why = this.d.recoveredFrom?.(run.id, a.nodeId, a.attempt) ?? null;
          this.runRecovered(run.id, a.attempt + 1, why);
        }
      }),
      this.d.bus.on('lease.changed', (lease) => this.onLease(lease)),
    ];
  }

  /** A run's replacement attempt (`attempt`, counted from 1) started: told once per run
   *  and attempt (from `run.changed`, via `attempts`). */
  runRecovered(runId: string, attempt: number, reason: string | null): void {
    const run = this.d.runView(runId);
    if (!run) return;
    const redact = this.d.redactor();
    this.raise({
      kind: 'run.recovered',
      runId,
      jobName: redact(run.jobName),
      attempt,
      reason: reason === null ? null : redact(reason),
      costUsd: run.cost.accruedUsd,
    });
  }

  /** A lease was outbid: called from `lease.changed` when its view says `interruption:
   *  'outbid'` (the ledger journals `lease.interrupted` in the same change). */
  leaseInterrupted(lease: Pick<LeaseView, 'runId' | 'leaseId' | 'label' | 'reason'>): void {
    const run = lease.runId === null ? null : this.d.runView(lease.runId);
    if (!run) return;
    const redact = this.d.redactor();
    this.raise({
      kind: 'lease.interrupted',
      runId: run.id,
      jobName: redact(run.jobName),
      leaseId: lease.leaseId ?? lease.label,
      reason: lease.reason === null ? null : redact(lease.reason),
      costUsd: run.cost.accruedUsd,
    });
  }

  /** Tells one event, unless it was told before (here or by an earlier writer). */
  raise(event: NoticeEvent): void {
    const notice = noticeFor(event);
    if (this.seen.has(notice.key) || this.closing.signal.aborted) return;
    this.seen.add(notice.key);
    const p = this.tell(notice)
      .catch((err: unknown) => console.error(`tender: notice ${notice.key} failed:`, err))
      .finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** Resolves when every notice raised so far is sent or given up. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Stops listening; waits a little for webhooks still being tried, then stops them (each
   *  journals its outcome before this resolves, while the ledger is still open). */
  async close(): Promise<void> {
    for (const off of this.offs) off();
    this.offs = [];
    const waited = new Promise<void>((r) => setTimeout(r, CLOSE_WAIT_MS).unref());
    await Promise.race([this.idle(), waited]);
    this.closing.abort();
    await this.idle();
  }

  private onLease(lease: LeaseView): void {
    if (isOutbid(lease)) this.leaseInterrupted(lease);
  }

  private async tell(notice: Notice): Promise<void> {
    const { ledger, now } = this.d;
    const settings = this.d.settings();
    const desktop = settings.notifyDesktop ? this.d.desktop : undefined;
    const url = settings.webhookUrl;
    if (!desktop && !url) return; // nothing to tell with; nothing claimed
    const runId = notice.event.runId;
    if (this.wasTold(runId, notice.key)) return;
    const channels = [...(desktop ? ['desktop'] : []), ...(url ? ['webhook'] : [])];
    ledger.append({
      ts: now(),
      runId,
      nodeId: null,
      kind: 'notify.sending',
      data: { key: notice.key, channels },
    });
    const via: string[] = [];
    if (desktop && showSafely(desktop, notice)) via.push('desktop');
    let webhook: WebhookResult | null = null;
    if (url) {
      const problem = webhookUrlProblem(url);
      webhook = problem
        ? { ok: false, attempts: 0, error: `webhook URL refused: ${problem} (Settings)` }
        : await sendWebhook(url, webhookBody(notice), {
            ...this.d.webhook,
            signal: this.closing.signal,
          });
      if (webhook.ok) via.push('webhook');
    }
    const attempts = webhook?.attempts ?? 0;
    if (via.length > 0)
      ledger.append({
        ts: now(),
        runId,
        nodeId: null,
        kind: 'notify.sent',
        data: { key: notice.key, via, attempts },
      });
    if (webhook && !webhook.ok)
      ledger.append({
        ts: now(),
        runId,
        nodeId: null,
        kind: 'notify.failed',
        data: { key: notice.key, error: webhook.error, attempts },
      });
  }

  private wasTold(runId: string, key: string): boolean {
    return this.d.ledger
      .journal(runId)
      .some((e) => e.kind.startsWith('notify.') && e.data.key === key);
  }
}

function showSafely(desktop: (n: Notice) => boolean, notice: Notice): boolean {
  try {
    return desktop(notice);
  } catch (err) {
    console.error('tender: the desktop notification failed:', err);
    return false;
  }
}
