// Warm nodes over real SSH: an own host (ssh provider) and a rented one (the Vast fake with
// real sshd nodes). The second run claims the kept node: the provider is not asked to
// create anything, nothing is bootstrapped, the push is a delta, the setup is cached.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandInput, RunView } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { startSshd, type SshdFixture } from '../helpers/sshd';
import { sshCore, sshJob } from '../helpers/ssh-core';
import { vastSetups } from '../helpers/vast-setups';

const fixtures: SshdFixture[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

async function start(core: TenderCore, input: CommandInput<'run.start'>): Promise<RunView> {
  const started = await core.client.invoke('run.start', input);
  if (!started.ok) throw Object.assign(new Error(started.error.message), started.error);
  await core.waitRun(started.value.id);
  const view = await core.client.invoke('run.get', { runId: started.value.id });
  if (!view.ok) throw new Error(view.error.message);
  return view.value;
}

async function lines(core: TenderCore, run: RunView, channel: 'agent' | 'events') {
  const out = await core.client.invoke('logs.read', { runId: run.id, channel });
  return out.ok ? out.value.records.map((r) => r.line) : [];
}

const setupJob = (work: string) =>
  sshJob(work, {
    setup: 'echo building env; sleep 1; touch $TENDER_ENV/built',
    setup_fingerprint: ['requirements.txt'],
    run: 'test -f $TENDER_ENV/built && cat hello.txt',
  });

describe('warm nodes over real SSH', () => {
  it('an own host kept warm serves the next run: no bootstrap, a delta push, setup cached', async () => {
    const f = await startSshd();
    fixtures.push(f);
    const t = sshCore([f]);
    closers.push(() => t.close());
    writeFileSync(join(t.work, 'hello.txt'), 'v1\n');
    writeFileSync(join(t.work, 'requirements.txt'), 'torch\n');
    const pool = { provider: 'ssh', hosts: ['h0'] };
    const first = await start(t.core, { job: setupJob(t.work), pool, keep: true });
    expect(first.status, first.failedReason ?? '').toBe('completed');

    writeFileSync(join(t.work, 'hello.txt'), 'v2\n');
    const second = await start(t.core, { job: setupJob(t.work), pool, keep: true });
    expect(second.status, second.failedReason ?? '').toBe('completed');
    expect(second.nodes[0]!.claimedFrom?.runId).toBe(first.id);
    const out = await lines(t.core, second, 'agent');
    expect(out).toContain('v2');
    expect(out).not.toContain('building env'); // setup cached
    const events = (await lines(t.core, second, 'events')).join('\n');
    expect(events).toMatch(/reusing warm node/);
    expect(events).toMatch(/1 changed|delta/i);
    const steps = t.core.ledger
      .journal(second.id)
      .filter((e) => e.kind === 'node.step')
      .map((e) => String(e.data.to));
    expect(steps).not.toContain('bootstrap_running');
  });

  it('an own host kept warm under another declaration is an error naming the fields and the fix', async () => {
    const f = await startSshd();
    fixtures.push(f);
    const t = sshCore([f]);
    closers.push(() => t.close());
    writeFileSync(join(t.work, 'hello.txt'), 'v1\n');
    const pool = { provider: 'ssh', hosts: ['h0'] };
    await start(t.core, { job: sshJob(t.work), pool, keep: true });
    const err = await start(t.core, {
      job: sshJob(t.work, { host_setup: ['echo prepare'] }),
      pool,
      keep: true,
    }).catch((e: Error & { hint?: string }) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/host_setup differs/);
    expect((err as { hint?: string }).hint).toMatch(/tender down/);
  });
});

describe("reaching a node's agent", () => {
  // The job counts the `attach` processes of its own host's agent (other test files run
  // agents beside it) while it runs: the link's own. The bootstrap's attach, closed just
  // before the job starts, may take a moment to exit: the count is read until it is down
  // to `expected` (a link that attaches keeps it above for the whole job).
  const countAttach = (expected: number) =>
    sshJob('', {
      run: [
        `c=0; for i in $(seq 50); do`,
        `c=$(pgrep -fc "$HOME/[.]tender/cache/agent/tender-agent-[0-9a-f]*[.]cjs attach" || true)`,
        `[ "$c" -le ${expected} ] && break; sleep 0.1; done; echo "attach=$c"`,
      ].join('\n'),
    });

  it('goes straight to its socket (no process started on the node), and falls back to attach where sshd forbids that', async () => {
    for (const forbid of [false, true]) {
      const f = await startSshd(forbid ? { config: ['AllowStreamLocalForwarding no'] } : {});
      fixtures.push(f);
      const t = sshCore([f]);
      closers.push(() => t.close());
      writeFileSync(join(t.work, 'hello.txt'), 'v1\n');
      const job = { ...countAttach(forbid ? 1 : 0), workspace: { workdir: t.work, exclude: [] } };
      const pool = { provider: 'ssh', hosts: ['h0'] };
      for (const _ of [1, 2]) {
        const run = await start(t.core, { job, pool, keep: true });
        expect(run.status, run.failedReason ?? '').toBe('completed');
        expect(await lines(t.core, run, 'agent')).toContain(forbid ? 'attach=1' : 'attach=0');
        const rec = t.core.ledger.getNode(run.nodes[0]!.id)!;
        expect(rec.agent?.address.socket).toMatch(/\.sock$/); // as the agent reported it
      }
    }
  });
});

describe('warm nodes on the Vast fake', () => {
  const setup = vastSetups();
  it('the second run claims the kept instance; nothing else is created; each run has its share', async () => {
    const { core, fake, work, run } = await setup();
    writeFileSync(join(work, 'hello.txt'), 'on vast\n');
    const input = {
      job: { name: 'v', run: 'cat hello.txt', workspace: { workdir: work, exclude: [] } },
      pool: { provider: 'vastai', count: 1, gpu: 'RTX 4090' },
      keep: true,
    };
    const first = await run(input);
    expect(first.status, first.failedReason ?? '').toBe('completed');
    const second = await run(input);
    expect(second.status, second.failedReason ?? '').toBe('completed');
    expect(second.nodes[0]!.leaseId).toBe(first.nodes[0]!.leaseId);
    expect(fake.state.instances()).toHaveLength(1);
    expect(fake.state.liveInstances()).toHaveLength(1);
    const status = await core.client.invoke('status.get', {});
    const lease = status.ok ? status.value.leases.find((l) => l.state === 'created') : undefined;
    expect(lease?.servedRuns).toEqual([first.id, second.id]);
    expect(lease?.warm).toBeTruthy();
    const down = await core.client.invoke('lease.destroy', { target: second.id });
    expect(down.ok && down.value.allConfirmed).toBe(true);
    expect(fake.state.liveInstances()).toEqual([]);
  });
});
