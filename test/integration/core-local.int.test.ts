import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandInput, JobSpecInput, NodeView } from '../../src-main/contract';
import { TenderCore } from '../../src-main/core/tender-core';
import { TenderError } from '../../src-main/base/tender-error';
import { agentBundlePath } from '../helpers/agent-bundle';

const cores: TenderCore[] = [];
const roots: string[] = [];

afterEach(async () => {
  for (const c of cores.splice(0)) await c.close();
  for (const r of roots.splice(0)) {
    try {
      execFileSync('pkill', ['-KILL', '-f', r]);
    } catch {
      // nothing left running
    }
    rmSync(r, { recursive: true, force: true });
  }
});

function setup() {
  const root = mkdtempSync(join(tmpdir(), 'tender-core-'));
  roots.push(root);
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'hello.txt'), 'hi\n');
  const core = TenderCore.open({ home, env: { TENDER_AGENT_BUNDLE: agentBundlePath() } });
  cores.push(core);
  return { root, home, work, core };
}

function job(work: string, extra: Partial<JobSpecInput> = {}): JobSpecInput {
  return { name: 't', run: 'cat hello.txt', workspace: { workdir: work, exclude: [] }, ...extra };
}

async function runToEnd(core: TenderCore, input: CommandInput<'run.start'>) {
  const started = await core.client.invoke('run.start', input);
  if (!started.ok) throw new Error(started.error.message);
  await core.waitRun(started.value.id);
  const view = await core.client.invoke('run.get', { runId: started.value.id });
  if (!view.ok) throw new Error(view.error.message);
  return view.value;
}

