// Being told, end to end on the local provider: a run that ends POSTs once to a real
// receiver on 127.0.0.1 (retried after a 500), with no secret in the body; a reader core
// sends nothing; a restarted writer does not resend.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandInput, RunView } from '../../src-main/contract';
import { TenderCore } from '../../src-main/core/tender-core';
import { agentBundlePath } from '../helpers/agent-bundle';
import { until } from '../helpers/wait';

const SECRET = 'hunter2-notify-s3cret';
const cores: TenderCore[] = [];
const roots: string[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  for (const r of roots.splice(0)) {
    try {
      execFileSync('pkill', ['-KILL', '-f', r]);
    } catch {
      // nothing left running
    }
    rmSync(r, { recursive: true, force: true });
  }
});

/** A webhook receiver on a free port of 127.0.0.1: answers each POST with the next status. */
async function receiver(statuses: number[] = []) {
  const posts: { body: unknown; raw: string }[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      posts.push({ raw, body: JSON.parse(raw) });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/T/B/x`, posts };
}

function open(home: string): TenderCore {
  const core = TenderCore.open({
    home,
    reconcile: false,
    env: { TENDER_AGENT_BUNDLE: agentBundlePath() },
  });
  cores.push(core);
  return core;
}

async function setup(statuses?: number[]) {
  const root = mkdtempSync(join(tmpdir(), 'tender-notify-'));
  roots.push(root);
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hi\n');
  const hook = await receiver(statuses);
  const core = open(home);
  const set = await core.client.invoke('settings.setNotify', {
    notifyDesktop: false,
    webhookUrl: hook.url,
  });
  expect(set.ok).toBe(true);
  return { home, work, core, hook };
}

function start(work: string, verify: string[] = []): CommandInput<'run.start'> {
  return {
    job: {
      name: 'notify-test',
      run: 'cat hello.txt',
      workspace: { workdir: work, exclude: [] },
      env: { API_TOKEN: { secret: true, value: SECRET }, PLAIN: 'plain' },
    },
    pool: { provider: 'local', count: 1, verify },
    keep: false,
  };
}

async function runToEnd(core: TenderCore, input: CommandInput<'run.start'>): Promise<RunView> {
  const started = await core.client.invoke('run.start', input);
  if (!started.ok) throw new Error(started.error.message);
  await core.waitRun(started.value.id);
  return core.runView(started.value.id);
}

/** Waits until the writer has journaled the outcome of a notice for the run. */
function told(core: TenderCore, runId: string) {
  return until(() =>
    core.ledger.journal(runId).find((e) => e.kind === 'notify.sent' || e.kind === 'notify.failed'),
  );
}

describe('notifications: the webhook', () => {
  it('a run that completes POSTs exactly once, Slack-shaped, without the secret', async () => {
    const { core, work, hook } = await setup();
    const run = await runToEnd(core, start(work));
    expect(run.status).toBe('completed');
    expect(await told(core, run.id)).toMatchObject({
      kind: 'notify.sent',
      data: { key: `run.ended:${run.id}:completed`, via: ['webhook'], attempts: 1 },
    });
    await core.close(); // drains: anything still being sent has arrived by now
    cores.splice(cores.indexOf(core), 1);
    expect(hook.posts).toHaveLength(1);
    expect(hook.posts[0]!.body).toEqual({
      text: `notify-test completed — Run ${run.id} completed · $0.00`,
      tender: {
        event: 'run.ended',
        key: `run.ended:${run.id}:completed`,
        runId: run.id,
        jobName: 'notify-test',
        status: 'completed',
        reason: run.failedReason,
        costUsd: 0,
      },
    });
    expect(hook.posts[0]!.raw).not.toContain(SECRET);
  });

  it('a run that recovers is told once for its second attempt, with the reason, then once more when it ends', async () => {
    const { core, work, hook } = await setup();
    const input = start(work);
    input.job.run =
      'if [ "$TENDER_ATTEMPT" = 0 ]; then exit 137; fi; echo "attempt $TENDER_ATTEMPT"';
    input.job.recovery = { max_restarts: 1, on: ['exit_code:137'] };
    const run = await runToEnd(core, input);
    expect(run.status, run.failedReason ?? '').toBe('completed');
    await until(() => hook.posts.length >= 2);
    await core.close();
    cores.splice(cores.indexOf(core), 1);
    const events = hook.posts.map((p) => (p.body as { tender: { key: string } }).tender);
    expect(events.map((e) => e.key)).toEqual([
      `run.recovered:${run.id}:attempt-2`,
      `run.ended:${run.id}:completed`,
    ]);
    expect(events[0]).toMatchObject({ event: 'run.recovered', status: 'recovering' });
    expect((hook.posts[0]!.body as { text: string }).text).toMatch(/exit|137/);
    expect(hook.posts.map((p) => p.raw).join('')).not.toContain(SECRET);
  });

  it('a failure whose reason echoes a secret value is told with the value redacted', async () => {
    const { core, work, hook } = await setup();
    const run = await runToEnd(core, start(work, [`echo ${SECRET} >/dev/null; exit 7`]));
    expect(run.status).toBe('failed');
    // The precondition that makes this test mean something: the reason does carry it.
    expect(run.failedReason).toContain(SECRET);
    await told(core, run.id);
    expect(hook.posts).toHaveLength(1);
    expect(hook.posts[0]!.raw).not.toContain(SECRET);
    expect(hook.posts[0]!.body).toMatchObject({
      text: expect.stringContaining('verify command `echo *** >/dev/null; exit 7` exited 7'),
      tender: { status: 'failed', reason: expect.stringContaining('echo ***') },
    });
  });

  it('a 500 is retried once, then the 200 is the end of it', async () => {
    const { core, work, hook } = await setup([500, 200]);
    const run = await runToEnd(core, start(work));
    expect(await told(core, run.id)).toMatchObject({
      kind: 'notify.sent',
      data: { attempts: 2 },
    });
    expect(hook.posts).toHaveLength(2);
    expect(hook.posts[1]!.raw).toBe(hook.posts[0]!.raw);
  });

  it('a reader core sends nothing; the writer, told the same, does', async () => {
    const { core, home, work, hook } = await setup();
    const run = await runToEnd(core, start(work));
    await told(core, run.id);
    expect(hook.posts).toHaveLength(1);
    const reader = TenderCore.openReadonly({
      home,
      env: { TENDER_AGENT_BUNDLE: agentBundlePath() },
    })!;
    const other: RunView = {
      ...run,
      status: 'failed',
      failedReason: 'made up',
      endedAt: Date.now(),
    };
    reader.bus.emit('run.changed', other);
    await reader.close(); // a reader that had started a send would finish it here
    expect(hook.posts).toHaveLength(1);
    // The control: the same view on the writer's bus is told.
    core.bus.emit('run.changed', other);
    await until(
      () => core.ledger.journal(run.id).filter((e) => e.kind === 'notify.sent').length === 2,
    );
    expect(hook.posts).toHaveLength(2);
  });

  it('a restarted writer does not resend what an earlier one sent', async () => {
    const { core, home, work, hook } = await setup();
    const run = await runToEnd(core, start(work));
    await told(core, run.id);
    await core.close();
    cores.splice(cores.indexOf(core), 1);
    const again = open(home);
    // A later change to the ended run (a lease row, a collect) brings its view round again.
    again.bus.emit('run.changed', again.runView(run.id));
    await again.close();
    cores.splice(cores.indexOf(again), 1);
    expect(hook.posts).toHaveLength(1);
    const reopened = open(home);
    expect(
      reopened.ledger
        .journal(run.id)
        .filter((e) => e.kind.startsWith('notify.'))
        .map((e) => e.kind),
    ).toEqual(['notify.sending', 'notify.sent']);
  });
});
