// NodeJob against doubles of its deps (node-job.test-util.ts): a manager whose leases boot
// at once, nodes answering from memory, a real ledger, datastream and checkpoint folder.
// The checkpoint scenario moves the node's loss across the pull cycle.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointStore } from '../checkpoints/checkpoint-transfer';
import type { JobState } from '../fsm/job-fsm';
import { NodeJob } from './node-job';
import { fakeDeps, type FakeNode } from './node-job.test-util';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function setup(job: Parameters<typeof fakeDeps>[0]) {
  const f = fakeDeps(job);
  cleanups.push(f.cleanup);
  const nodeJob = new NodeJob('r-test01/node-0', f.state, f.deps);
  return { ...f, nodeJob };
}

/** Until `check` holds, turning the event loop; the bound only ends a test gone wrong. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (const end = Date.now() + 3_000; Date.now() < end;) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error(`never: ${what}`);
}

const checkpointed = {
  name: 'resumable',
  run: 'train.py',
  checkpoints: 'ckpt/',
  checkpoint_every_s: 0.005,
  recovery: { max_restarts: 1, on: ['node_lost'] },
};

/** Attempt 1 runs and has two pulls land (step 1, then step 2); its node then writes step
 *  3, which no pull has brought yet. */
async function twoPullsLanded(t: ReturnType<typeof setup>, node: () => FakeNode) {
  await until(() => t.world.nodes[0]?.started.includes('run') ?? false, 'the run started');
  for (const step of [1, 2]) {
    node().files.set('ckpt/step', String(step));
    (await t.world.nextPull()).open();
    await until(() => landed(t) >= step, `pull ${step}`);
  }
  node().files.set('ckpt/step', '3');
}

const landed = (t: ReturnType<typeof setup>) =>
  t.events().filter((l) => l.startsWith('checkpoints pulled: 1')).length;