describe('the core on the local provider, through the contract', () => {
  it('records intent before every effect and is ready only once the bootstrap has closed', async () => {
    const { core, work } = setup();
    const seen: NodeView[] = [];
    core.bus.on('node.changed', (n) => seen.push(n));
    const run = await runToEnd(core, {
      job: job(work),
      pool: { provider: 'local', count: 1, verify: [] },
      keep: false,
    });
    expect(run.status).toBe('completed');

    const steps = core.ledger
      .journal(run.id)
      .filter((e) => e.kind === 'node.step')
      .map((e) => `${String(e.data.msg)}:${String(e.data.to)}`);
    // The lease intent (lease_requested) is committed before the create's result arrives, the
    // lease is committed as soon as create returns, and destroyed only after confirmation.
    expect(steps.slice(0, 3)).toEqual([
      'Start:lease_requested',
      'LeaseCreated:endpoint_known',
      'BootstrapStarted:bootstrap_running',
    ]);
    const i = (s: string) => steps.indexOf(s);
    expect(i('AgentJoined:agent_joined')).toBeLessThan(i('BootstrapClosed:handed_off'));
    expect(i('BootstrapClosed:handed_off')).toBeLessThan(i('HandoffComplete:dormant'));
    expect(steps.slice(-2)).toEqual(['Destroy:destroying', 'DestroyConfirmed:destroyed']);
    for (const n of seen) if (n.ready) expect(['handed_off', 'dormant']).toContain(n.stage);
    expect(seen.some((n) => n.ready)).toBe(true);

    const boot = await core.client.invoke('logs.read', { runId: run.id, channel: 'bootstrap' });
    expect(boot.ok && boot.value.records.map((r) => r.line).join('\n')).toMatch(
      /machine: Linux [\s\S]*runtime: Node [\s\S]*agent started/,
    );
    const out = await core.client.invoke('logs.read', { runId: run.id, channel: 'agent' });
    expect(
      out.ok && out.value.records.filter((r) => r.source === 'run').map((r) => r.line),
    ).toEqual(['hi']);
  });

  it('a failing verify command fails the node at boot_check_failed, and its lease is still destroyed', async () => {
    const { core, work } = setup();
    const run = await runToEnd(core, {
      job: job(work),
      pool: { provider: 'local', count: 1, verify: ['echo checking; exit 7'] },
      keep: false,
    });
    expect(run.status).toBe('failed');
    expect(run.nodes[0]).toMatchObject({ stage: 'destroyed', bootstrapStage: 'boot_check_failed' });
    expect(run.failedReason).toMatch(
      /bootstrap boot_check_failed: verify command `echo checking; exit 7` exited 7/,
    );
    expect(core.ledger.liveLeases()).toEqual([]);
    const boot = await core.client.invoke('logs.read', { runId: run.id, channel: 'bootstrap' });
    expect(boot.ok && boot.value.records.map((r) => r.line)).toContain('checking');
  });

  it('answers a malformed request with bad_request and writes nothing', async () => {
    const { core } = setup();
    const before = core.ledger.journal().length;
    const r = await core.client.invoke('run.start', { job: { name: '' }, pool: {} } as never);
    expect(r).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    expect(!r.ok && r.error.message).toMatch(/job\.name|job\.run/);
    expect(core.ledger.journal()).toHaveLength(before);
    const unknown = await core.client.invoke('run.start', {
      job: { name: 'x', run: 'true' },
      pool: { provider: 'moon' },
    });
    expect(unknown).toMatchObject({
      ok: false,
      error: { code: 'bad_input', message: 'unknown provider "moon"' },
    });
    expect(core.ledger.listRuns()).toEqual([]);
  });

  it('allows one writer; a second process-equivalent gets read-only access that refuses to act', async () => {
    const { core, home } = setup();
    expect(() => TenderCore.open({ home })).toThrow(TenderError);
    const reader = TenderCore.openAny({ home });
    expect(reader?.isWriter).toBe(false);
    cores.push(reader!);
    const status = await reader!.client.invoke('status.get', {});
    expect(status.ok).toBe(true);
    const start = await reader!.client.invoke('run.start', {
      job: { name: 'x', run: 'true' },
      pool: {},
    });
    expect(start).toMatchObject({ ok: false, error: { code: 'busy' } });
    expect(core.isWriter).toBe(true);
  });

  it('never writes a secret in clear: not in the ledger, the logs, or any file Tender keeps', async () => {
    const { core, work, home } = setup();
    const secret = 'sk-test-4f9a8b7c6d5e';
    const run = await runToEnd(core, {
      job: job(work, {
        run: 'echo "token=$API_TOKEN"; echo "${#API_TOKEN} chars"',
        env: { API_TOKEN: { secret: true, value: secret }, PLAIN: 'visible' },
      }),
      pool: { provider: 'local', count: 1, verify: [] },
      keep: false,
    });
    expect(run.status).toBe('completed');
    const out = await core.client.invoke('logs.read', { runId: run.id, channel: 'agent' });
    const lines = out.ok
      ? out.value.records.filter((r) => r.source === 'run').map((r) => r.line)
      : [];
    // The job saw the real value (its length), and the log shows it redacted.
    expect(lines).toEqual(['token=***', `${secret.length} chars`]);
    await core.close();
    cores.splice(cores.indexOf(core), 1);
    const grep = (() => {
      try {
        return execFileSync('grep', ['-rl', secret, home], { encoding: 'utf8' });
      } catch {
        return ''; // grep exits 1 when nothing matches
      }
    })();
    expect(grep).toBe('');
    expect(readFileSync(join(home, 'ledger.sqlite')).includes(Buffer.from(secret))).toBe(false);
  });

  it('lease.destroy of a run this process drives stops its job for good and confirms the lease gone', async () => {
    const { core, work } = setup();
    const started = await core.client.invoke('run.start', {
      job: job(work, { run: 'sleep 600' }),
      pool: { provider: 'local', count: 2, verify: [] },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    await core.waitJobsStarted(started.value.id);
    const down = await core.client.invoke('lease.destroy', { target: started.value.id });
    expect(down.ok && down.value.allConfirmed).toBe(true);
    expect(down.ok && down.value.outcomes).toHaveLength(2);
    const outcome = await core.waitRun(started.value.id);
    expect(outcome.status).toBe('failed');
    expect(outcome.failedReason).toMatch(/torn down by the user/);
    expect(core.ledger.liveLeases()).toEqual([]);
  });
});
