// A teardown the host refused (its host key changed) leaves the lease `destroying`; once
// the host answers with its own key again, the next `tender down --all` tries it again,
// confirms it destroyed, and reports this attempt's outcome, not the errors of before; and
// without a down, the writer's next reconciliation pass retries it to a confirmed end.
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startSshd, type SshdFixture } from '../helpers/sshd';
import { sshCore, sshJob } from '../helpers/ssh-core';
import { eventually, untilAsync } from '../helpers/wait';
import { agentBundlePath } from '../helpers/agent-bundle';
import { TenderCore } from '../../src-main/core/tender-core';

const fixtures: SshdFixture[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

/** A run on h0 whose host key changes while its job runs: its link lives on, the
 *  teardown's new connection is refused, and the lease is left `destroying`. */
async function refusedTeardown(f: SshdFixture) {
  // One destroy attempt per teardown keeps the test short; the bug does not depend on it.
  // No connection kept between users: the push's, dialed before the key changed, would
  // otherwise carry the destroy (shell-pool.ts; its host key was checked when dialed).
  const t = sshCore([f], { teardownMaxAttempts: 1, shellLingerMs: 0 });
  const { core } = t;
  const started = await core.client.invoke('run.start', {
    job: sshJob(t.work, { run: 'sleep 2' }),
    pool: { provider: 'ssh', hosts: ['h0'] },
    keep: false,
  });
  if (!started.ok) throw new Error(started.error.message);
  const runId = started.value.id;
  await core.waitJobsStarted(runId);
  // The destroy opened ahead (providers/ssh/armed-destroy.ts) rides a connection dialed
  // before the key changes, as a kept one would: ended here, so the teardown dials anew.
  await untilAsync(
    async () => (await f.exec(`pkill -u ${f.user} -f '[r]ead -r go' && echo ended`)).stdout,
    { ms: 10_000, what: 'the armed destroy ended on the host' },
  );
  await f.restart({ newHostKey: true });
  await core.waitRun(runId);
  const node = () => core.ledger.nodesOfRun(runId)[0]!;
  expect(node().stage).toBe('destroying');
  expect(node().lastError).toMatch(/host key .*changed/i);
  return { t, core, node };
}

describe('a lease left destroying by a refused teardown', () => {
  it('is retried by the reconciliation of the next process once the host answers again, to destroyed (confirmed)', async () => {
    const f = await startSshd();
    fixtures.push(f);
    const { t, node } = await refusedTeardown(f);
    const runId = node().runId;
    // The process that ran it ends (its managers, which would retry, end with it).
    await t.core.close();
    await f.restart({ previousHostKey: true });
    const next = TenderCore.open({
      home: t.home,
      env: { ...process.env, TENDER_AGENT_BUNDLE: agentBundlePath() },
      timing: { teardownMaxAttempts: 1, destroyPollMs: 200 },
      reconcile: false, // its passes are run here, one at a time
    });
    closers.push(async () => {
      await next.close();
      rmSync(t.root, { recursive: true, force: true });
    });
    const stage = () => next.ledger.nodesOfRun(runId)[0]!.stage;
    expect(stage()).toBe('destroying');
    await next.reconciler.tick('start', true);
    await eventually(() => stage() === 'destroyed');
    expect(next.ledger.liveLeases()).toEqual([]);
  }, 60_000);

  it('is destroyed (confirmed) by the next down once the host answers again, with a current message', async () => {
    const f = await startSshd();
    fixtures.push(f);
    const { t, core, node } = await refusedTeardown(f);
    closers.push(() => t.close());

    // Still the wrong key: down tries again and says so.
    const refused = await core.client.invoke('lease.destroyAll', {});
    if (!refused.ok) throw new Error(refused.error.message);
    expect(refused.value.allConfirmed).toBe(false);
    expect(refused.value.outcomes[0]!.error).toMatch(/host key .*changed/i);
    expect(node().stage).toBe('destroying');

    // The host's own key is back: the next down confirms it, with no old error.
    await f.restart({ previousHostKey: true });
    const down = await core.client.invoke('lease.destroyAll', {});
    if (!down.ok) throw new Error(down.error.message);
    expect(down.value.outcomes.map((o) => [o.confirmed, o.error])).toEqual([[true, null]]);
    expect(node().stage).toBe('destroyed');
    expect(core.ledger.liveLeases()).toEqual([]);
  }, 60_000);
});
