// Sweeps on the local provider (real agent processes, a real SQLite ledger): the cells of
// a grid queue over the run's nodes — each node runs setup once, then cell after cell —
// with per-cell outputs, receipts, logs and exit codes; one cell or the whole sweep can be
// cancelled, the failed cells rerun, and a lost node's cell goes back to the queue.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CellView, JobSpecInput, RunView } from '../../src-main/contract';
import type { TenderCore } from '../../src-main/core/tender-core';
import { runToEnd, runView, useLocalHomes } from '../helpers/local-cores';
import { eventuallyAsync } from '../helpers/wait';

const localHome = useLocalHomes('tender-sweep-');

const job = (work: string, root: string, extra: Partial<JobSpecInput> = {}): JobSpecInput => ({
  name: 'grid',
  setup: `echo setup >> ${root}/setup-count`,
  run: 'mkdir -p out; echo "cell $TENDER_JOB_ID lr=$TENDER_PARAM_LR seed=$TENDER_PARAM_SEED e=$TENDER_PARAM_E"; echo "$TENDER_PARAM_LR/$TENDER_PARAM_SEED" > out/result.txt; echo "{\\"step\\": 1, \\"loss\\": $TENDER_PARAM_SEED}" >> "$TENDER_METRICS"',
  outputs: ['out/result.txt'],
  params: { E: '3' },
  workspace: { workdir: work, exclude: [] },
  ...extra,
});

