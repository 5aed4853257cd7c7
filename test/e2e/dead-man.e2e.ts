// The dead-man switch, end to end: a job on a healthy node is never stopped because the app
// is gone (kill -9) or asleep (SIGSTOP); once it has ended and nobody comes for it, the node
// protects the user's money by itself. The app is its own process (test/helpers/app-child.ts);
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
/** How long the job runs after the run phase starts. */
const JOB_S = 8;
/** The agent checks its switch every grace/4. */
const CHECK_MS = GRACE_MS / 4;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function startLongRun(): Promise<{
  fake: FakeVast;
  app: AppProcess;
  home: string;
  /** When the app saw the run phase start (the job ends JOB_S s later). */
  runAt: number;
}> {
  const fake = await startFakeVast({ offers: [{ gpu_name: 'RTX 4090', dph_base: 0.5 }] });
  cleanups.push(() => fake.stop());
  const root = mkdtempSync(join(tmpdir(), 'tender-deadman-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'train.sh'), `echo step 1; sleep ${JOB_S}; echo step 2\n`);
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
      policy: {
        unreachableGraceMs: GRACE_MS,
        collectGraceMs: GRACE_MS,
        idleTimeoutMs: null,
        maxDurationMs: null,
      },
    },
  });
  cleanups.push(() => app.stop());
  await app.waitFor((l) => l.event === 'node' && l.jobPhase === 'run', 90_000);
  const runAt = Date.now();
  // A couple of renewals (every grace/4) have reached the node.
  await new Promise((r) => setTimeout(r, CHECK_MS * 2));
  return { fake, app, home, runAt };
}

describe('the dead-man switch', () => {
  it('kill -9 the app: the job runs on; once it has ended and nobody came for its outputs, the node stops itself with its own key (storage only); a restarted app starts it, collects and destroys it', async () => {
    const { fake, app, home, runAt } = await startLongRun();
    const [inst] = fake.state.liveInstances();
    app.child.kill('SIGKILL');
    await app.exited;

    // Stopped, not destroyed: the outputs stay on its disk.
    await until(() => fake.state.instances()[0]!.actualStatus === 'stopped', 40_000);
    expect(fake.state.destroyLog()).toEqual([]);
    await until(() => fake.state.billing(inst!.id).byState.stopped > 0, 10_000);
    // What the job's unattended end cost, from the fake's own billing: the instance billed
    // as running no longer than collect_grace + one check after the job ended (+ the job's
    // SIGTERM, HTTP); from then on its disk only.
    const bill = fake.state.billing(inst!.id);
    const runningUntil = bill.startedAt + (bill.byState.running / bill.dphTotal) * 3_600_000;
    const billedAfterJobMs = Math.round(runningUntil - (runAt + JOB_S * 1_000));
    console.log(
      `billed running after the unattended job ended: ${billedAfterJobMs} ms (collect_grace ${GRACE_MS} ms + one check ${CHECK_MS} ms); storage only after`,
    );
    expect(billedAfterJobMs).toBeGreaterThan(GRACE_MS - CHECK_MS); // not before the grace
    expect(billedAfterJobMs).toBeLessThan(GRACE_MS + CHECK_MS + 2_500);

    // The app starts again on the same data folder: it finds the lease stopped, starts it,
    // collects the outputs and destroys it (with the account key, confirmed).
    const { core } = openVastCore(fake, home, { reconcile: false });
    cleanups.push(() => core.close());
    await core.reconciler!.tick('start', true);
    const due = await core.client.invoke('run.collectDue', {});
    expect(due.ok && due.value.stopped).toEqual([]);
    const [runId] = due.ok ? due.value.attached : [];
    await core.waitRun(runId!);
    expect(core.runView(runId!).status).toBe('completed');
    expect(fake.state.liveInstances()).toEqual([]);
    expect(fake.state.destroyLog().map((d) => d.by)).toEqual(['account']);
    const [lease] = core.ledger.listLeases();
    expect(lease!.state).toBe('destroyed');
  });

  it('laptop sleep (SIGSTOP past the grace) while the job runs: the job is not lost; the app wakes, reconnects and the run completes', async () => {
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
    await new Promise((r) => setTimeout(r, 2 * GRACE_MS)); // twice the grace, asleep
    expect(fake.state.destroyLog()).toEqual([]); // the node did not give up on its job
    process.kill(pid, 'SIGCONT');

    const done = (await app.waitFor((l) => l.event === 'done', 60_000)) as {
      run: { status: string; nodes: { stage: string }[] };
    };
    expect(done.run.status).toBe('completed');
    expect(done.run.nodes[0]!.stage).toBe('destroyed');
    expect(fake.state.instances()).toHaveLength(1);
    // Torn down by the app after it collected, not by the node's switch.
    expect(fake.state.destroyLog().map((d) => d.by)).toEqual(['account']);
  });
});
