// The gang's decisions with fake agents: the barrier, the pre-flight's refusals named,
// the stop rules, a restart on a recovered rank, and no restart once a rank has ended.
import { describe, expect, it } from 'vitest';
import { initialJobState, type JobEvent, type JobState } from '../fsm/job-fsm';
import { Gang, type GangDeps, type GangMember } from './gang';

function harness(
  size: number,
  stopRule: 'all' | 'rank0' = 'all',
  refuse: Record<number, string> = {},
) {
  const stops: [number, string | undefined][] = [];
  const restarts: number[] = [];
  const notes: string[] = [];
  const deps: GangDeps = {
    size,
    masterPort: 29500,
    stopRule,
    note: (l) => notes.push(l),
    stopRank: (r, why) => stops.push([r, why]),
    restartRank: (r) => restarts.push(r),
    now: () => 0,
  };
  const gang = new Gang(deps);
  const member = (rank: number, listen: 'ok' | 'in use' = 'ok'): GangMember => ({
    rank,
    gpus: 1,
    address: { host: `10.0.0.${rank + 1}`, portSeen: (p) => p },
    request: (async (op: string) => {
      if (op === 'probe.listen' && listen === 'in use')
        throw new Error('agent probe.listen: port 29500 is in use on this node');
      if (op === 'probe.connect')
        return refuse[rank] ? { ok: false, error: refuse[rank] } : { ok: true, ms: 1 };
      return {};
    }) as GangMember['request'],
  });
  return { gang, member, stops, restarts, notes };
}

const running = (attempt = 0): JobState => ({
  ...initialJobState({ hasWorkspace: false, hasSetup: false }),
  status: 'running',
  phase: 'run',
  attempt,
});
const exitWith = (code: number): [JobEvent, JobState] => [
  { type: 'JobExited', code, signal: null },
  { ...running(), phase: 'collecting', status: code === 0 ? 'running' : 'failed', exitCode: code },
];

async function startAll(h: ReturnType<typeof harness>, size: number) {
  const starts = await Promise.all([...Array(size).keys()].map((r) => h.gang.arrive(h.member(r))));
  await Promise.all([...Array(size).keys()].map((r) => h.gang.configured(r)));
  return starts;
}

describe('Gang', () => {
  it('gives each rank its environment once all have arrived and rank 0 was reached', async () => {
    const h = harness(3);
    const starts = await startAll(h, 3);
    expect(starts.map((s) => s.kind === 'go' && s.env.TENDER_NODE_RANK)).toEqual(['0', '1', '2']);
    expect(starts.every((s) => s.kind === 'go' && s.env.MASTER_ADDR === '10.0.0.1')).toBe(true);
  });

  it.each([
    [
      { 2: 'ECONNREFUSED' },
      /^rank 2 \(10\.0\.0\.3\) cannot reach rank 0 at 10\.0\.0\.1:29500 \(ECONNREFUSED\): .*not mapped/,
    ],
    [
      { 1: 'timeout' },
      /^rank 1 \(10\.0\.0\.2\) cannot reach rank 0 .*\(timeout\): no answer: a firewall that drops/,
    ],
  ])('a refused pre-flight %j stops every rank, naming the pair', async (refuse, reason) => {
    const h = harness(3, 'all', refuse);
    const starts = await Promise.all([0, 1, 2].map((r) => h.gang.arrive(h.member(r))));
    expect(starts.every((s) => s.kind === 'stopped')).toBe(true);
    expect(h.gang.outcome()?.failedReason).toMatch(reason);
    expect(h.stops.map(([r]) => r).sort()).toEqual([0, 1, 2]);
  });

  it('a rank 0 that cannot listen names its port and the fix', async () => {
    const h = harness(2);
    const s = await Promise.all([h.gang.arrive(h.member(0, 'in use')), h.gang.arrive(h.member(1))]);
    expect(s[0]).toEqual({
      kind: 'stopped',
      reason:
        'rank 0 (10.0.0.1) cannot listen on port 29500: port 29500 is in use on this node — pick another master_port',
    });
  });

  it('stop = all: one rank failing stops the others with its reason; exits 0 stop nobody', async () => {
    const h = harness(3);
    await startAll(h, 3);
    h.gang.observe(1, ...([exitWith(0)[0], running(), exitWith(0)[1]] as const));
    expect(h.stops).toEqual([]);
    const [ev, next] = exitWith(3);
    h.gang.observe(2, ev, running(), next);
    expect(h.gang.outcome()).toEqual({ status: 'failed', failedReason: 'rank 2 failed (exit 3)' });
    expect(h.stops).toEqual([[0, 'rank 2 failed (exit 3): stopped with it']]);
  });

  it('stop = rank0: the run is rank 0’s; the others are stopped (cancelled) when it ends', async () => {
    const h = harness(2, 'rank0');
    await startAll(h, 2);
    const [ev, next] = exitWith(0);
    h.gang.observe(0, ev, running(), next);
    expect(h.gang.outcome()).toEqual({ status: 'completed', failedReason: null });
    expect(h.stops).toEqual([[1, undefined]]);
  });

  it('a rank recovered after the start restarts the others; once one has ended it cannot', async () => {
    const h = harness(3);
    await startAll(h, 3);
    const lost: JobEvent = { type: 'NodeLost', reason: 'gone' };
    h.gang.observe(1, lost, running(0), {
      ...running(1),
      phase: 'provisioning',
      recoveredFrom: 'the node was lost (gone)',
    });
    expect(h.restarts.sort()).toEqual([0, 2]);
    expect(h.notes.join('\n')).toMatch(
      /rank 1 was lost \(the node was lost \(gone\)\): the whole gang restarts/,
    );

    const h2 = harness(3);
    await startAll(h2, 3);
    h2.gang.observe(2, ...([exitWith(0)[0], running(), exitWith(0)[1]] as const));
    h2.gang.observe(1, lost, running(0), {
      ...running(1),
      phase: 'provisioning',
      recoveredFrom: 'x',
    });
    expect(h2.restarts).toEqual([]);
    expect(h2.gang.outcome()?.failedReason).toMatch(
      /after rank 2 had ended: a gang restarts whole or not at all/,
    );
  });

  it('a rank failing before the start stops the gang; later arrivals are stopped at once', async () => {
    const h = harness(3);
    const first = h.gang.arrive(h.member(0));
    h.gang.observe(
      2,
      { type: 'SetupExited', code: 1, signal: null },
      { ...running(), phase: 'setup' },
      {
        ...running(),
        phase: 'collecting',
        status: 'failed',
        reason: 'setup exited 1',
      },
    );
    expect(await first).toEqual({
      kind: 'stopped',
      reason: 'rank 2 failed before the start (setup exited 1)',
    });
    expect((await h.gang.arrive(h.member(1))).kind).toBe('stopped');
  });
});
