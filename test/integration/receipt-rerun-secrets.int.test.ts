// `rerun --receipt … --secret K` on the local provider, with a real ledger file and a real
// webhook receiver on 127.0.0.1: the value reaches the job and nothing Tender keeps or says
// (a notice, a webhook body, the ledger's bytes, a log line); and the run pre-flight (the
// provider's key, its judgement of the pool) refuses a receipt rerun as it refuses run.start.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TenderError } from '../../src-main/base/tender-error';
import type { CommandInput, Notice, Receipt, RunView } from '../../src-main/contract';
import { TenderCore } from '../../src-main/core/tender-core';
import { LocalProvider } from '../../src-main/providers/local/local-provider';
import { agentBundlePath } from '../helpers/agent-bundle';
import { until } from '../helpers/wait';

const FIRST = 'first-run-s3cret-value';
const GIVEN = 'receipt-rerun-s3cret-value';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

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

async function receiver() {
  const posts: string[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      posts.push(raw);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/T/B/x`, posts };
}

/** A writer core whose local provider can be told it has no key, or that it refuses pools
 *  (what a marketplace's pre-flight does), with the desktop notices it was asked to show. */
async function setup() {
  const root = mkdtempSync(join(tmpdir(), 'tender-receipt-secrets-'));
  roots.push(root);
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hi\n');
  const local = { hasKey: true, refusal: null as string | null, checked: 0 };
  const desktop: Notice[] = [];
  const core = TenderCore.open({
    home,
    reconcile: false,
    env: { TENDER_AGENT_BUNDLE: agentBundlePath() },
    hooks: { notify: (n) => (desktop.push(n), true) },
    providers: (d) => {
      const p = new LocalProvider(d.home, d.now);
      return [
        Object.assign(p, {
          isConfigured: () => local.hasKey,
          checkPool: async () => {
            local.checked += 1;
            if (local.refusal) throw new TenderError('bad_input', local.refusal);
          },
        }),
      ];
    },
  });
  cores.push(core);
  const hook = await receiver();
  const set = await core.client.invoke('settings.setNotify', {
    notifyDesktop: true,
    webhookUrl: hook.url,
  });
  expect(set.ok).toBe(true);
  return { root, home, work, core, hook, desktop, local };
}

/** Prints the secret (which the agent redacts) and its hash (which shows it arrived). */
function job(work: string): CommandInput<'run.start'> {
  return {
    job: {
      name: 'receipt-secret',
      run: 'echo "token=$API_TOKEN"; echo "token=$API_TOKEN" >&2; printf %s "$API_TOKEN" | sha256sum',
      workspace: { workdir: work, exclude: [] },
      env: { API_TOKEN: { secret: true, value: FIRST } },
    },
    pool: { provider: 'local', count: 1 },
    keep: false,
  };
}

async function ranOnce(core: TenderCore, work: string): Promise<Receipt> {
  const started = await core.client.invoke('run.start', job(work));
  if (!started.ok) throw new Error(started.error.message);
  await core.waitRun(started.value.id);
  expect(core.runView(started.value.id).status).toBe('completed');
  const receipts = await core.client.invoke('run.receipts', { runId: started.value.id });
  if (!receipts.ok) throw new Error(receipts.error.message);
  return receipts.value[0]!;
}

/** Every line of the run's log, of every channel and node. */
async function logLines(core: TenderCore, runId: string): Promise<string[]> {
  const r = await core.client.invoke('logs.read', { runId, fromSeq: 1, limit: 10_000 });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.records.map((rec) => rec.line);
}

/** Every file under `dir`, except the local nodes' own folders (the node is where the job
 *  is given its secret), as bytes. */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    if (path.startsWith(join(dir, 'local', 'leases'))) continue;
    out.push({ path, bytes: readFileSync(path) });
  }
  return out;
}

describe('rerun --receipt with --secret', () => {
  it('gives the job the value, and no notice, webhook body, ledger byte or log line carries it', async () => {
    const { home, work, core, hook, desktop } = await setup();
    const receipt = await ranOnce(core, work);

    const again = await core.client.invoke('run.fromReceipt', {
      receipt,
      secrets: { API_TOKEN: GIVEN },
    });
    if (!again.ok) throw new Error(again.error.message);
    const runId = again.value.run.id;
    await core.waitRun(runId);
    expect(core.runView(runId).status).toBe('completed');
    const told = () => core.ledger.journal(runId).filter((e) => e.kind === 'notify.sent').length;
    await until(() => told() === 1);
    // A failure reason can carry a command line that holds the value: one that does is told
    // scrubbed (the writer tells any view of the run that reaches its bus).
    const failed: RunView = {
      ...core.runView(runId),
      status: 'failed',
      failedReason: `verify command \`check --token ${GIVEN}\` exited 7`,
      endedAt: Date.now(),
    };
    core.bus.emit('run.changed', failed);
    await until(() => told() === 2);

    // The precondition that makes the rest mean something: the job had the given value.
    const lines = await logLines(core, runId);
    expect(lines.join('\n')).toContain(sha256(GIVEN));
    expect(lines.join('\n')).not.toContain(sha256(FIRST));
    expect(lines.some((l) => l.includes('token=***'))).toBe(true);
    expect(lines.filter((l) => l.includes(GIVEN))).toEqual([]);

    // The first run is told too: each notice of the rerun is told once.
    const ofRerun = hook.posts.filter((raw) => raw.includes(runId));
    expect(ofRerun).toHaveLength(2);
    expect(ofRerun[1]).toContain('check --token ***');
    for (const raw of hook.posts) for (const s of [GIVEN, FIRST]) expect(raw).not.toContain(s);
    expect(desktop.map((n) => n.key).filter((k) => k.includes(runId))).toEqual([
      `run.ended:${runId}:completed`,
      `run.ended:${runId}:failed`,
    ]);
    expect(JSON.stringify(desktop)).toContain('***');
    for (const s of [GIVEN, FIRST]) expect(JSON.stringify(desktop)).not.toContain(s);

    expect(JSON.stringify(core.ledger.journal(runId))).not.toContain(GIVEN);
    await core.close(); // the ledger's WAL checkpointed, the datastream flushed
    cores.splice(cores.indexOf(core), 1);
    const files = filesUnder(home);
    expect(files.map((f) => f.path)).toContain(join(home, 'ledger.sqlite'));
    for (const secret of [GIVEN, FIRST]) {
      const holding = files.filter((f) => f.bytes.includes(secret)).map((f) => f.path);
      expect(holding, secret).toEqual([]);
    }
  });

  it('is refused by the run pre-flight as run.start is: a provider with no key, a pool it refuses', async () => {
    const { core, work, local } = await setup();
    const receipt = await ranOnce(core, work);
    const runsBefore = core.ledger.listRuns().length;

    local.hasKey = false;
    const start = await core.client.invoke('run.start', job(work));
    const rerun = await core.client.invoke('run.fromReceipt', {
      receipt,
      secrets: { API_TOKEN: GIVEN },
    });
    expect(start.ok || start.error).toMatchObject({
      code: 'bad_input',
      message: 'local is not configured: it has no API key',
    });
    expect(rerun.ok || rerun.error).toEqual(start.ok || start.error);

    local.hasKey = true;
    local.refusal = 'a bid above the on-demand price rents nothing cheaper; use on-demand';
    const checkedBefore = local.checked;
    const start2 = await core.client.invoke('run.start', job(work));
    const rerun2 = await core.client.invoke('run.fromReceipt', {
      receipt,
      secrets: { API_TOKEN: GIVEN },
    });
    expect(start2.ok || start2.error).toMatchObject({ code: 'bad_input', message: local.refusal });
    expect(rerun2.ok || rerun2.error).toEqual(start2.ok || start2.error);
    expect(local.checked - checkedBefore).toBe(2);
    expect(core.ledger.listRuns()).toHaveLength(runsBefore);
  });
});
