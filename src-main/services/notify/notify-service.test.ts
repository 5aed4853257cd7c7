import { describe, expect, it } from 'vitest';
import { EventBus } from '../../base/event-bus';
import type { Notice, RunView } from '../../contract';
import { leaseView } from '../../contract/lease-view.test-util';
import { runView } from '../../contract/run-view.test-util';
import type { JournalEvent } from '../../ledger/rows';
import type { NotifySettings } from '../settings/settings-store';
import { NotifyService } from './notify-service';
import { SecretMemory } from './secret-memory';
import type { WebhookBody } from './webhook-body';

const NOW = 1_000_000_000;
const URL_ = 'https://hooks.example.com/services/T/B/token';

/** A journal in memory (the real one is a SQLite table; the service reads and appends). */
function journal() {
  const rows: JournalEvent[] = [];
  return {
    rows,
    append: (e: Omit<JournalEvent, 'seq'>) => void rows.push({ ...e, seq: rows.length + 1 }),
    journal: (runId?: string) => rows.filter((r) => runId === undefined || r.runId === runId),
  };
}

function setup(
  o: {
    settings?: Partial<NotifySettings>;
    statuses?: number[];
    desktop?: boolean | null;
    ledger?: ReturnType<typeof journal>;
    secrets?: SecretMemory;
  } = {},
) {
  const bus = new EventBus();
  const ledger = o.ledger ?? journal();
  const posts: WebhookBody[] = [];
  const shown: Notice[] = [];
  const statuses = [...(o.statuses ?? [])];
  const service = new NotifyService({
    ledger,
    bus,
    now: () => NOW,
    settings: () => ({ notifyDesktop: true, webhookUrl: URL_, ...o.settings }),
    runView: (id) => (id === 'r-abc123' ? runView({ status: 'running' }) : null),
    redactor: () => (o.secrets ?? new SecretMemory()).redactor(),
    desktop:
      o.desktop === null
        ? undefined
        : (n) => {
            if (o.desktop === false) return false; // someone looks at the window
            shown.push(n);
            return true;
          },
    webhook: {
      sleep: async () => undefined,
      fetch: (async (_url: string, init: RequestInit) => {
        posts.push(JSON.parse(String(init.body)) as WebhookBody);
        return new Response('', { status: statuses.shift() ?? 200 });
      }) as typeof fetch,
    },
  });
  service.start();
  return { bus, ledger, posts, shown, service };
}

const failed = runView({
  status: 'failed',
  endedAt: NOW - 1_000,
  failedReason: 'node-0: run exited 3',
  cost: { accruedUsd: 0.42 },
});
const kinds = (l: ReturnType<typeof journal>) => l.rows.map((r) => r.kind);