describe('NodeJob: a recovered attempt resumes from the last pulled checkpoint', () => {
  it.each([
    ['before', '2', 'no pull in flight'],
    ['during', '2', 'a pull in flight: its answer never lands'],
    ['after', '3', 'a pull just landed'],
  ])('lost %s a pull: attempt 2 restores step %s first, then pulls (%s)', async (moment, want) => {
    const t = setup(checkpointed);
    const first = () => t.world.nodes[0]!;
    t.nodeJob.start();
    await twoPullsLanded(t, first);
    if (moment === 'during' || moment === 'after') {
      const held = await t.world.nextPull();
      if (moment === 'after') {
        held.open();
        await until(() => landed(t) >= 3, 'the third pull');
      }
    }
    t.world.openGate = true;
    t.world.lose(first().label);
    await until(
      () => t.world.nodes.length === 2 && t.world.nodes[1]!.started.includes('run'),
      'attempt 2 runs',
    );
    const second = t.world.nodes[1]!;
    expect(second.files.get('ckpt/step')).toBe(want);
    const pullsOfFirst = first().transfers.length;
    second.exit(0);
    const end: JobState = await t.nodeJob.done;
    expect(end.status, t.events().join('\n')).toBe('completed');
    expect(end.attempt).toBe(1);
    // Nothing of attempt 1 acted after its loss: no pull reached its node again.
    expect(first().transfers).toHaveLength(pullsOfFirst);
    expect(second.transfers.filter((x) => x !== 'outputs')[0]).toBe('restore');
    const ev = t.events();
    const recovery = ev.findIndex((l) => l.startsWith('── attempt 2 after'));
    const restored = ev.findIndex((l) => l.startsWith('checkpoints restored into ckpt/'));
    expect(restored).toBeGreaterThan(recovery);
    expect(ev[restored]).toMatch(/from attempt 1's pull at \d\d:\d\d:\d\d: 1 file, 1 B$/);
    expect(ev.slice(recovery, restored).filter((l) => l.startsWith('checkpoints pulled'))).toEqual(
      [],
    );
    const source = checkpointStore(t.outputsDir).restoreSource()!;
    expect(readFileSync(join(source.dir, 'ckpt', 'step'), 'utf8')).toBe(want);
  });

  it('an empty pull from the new node never replaces the copy attempt 1 left', async () => {
    const t = setup(checkpointed);
    const first = () => t.world.nodes[0]!;
    t.nodeJob.start();
    await twoPullsLanded(t, first);
    t.world.openGate = true;
    t.world.lose(first().label);
    await until(() => t.world.nodes[1]?.started.includes('run') ?? false, 'attempt 2 runs');
    const second = t.world.nodes[1]!;
    second.files.clear(); // the job removed its checkpoints before any new one was written
    await until(
      () => t.events().some((l) => l.includes('stays the one to restore')),
      'an empty pull',
    );
    second.exit(0);
    await t.nodeJob.done;
    const source = checkpointStore(t.outputsDir).restoreSource()!;
    expect(source.attempt).toBe(0);
    expect(readFileSync(join(source.dir, 'ckpt', 'step'), 'utf8')).toBe('2');
  });
});

describe('NodeJob: the run phase’s round trips', () => {
  const ops = (t: ReturnType<typeof setup>) => t.world.requests.map((r) => r.op);

  it('configure goes out beside the host setup’s status, and says the phases: no status before start', async () => {
    const t = setup({ name: 'plain', run: 'train.py' });
    t.nodeJob.start();
    await until(() => t.world.nodes[0]?.started.includes('run') ?? false, 'run');
    const upToStart = ops(t).slice(0, ops(t).indexOf('start') + 1);
    expect(upToStart).toEqual(['configure', 'host_setup.status', 'start']);
    expect(t.world.requests[1]).toEqual({ op: 'host_setup.status', unanswered: ['configure'] });
    t.world.nodes[0]!.exit(0);
    expect((await t.nodeJob.done).status).toBe('completed');
  });

  it('the final collection’s glance goes out beside the drain’s status once the run exits, and is not asked again', async () => {
    const t = setup({ name: 'plain', run: 'train.py' });
    t.nodeJob.start();
    await until(() => t.world.nodes[0]?.started.includes('run') ?? false, 'run');
    t.world.nodes[0]!.exit(0);
    expect((await t.nodeJob.done).status).toBe('completed');
    expect(ops(t).filter((op) => op === 'outputs.glance')).toHaveLength(1);
    // The status asked next (the node cache's, then the drain's) goes before its answer.
    const next = t.world.requests[ops(t).indexOf('outputs.glance') + 1]!;
    expect(next).toEqual({ op: 'status', unanswered: ['outputs.glance'] });
    expect(t.world.nodes[0]!.transfers).toEqual(['outputs']);
  });

  it('an exit state that says the log’s seq, the outputs and the cache: nothing is asked at the exit', async () => {
    const t = setup({ name: 'plain', run: 'train.py' });
    t.nodeJob.start();
    await until(() => t.world.nodes[0]?.started.includes('run') ?? false, 'run');
    const before = ops(t).length;
    const glance = { files: 0, bytes: 0, dirs: [], moreDirs: false, missing: [], refused: [] };
    const cache = { path: '/c', bytes: 2048, measuredAt: 1 };
    t.world.nodes[0]!.exit(0, { seq: 0, glance, cache });
    expect((await t.nodeJob.done).status).toBe('completed');
    expect(ops(t).slice(before)).toEqual([]);
    expect(t.world.nodes[0]!.transfers).toEqual([]); // the glance said: nothing to pull
    const journaled = t.deps.ledger.journal(t.manager.record.runId);
    expect(journaled.filter((e) => e.kind === 'node.cache').map((e) => e.data)).toEqual([
      { path: '/c', bytes: 2048 },
    ]);
  });

  it('an agent from before configure said its phases is asked status after configure', async () => {
    const t = setup({ name: 'plain', run: 'train.py' });
    t.world.configureSaysPhases = false;
    t.nodeJob.start();
    await until(() => t.world.nodes[0]?.started.includes('run') ?? false, 'run');
    const upToStart = ops(t).slice(0, ops(t).indexOf('start') + 1);
    expect(upToStart).toEqual(['configure', 'host_setup.status', 'status', 'start']);
    expect(t.world.requests[2]!.unanswered).not.toContain('configure'); // after its answer
    t.world.nodes[0]!.exit(0);
    expect((await t.nodeJob.done).status).toBe('completed');
  });
});

describe('NodeJob: what a node made for the job does while its workspace is pushed', () => {
  const ops = (t: ReturnType<typeof setup>) => t.world.requests.map((r) => r.op);

  /** A node whose bootstrap hands over its first push (early-push.ts), which goes on until
   *  `land()`. */
  function pushedEarly(t: ReturnType<typeof setup>) {
    let land!: () => void;
    const landed = new Promise<null>((r) => (land = () => r(null)));
    t.deps.job = { ...t.deps.job, workspace: { workdir: t.outputsDir, exclude: [] } };
    t.deps.workspacePlan = () => landed; // the push's plan: it ends once given
    t.deps.onAgentPrepared = (listener) => {
      const label = t.manager.record.label;
      listener({ label, endpoint: {} as never, address: {} as never, share: () => null });
      return () => {};
    };
    return { land };
  }

  it('configure and the host setup’s status go out during the push: start is the only round trip after it', async () => {
    const t = setup({ name: 'plain', run: 'train.py' });
    const push = pushedEarly(t);
    t.nodeJob.start();
    await until(() => ops(t).includes('host_setup.status'), 'the host setup asked');
    expect(t.nodeJob.current.phase).toBe('materializing');
    expect(ops(t).slice(0, 2)).toEqual(['configure', 'host_setup.status']);
    const before = ops(t).length;
    push.land();
    await until(() => t.world.nodes[0]?.started.includes('run') ?? false, 'run');
    expect(ops(t).slice(before)).toEqual(['start']);
    t.world.nodes[0]!.exit(0);
    expect((await t.nodeJob.done).status).toBe('completed');
  });

  it('a node claimed warm (no push of its own from the bootstrap) is configured after its push', async () => {
    const t = setup({ name: 'plain', run: 'train.py' });
    t.nodeJob.start();
    await until(() => t.world.nodes[0]?.started.includes('run') ?? false, 'run');
    expect(ops(t).slice(0, 3)).toEqual(['configure', 'host_setup.status', 'start']);
    t.world.nodes[0]!.exit(0);
    await t.nodeJob.done;
  });

  it('a stop during the push ends the host setup’s wait, and nothing starts', async () => {
    const t = setup({ name: 'plain', run: 'train.py', host_setup: ['apt-get install -y x'] });
    t.world.hostSetupDrained = false;
    const push = pushedEarly(t);
    t.nodeJob.start();
    await until(() => ops(t).includes('host_setup.status'), 'the host setup asked');
    t.nodeJob.stop();
    push.land();
    const end = await t.nodeJob.done;
    expect(end.status).toBe('cancelled');
    expect(ops(t)).not.toContain('start');
  });

  it('a node not kept has its destroy made ready when its workspace goes; a kept one does not', async () => {
    for (const keep of [false, true]) {
      const t = setup({ name: 'plain', run: 'train.py' });
      t.deps.keep = keep;
      t.nodeJob.start();
      await until(() => t.world.nodes[0]?.started.includes('run') ?? false, 'run');
      expect(t.manager.destroysExpected).toEqual(keep ? [] : [t.manager.record.label]);
      t.world.nodes[0]!.exit(0);
      await t.nodeJob.done;
    }
  });
});

describe('NodeJob: attempts', () => {
  it('a recovery disposes the attempt before: its link is closed before the lease is replaced', async () => {
    const t = setup({ ...checkpointed, checkpoints: undefined });
    t.world.openGate = true;
    t.nodeJob.start();
    await until(() => t.world.nodes[0]?.started.includes('run') ?? false, 'run');
    const before = t.nodeJob.attempt;
    t.world.lose(t.world.nodes[0]!.label);
    await until(() => t.world.nodes[1]?.started.includes('run') ?? false, 'attempt 2 runs');
    expect(before.isDisposed).toBe(true);
    expect(t.nodeJob.attempt).not.toBe(before);
    expect(t.nodeJob.attempt.n).toBe(1);
    expect(t.manager.sent).toEqual(['Start', 'Destroy', 'Replace', 'Start']);
    t.world.nodes[1]!.exit(0);
    expect((await t.nodeJob.done).status).toBe('completed');
    expect(t.manager.sent.at(-1)).toBe('Destroy');
  });

  it('without [recovery] a lost node fails the job, and its lease is destroyed', async () => {
    const t = setup({ name: 'plain', run: 'train.py' });
    t.nodeJob.start();
    await until(() => t.world.nodes[0]?.started.includes('run') ?? false, 'run');
    t.world.lose(t.world.nodes[0]!.label);
    const end = await t.nodeJob.done;
    expect(end.status).toBe('failed');
    expect(end.reason).toMatch(/the lease is gone/);
    expect(t.manager.sent).toEqual(['Start', 'Destroy']);
  });

  it('a detached job stops acting: a loss after it changes nothing', async () => {
    const t = setup({
      name: 'plain',
      run: 'train.py',
      recovery: { max_restarts: 1, on: ['node_lost'] },
    });
    t.nodeJob.start();
    await until(() => t.world.nodes[0]?.started.includes('run') ?? false, 'run');
    t.nodeJob.detach();
    t.world.lose(t.world.nodes[0]!.label);
    for (let i = 0; i < 100; i++) await new Promise((r) => setImmediate(r));
    expect(t.nodeJob.current.phase).toBe('run');
    expect(t.manager.sent).toEqual(['Start']);
  });
});
