// The dead-man switch, end to end: a node protects the user's money by itself when the app is
// gone (kill -9) or asleep (SIGSTOP). The app is its own process (test/helpers/app-child.ts);
// the Vast.ai fake, whose nodes are real sshd, stays up in this process and records which
// key every destroy was made with.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeVast, VAST_ENV_FILE, type FakeVast } from '../fakes/vast';
import { agentBundlePath } from '../helpers/agent-bundle';
import { startAppProcess, type AppProcess } from '../helpers/app-process';
import { openVastCore, TEST_TIMING } from '../helpers/vast-core';
import { until } from '../helpers/wait';

const GRACE_MS = 3_000;
/** The agent checks its switch every grace/4. */
const CHECK_MS = GRACE_MS / 4;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function startLongRun(): Promise<{ fake: FakeVast; app: AppProcess; home: string }> {
  const fake = await startFakeVast({ offers: [{ gpu_name: 'RTX 4090', dph_base: 0.5 }] });
  cleanups.push(() => fake.stop());
  const root = mkdtempSync(join(tmpdir(), 'tender-deadman-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'train.sh'), 'echo step 1; sleep 600\n');
  const app = await startAppProcess(fake, {
    home,
    vastUrl: fake.url,
    apiKey: fake.apiKey,
    agentBundle: agentBundlePath(),
    timing: TEST_TIMING,
    containerEnvFiles: [`~/${VAST_ENV_FILE}`],
    run: {
      job: { name: 'long', run: 'sh train.sh', workspace: { workdir: work, exclude: [] } },
      pool: { provider: 'vastai', count: 1 },
      policy: { unreachableGraceMs: GRACE_MS, idleTimeoutMs: null, maxDurationMs: null },
    },
  });
  cleanups.push(() => app.stop());
  await app.waitFor((l) => l.event === 'node' && l.jobPhase === 'run', 90_000);
  // A couple of renewals (every grace/4) have reached the node.
  await new Promise((r) => setTimeout(r, CHECK_MS * 2));
  return { fake, app, home };
}

describe('the dead-man switch', () => {
  it('kill -9 the app: the node destroys itself with its own key within grace + one check; a restarted app shows why', async () => {
    const { fake, app, home } = await startLongRun();
    const [inst] = fake.state.liveInstances();
    const killedAt = Date.now();
    app.child.kill('SIGKILL');
    await app.exited;

    const destroy = await until(() => fake.state.destroyLog()[0], 30_000);
    expect(destroy.instanceId).toBe(inst!.id);
    expect(destroy.by).toBe('instance'); // CONTAINER_API_KEY: the account key never left here
    // The last renewal was at most one renewal period before the kill.
    const late = destroy.at - killedAt;
    expect(late).toBeLessThan(GRACE_MS + CHECK_MS + 2_500); // + SIGTERM of the job, HTTP
    const bill = fake.state.billing(inst!.id);
    expect(bill.endedAt).not.toBeNull();
    expect(bill.endedAt! - killedAt).toBeLessThan(GRACE_MS + CHECK_MS + 2_500);
    expect(fake.state.liveInstances()).toEqual([]);

    // The app starts again on the same data folder: reconciliation finds the lease gone and
    // tells why, from what the node was last told.
    const { core } = openVastCore(fake, home, { reconcile: false });
    cleanups.push(() => core.close());
    await core.reconciler!.tick('start', true);
    const [lease] = core.ledger.listLeases();
    expect(lease!.state).toBe('destroyed');
    expect(lease!.reason).toMatch(/^destroyed by its own dead-man switch: app unreachable for 3s/);
    // Billed until the switch fired, not until the app came back.
    expect(lease!.destroyedAt! - killedAt).toBeLessThan(GRACE_MS + CHECK_MS + 1_000);
    const status = await core.client.invoke('status.get', {});
    expect(status.ok && status.value.leases[0]!.reason).toMatch(/dead-man switch/);
  });

  it('laptop sleep (SIGSTOP past the grace): the node is gone, and the app reports it instead of reconnecting to a ghost', async () => {
    const { fake, app } = await startLongRun();
    const pid = app.child.pid!;
    process.kill(pid, 'SIGSTOP');
    cleanups.unshift(() => {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // already gone
      }
    });
    const destroy = await until(() => fake.state.destroyLog()[0], 30_000);
    expect(destroy.by).toBe('instance');
    await until(() => fake.state.instances().every((i) => i.isGone), 30_000);
    const wokeAt = Date.now();
    const linesBeforeWake = app.lines.length;
    process.kill(pid, 'SIGCONT');

    const done = (await app.waitFor((l) => l.event === 'done', 60_000)) as {
      run: {
        status: string;
        failedReason: string;
        nodes: { stage: string; destroyReason: string | null }[];
      };
    };
    expect(Date.now() - wokeAt).toBeLessThan(30_000);
    expect(done.run.status).toBe('failed');
    expect(done.run.nodes[0]!.stage).toBe('destroyed');
    expect(done.run.nodes[0]!.destroyReason).toMatch(/^destroyed by its own dead-man switch/);
    expect(done.run.failedReason).toMatch(/dead-man switch/);
    // No link to the node was made again after the wake (the old one may still deliver the
    // node's last words before it closes).
    const states = app.lines.slice(linesBeforeWake).map((l) => l.linkState);
    const reconnected = states.some((st, i) => st === 'connected' && states[i - 1] === 'lost');
    expect(reconnected).toBe(false);
    // Only the node's own destroy: the app's confirming DELETE found it already gone.
    expect(fake.state.destroyLog().map((d) => d.by)).toEqual(['instance']);
  });
});