describe('NotifyService', () => {
  it('tells a run that ended once: a desktop notification and one POST, journaled', async () => {
    const { bus, ledger, posts, shown, service } = setup();
    bus.emit('run.changed', failed);
    bus.emit('run.changed', failed); // a later view of the same end (a lease destroyed)
    await service.idle();
    expect(shown.map((n) => n.title)).toEqual(['train failed']);
    expect(posts).toEqual([
      {
        text: 'train failed — Run r-abc123 failed: node-0: run exited 3 · $0.42',
        tender: {
          event: 'run.ended',
          key: 'run.ended:r-abc123:failed',
          runId: 'r-abc123',
          jobName: 'train',
          status: 'failed',
          reason: 'node-0: run exited 3',
          costUsd: 0.42,
        },
      },
    ]);
    expect(ledger.rows.map((r) => [r.kind, r.runId, r.data])).toEqual([
      [
        'notify.sending',
        'r-abc123',
        { key: 'run.ended:r-abc123:failed', channels: ['desktop', 'webhook'] },
      ],
      [
        'notify.sent',
        'r-abc123',
        { key: 'run.ended:r-abc123:failed', via: ['desktop', 'webhook'], attempts: 1 },
      ],
    ]);
  });

  it('a later writer over the same journal does not tell it again', async () => {
    const first = setup();
    first.bus.emit('run.changed', failed);
    await first.service.close();
    const second = setup({ ledger: first.ledger });
    second.bus.emit('run.changed', failed);
    await second.service.idle();
    expect(second.posts).toEqual([]);
    expect(second.shown).toEqual([]);
    expect(kinds(first.ledger)).toEqual(['notify.sending', 'notify.sent']);
  });

  it('retries a 500 and journals the attempts; gives up after the last with notify.failed', async () => {
    const once = setup({ statuses: [500, 200], desktop: null });
    once.bus.emit('run.changed', failed);
    await once.service.idle();
    expect(once.posts).toHaveLength(2);
    expect(once.ledger.rows.at(-1)).toMatchObject({ kind: 'notify.sent', data: { attempts: 2 } });

    const never = setup({ statuses: [500, 500, 500, 500], desktop: null });
    never.bus.emit('run.changed', failed);
    await never.service.idle();
    expect(never.posts).toHaveLength(4);
    expect(never.ledger.rows.map((r) => [r.kind, r.data.error])).toEqual([
      ['notify.sending', undefined],
      ['notify.failed', 'https://hooks.example.com answered 500'],
    ]);
  });

  it('shows no desktop notification while someone looks at the window, still POSTs', async () => {
    const { bus, ledger, posts, service } = setup({ desktop: false });
    bus.emit('run.changed', failed);
    await service.idle();
    expect(posts).toHaveLength(1);
    expect(ledger.rows.at(-1)!.data.via).toEqual(['webhook']);
  });

  it('with nothing configured, tells nothing and claims nothing', async () => {
    const { bus, ledger, service } = setup({
      settings: { notifyDesktop: false, webhookUrl: null },
    });
    bus.emit('run.changed', failed);
    await service.idle();
    expect(ledger.rows).toEqual([]);
  });

  it('journals a webhook URL the rules refuse (edited by hand) as failed, sends nothing', async () => {
    const { bus, ledger, posts, service } = setup({
      settings: { webhookUrl: 'http://example.com/hook' },
      desktop: null,
    });
    bus.emit('run.changed', failed);
    await service.idle();
    expect(posts).toEqual([]);
    expect(ledger.rows.at(-1)).toMatchObject({
      kind: 'notify.failed',
      data: { error: expect.stringMatching(/https only/) },
    });
  });

  it('tells a budget warning while the run runs, once; not for a run that already ended', async () => {
    const { bus, posts, service } = setup({ desktop: null });
    const warned = runView({
      cost: { accruedUsd: 8.5, budgetUsd: 10, budgetFraction: 0.85, budgetWarning: true },
    });
    bus.emit('run.changed', runView({ cost: { budgetUsd: 10, budgetFraction: 0.5 } }));
    bus.emit('run.changed', warned);
    bus.emit('run.changed', warned);
    await service.idle();
    expect(posts.map((p) => p.tender.key)).toEqual(['budget.warning:r-abc123:running']);
    expect(posts[0]!.text).toBe(
      'train: 85% of its budget — Run r-abc123 has spent $8.50 of $10.00; it stops at the budget',
    );
  });

  it('ignores a run that ended long ago (old news) and runs that have not ended', async () => {
    const { bus, posts, service } = setup({ desktop: null });
    bus.emit('run.changed', { ...failed, endedAt: NOW - 13 * 3_600_000 });
    bus.emit('run.changed', runView({ status: 'pending' }));
    bus.emit('run.changed', runView({ status: 'running' }));
    await service.idle();
    expect(posts).toEqual([]);
  });

  it('tells an outbid lease (lease.changed with interruption: outbid) and a recovery', async () => {
    const { bus, posts, service } = setup({ desktop: null });
    const outbid = leaseView({ runId: 'r-abc123', leaseId: 'vastai:7', interruption: 'outbid' });
    bus.emit('lease.changed', outbid);
    bus.emit('lease.changed', outbid);
    bus.emit('lease.changed', leaseView({ runId: 'r-abc123', leaseId: 'vastai:8' }));
    service.runRecovered('r-abc123', 2, 'instance exited');
    await service.idle();
    expect(posts.map((p) => p.tender.key)).toEqual([
      'lease.interrupted:r-abc123:vastai:7',
      'run.recovered:r-abc123:attempt-2',
    ]);
  });

  it('never puts a job secret in a notification or a body, even when the reason echoes it', async () => {
    const secrets = new SecretMemory();
    secrets.rememberJob(
      {
        name: 'train',
        run: 'true',
        env: { TOKEN: { secret: true, value: 'hunter2-s3cret' }, PLAIN: 'x' },
      } as never,
      {},
    );
    const { bus, posts, shown, service } = setup({ secrets });
    bus.emit('run.changed', {
      ...failed,
      failedReason: 'verify `curl -H "auth: hunter2-s3cret"` exited 7',
    });
    await service.idle();
    const told = JSON.stringify([posts, shown]);
    expect(told).not.toContain('hunter2-s3cret');
    expect(posts[0]!.tender.reason).toBe('verify `curl -H "auth: ***"` exited 7');
  });

  it('tells a GPU idle rule that notified once per idle stretch; a stop is told as the end', async () => {
    const { bus, posts, shown, service } = setup();
    const fired = (at: number, did: 'notified' | 'stopped_job') => ({
      at,
      rule: { belowPct: 10, forMs: 1_800_000, then: 'notify' as const },
      idleForMs: 1_800_000,
      did,
      reason: 'GPU idle rule: every GPU under 10% for 30m while the job ran',
    });
    const node = (f: ReturnType<typeof fired>) =>
      ({ logicalId: 'node-0', gpuIdleFired: f }) as unknown as RunView['nodes'][number];
    const running = runView({ status: 'running', cost: { accruedUsd: 0.5 } });
    bus.emit('run.changed', { ...running, nodes: [node(fired(NOW - 60_000, 'notified'))] });
    bus.emit('run.changed', { ...running, nodes: [node(fired(NOW - 60_000, 'notified'))] });
    bus.emit('run.changed', { ...running, nodes: [node(fired(NOW - 1_000, 'notified'))] });
    bus.emit('run.changed', { ...running, nodes: [node(fired(NOW - 500, 'stopped_job'))] });
    await service.idle();
    expect(shown.map((n) => n.title)).toEqual(['train: GPUs idle', 'train: GPUs idle']);
    expect(posts.map((p) => [p.tender.event, p.tender.status])).toEqual([
      ['gpu.idle', 'running'],
      ['gpu.idle', 'running'],
    ]);
    expect(posts[0]!.text).toContain('node-0: GPU idle rule: every GPU under 10% for 30m');
  });

  it('stops listening on close', async () => {
    const { bus, posts, service } = setup({ desktop: null });
    await service.close();
    bus.emit('run.changed', failed);
    await service.idle();
    expect(posts).toEqual([]);
  });
});