async function cells(core: TenderCore, runId: string): Promise<CellView[]> {
  const r = await core.client.invoke('run.cells', { runId });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

async function agentLines(core: TenderCore, runId: string) {
  const out = await core.client.invoke('logs.read', { runId, channel: 'agent', limit: 100_000 });
  return out.ok ? out.value.records : [];
}

async function start(core: TenderCore, input: Parameters<typeof runToEnd>[1]): Promise<RunView> {
  const started = await core.client.invoke('run.start', input);
  if (!started.ok) throw new Error(started.error.message);
  return started.value;
}

describe('sweeps (local provider)', () => {
  it('6 cells on 2 nodes: setup once per machine, each cell its own outputs, receipt and log', async () => {
    const { open, work, root } = localHome();
    const core = open();
    const run = await runToEnd(core, {
      job: job(work, root, { sweep: { axes: { LR: ['1e-4', '3e-4'], SEED: ['1', '2', '3'] } } }),
      pool: { provider: 'local', count: 2, verify: [] },
    });
    expect(run.status, run.failedReason ?? '').toBe('completed');
    expect(run.sweep).toEqual({
      total: 6,
      queued: 0,
      running: 0,
      completed: 6,
      failed: 0,
      cancelled: 0,
    });
    const all = await cells(core, run.id);
    expect(all.map((c) => [c.id, c.values])).toEqual([
      ['j0', { LR: '1e-4', SEED: '1' }],
      ['j1', { LR: '1e-4', SEED: '2' }],
      ['j2', { LR: '1e-4', SEED: '3' }],
      ['j3', { LR: '3e-4', SEED: '1' }],
      ['j4', { LR: '3e-4', SEED: '2' }],
      ['j5', { LR: '3e-4', SEED: '3' }],
    ]);
    // Both nodes served; setup ran once, not once per cell: the two local nodes are one
    // machine, whose environment is built once (the other node waits on its build lock and
    // finds it ready — setup is cached by default).
    expect(new Set(all.map((c) => c.node))).toEqual(new Set(['node-0', 'node-1']));
    expect(readFileSync(join(root, 'setup-count'), 'utf8').trim().split('\n')).toHaveLength(1);
    const records = await agentLines(core, run.id);
    for (const c of all) {
      expect(c.status).toBe('completed');
      expect(c.exitCode).toBe(0);
      expect(readFileSync(join(c.outputsDir, 'out/result.txt'), 'utf8').trim()).toBe(
        `${c.values.LR}/${c.values.SEED}`,
      );
      // Its log: the records of its node between its seqs hold its line and no other cell's.
      const [from, to] = c.seq!;
      const mine = records
        .filter(
          (r) =>
            r.node === `${run.id}/${c.node}` && r.seq >= from && r.seq <= to! && r.source === 'run',
        )
        .map((r) => r.line);
      expect(mine).toEqual([`cell ${run.id}.${c.id} lr=${c.values.LR} seed=${c.values.SEED} e=3`]);
    }
    const receipts = await core.client.invoke('run.receipts', { runId: run.id, cellId: 'j4' });
    if (!receipts.ok) throw new Error(receipts.error.message);
    expect(receipts.value).toHaveLength(1);
    const r = receipts.value[0]!;
    expect(r.jobId).toBe(`${run.id}.j4`);
    expect(r.cell).toEqual({ id: 'j4', values: { LR: '3e-4', SEED: '2' } });
    expect(r.job.params).toEqual({ E: '3', LR: '3e-4', SEED: '2' });
    expect(r.outputs.files.map((f) => f.path)).toEqual(['out/result.txt']);
    expect(r.status).toBe('completed');
    // Each cell's metrics are its own.
    const metrics = await core.client.invoke('run.metrics', { runId: run.id });
    if (!metrics.ok) throw new Error(metrics.error.message);
    expect(metrics.value.series.map((m) => [m.cellId, m.name, m.points]).sort()).toEqual(
      all.map((c) => [c.id, 'loss', [[1, Number(c.values.SEED)]]]),
    );
    const one = await core.client.invoke('run.metrics', { runId: run.id, cellId: 'j4' });
    expect(one.ok && one.value.series.map((m) => [m.cellId, m.points])).toEqual([['j4', [[1, 2]]]]);
    const every = await core.client.invoke('run.receipts', { runId: run.id });
    expect(every.ok && every.value.map((x) => x.cell?.id)).toEqual(all.map((c) => c.id));
  });

  it('a failing cell fails alone; --failed reruns just it, with its id and values', async () => {
    const { open, work, root } = localHome();
    const core = open();
    const failing = job(work, root, {
      run: 'echo "x=$TENDER_PARAM_X"; test "$TENDER_PARAM_X" != bad',
      outputs: [],
      sweep: { axes: { X: ['a', 'bad', 'c'] } },
    });
    const run = await runToEnd(core, {
      job: failing,
      pool: { provider: 'local', count: 2, verify: [] },
    });
    expect(run.status).toBe('failed');
    expect(run.failedReason).toBe('1 of 3 cells failed (j1: run exited 1)');
    const first = await cells(core, run.id);
    expect(first.map((c) => [c.id, c.status, c.exitCode])).toEqual([
      ['j0', 'completed', 0],
      ['j1', 'failed', 1],
      ['j2', 'completed', 0],
    ]);
    const again = await core.client.invoke('run.rerun', { runId: run.id, failed: true });
    if (!again.ok) throw new Error(again.error.message);
    await core.waitRun(again.value.id);
    const second = await cells(core, again.value.id);
    expect(second.map((c) => [c.id, c.values, c.status])).toEqual([['j1', { X: 'bad' }, 'failed']]);
    // One node for one cell.
    expect((await runView(core, again.value.id)).nodes).toHaveLength(1);
    // A run with nothing failed has nothing to rerun.
    const ok = await runToEnd(core, {
      job: { ...failing, sweep: { axes: { X: ['a'] } } },
      pool: { provider: 'local', count: 1, verify: [] },
    });
    const none = await core.client.invoke('run.rerun', { runId: ok.id, failed: true });
    expect(!none.ok && none.error.message).toMatch(/completed: none to rerun/);
  });

  it('one cell cancelled while running, one while queued: the node goes on, the run completes', async () => {
    const { open, work, root } = localHome();
    const core = open();
    const run = await start(core, {
      job: job(work, root, {
        run: 'echo "s=$TENDER_PARAM_S"; if [ "$TENDER_PARAM_S" = long ]; then sleep 60; fi',
        outputs: [],
        sweep: { axes: { S: ['long', 'short', 'other'] } },
      }),
      pool: { provider: 'local', count: 1, verify: [] },
    });
    await eventuallyAsync(async () => (await cells(core, run.id))[0]!.status === 'running');
    const queued = await core.client.invoke('run.cancelCell', { runId: run.id, cellId: 'j2' });
    expect(queued.ok && queued.value.status).toBe('cancelled');
    await eventuallyAsync(async () =>
      (await agentLines(core, run.id)).some((r) => r.line === 's=long'),
    );
    const running = await core.client.invoke('run.cancelCell', { runId: run.id, cellId: 'j0' });
    expect(running.ok, !running.ok ? running.error.message : '').toBe(true);
    await core.waitRun(run.id);
    const v = await runView(core, run.id);
    expect(v.status).toBe('completed');
    expect(v.failedReason).toBe('2 of 3 cells cancelled');
    expect((await cells(core, run.id)).map((c) => [c.id, c.status])).toEqual([
      ['j0', 'cancelled'],
      ['j1', 'completed'],
      ['j2', 'cancelled'],
    ]);
    const ended = await core.client.invoke('run.cancelCell', { runId: run.id, cellId: 'j1' });
    expect(!ended.ok && ended.error.message).toMatch(/has already ended \(completed\)/);
  });

  it('cancelling the sweep cancels the running cell and every queued one', async () => {
    const { open, work, root } = localHome();
    const core = open();
    const run = await start(core, {
      job: job(work, root, {
        run: 'sleep 60',
        outputs: [],
        sweep: { axes: { S: ['1', '2', '3'] } },
      }),
      pool: { provider: 'local', count: 1, verify: [] },
    });
    await eventuallyAsync(async () => (await cells(core, run.id))[0]!.status === 'running');
    await core.client.invoke('run.cancel', { runId: run.id });
    await core.waitRun(run.id);
    const v = await runView(core, run.id);
    expect(v.status).toBe('cancelled');
    expect((await cells(core, run.id)).map((c) => c.status)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
  });

  it("a lost node's cell goes back to the queue ([recovery] node_lost) and completes", async () => {
    const { open, work, root, home } = localHome();
    const core = open();
    const run = await start(core, {
      job: job(work, root, {
        run: 'echo "s=$TENDER_PARAM_S attempt=$TENDER_ATTEMPT"; if [ "$TENDER_PARAM_S" = 1 ] && [ "$TENDER_ATTEMPT" = 0 ]; then sleep 60; fi',
        outputs: [],
        recovery: { max_restarts: 1, on: ['node_lost'] },
        sweep: { axes: { S: ['1', '2'] } },
      }),
      pool: { provider: 'local', count: 1, verify: [] },
    });
    await eventuallyAsync(async () =>
      (await agentLines(core, run.id)).some((r) => r.line === 's=1 attempt=0'),
    );
    const label = core.ledger.nodesOfRun(run.id)[0]!.label;
    execFileSync('pkill', ['-KILL', '-f', label]);
    rmSync(join(home, 'local', 'leases', label), { recursive: true, force: true });
    await core.waitRun(run.id);
    const v = await runView(core, run.id);
    expect(v.status, v.failedReason ?? '').toBe('completed');
    const all = await cells(core, run.id);
    expect(all.map((c) => [c.id, c.status, c.tries])).toEqual([
      ['j0', 'completed', 2],
      ['j1', 'completed', 1],
    ]);
    const said = (await agentLines(core, run.id))
      .filter((r) => r.source === 'run')
      .map((r) => r.line);
    expect(said).toEqual(['s=1 attempt=0', 's=1 attempt=1', 's=2 attempt=0']);
    expect(existsSync(join(root, 'setup-count'))).toBe(true);
  });
});

describe('memoization (cache = true)', () => {
  it('a rerun after one axis changed runs only the new cells; hits take the outputs and say from where', async () => {
    const { open, work, root } = localHome();
    const core = open();
    const memo = (lr: string[]) =>
      job(work, root, { cache: true, sweep: { axes: { LR: lr, SEED: ['1'] } } });
    const pool = { provider: 'local', count: 2, verify: [] };
    const first = await runToEnd(core, { job: memo(['1e-4', '3e-4']), pool });
    expect(first.status).toBe('completed');
    const second = await runToEnd(core, { job: memo(['1e-4', '3e-4', '1e-3']), pool });
    expect(second.status, second.failedReason ?? '').toBe('completed');
    const all = await cells(core, second.id);
    expect(all.map((c) => [c.id, c.values.LR, c.cacheHit])).toEqual([
      ['j0', '1e-4', { runId: first.id, cellId: 'j0' }],
      ['j1', '3e-4', { runId: first.id, cellId: 'j1' }],
      ['j2', '1e-3', null],
    ]);
    // One cell to run: one node rented, not two.
    expect(second.nodes).toHaveLength(1);
    const ran = (await agentLines(core, second.id)).filter((r) => r.source === 'run');
    expect(ran.map((r) => r.line)).toEqual([`cell ${second.id}.j2 lr=1e-3 seed=1 e=3`]);
    expect(readFileSync(join(all[0]!.outputsDir, 'out/result.txt'), 'utf8').trim()).toBe('1e-4/1');
    const receipts = await core.client.invoke('run.receipts', { runId: second.id });
    if (!receipts.ok) throw new Error(receipts.error.message);
    expect(receipts.value.map((r) => r.cache?.hit ?? null)).toEqual([
      { runId: first.id, jobId: 'j0' },
      { runId: first.id, jobId: 'j1' },
      null,
    ]);
    expect(receipts.value[2]!.cache?.key).toMatch(/^ck1_/);

    // Everything cached: nothing is rented, the run completes at once. An edited workspace
    // is another key: every cell runs again.
    const third = await runToEnd(core, { job: memo(['1e-4', '3e-4', '1e-3']), pool });
    expect(third.status).toBe('completed');
    expect(third.nodes).toHaveLength(0);
    writeFileSync(join(work, 'hello.txt'), 'changed\n');
    const fourth = await runToEnd(core, { job: memo(['1e-4']), pool });
    expect((await cells(core, fourth.id)).map((c) => c.cacheHit)).toEqual([null]);
  });
});
