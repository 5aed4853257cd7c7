import { describe, expect, it } from 'vitest';
import type { JobPhase } from '../../contract';
import { initialJobState, jobTransition, type JobEvent, type JobState } from './job-fsm';

const full = initialJobState({ hasWorkspace: true, hasSetup: true });
const at = (phase: JobPhase, extra: Partial<JobState> = {}): JobState => ({
  ...full,
  status: phase === 'provisioning' ? 'pending' : 'running',
  phase,
  ...extra,
});

const E: Record<string, JobEvent> = {
  submitted: { type: 'JobSubmitted' },
  ready: { type: 'NodeReady' },
  materialized: { type: 'WorkspaceMaterialized' },
  setupOk: { type: 'SetupExited', code: 0, signal: null },
  setupFail: { type: 'SetupExited', code: 2, signal: null },
  exit0: { type: 'JobExited', code: 0, signal: null },
  exit3: { type: 'JobExited', code: 3, signal: null },
  killed: { type: 'JobExited', code: null, signal: 'SIGKILL' },
  idleStopped: {
    type: 'JobExited',
    code: null,
    signal: 'SIGTERM',
    stoppedBy: 'GPU idle rule: every GPU under 10% for 30m while the job ran',
  },
  collected: { type: 'OutputsCollected', missing: [] },
  collectFailed: { type: 'OutputsFailed', error: 'disk full' },
  fault: { type: 'NodeFault', reason: 'bootstrap failed' },
  lost: { type: 'NodeLost', reason: 'the provider no longer lists the lease' },
  stop: { type: 'OperatorStop' },
  policyStop: { type: 'OperatorStop', reason: 'budget reached ($25.00 of $25.00)' },
  torn: { type: 'TeardownComplete', error: null },
  gangRestart: { type: 'GangRestart', reason: 'rank 1 was lost' },
};

// The job FSM's table, row by row: [from, event, commands, to-phase, to-status]
const rows: [JobState, keyof typeof E, string[], JobPhase, string][] = [
  [at('provisioning'), 'submitted', ['ProvisionNode'], 'provisioning', 'pending'],
  [at('provisioning'), 'ready', ['MaterializeWorkspace'], 'materializing', 'running'],
  [at('materializing'), 'materialized', ['RunSetup'], 'setup', 'running'],
  [at('setup'), 'setupOk', ['RunJob'], 'run', 'running'],
  [at('setup'), 'setupFail', ['CollectOutputs'], 'collecting', 'failed'],
  [at('run'), 'exit0', ['CollectOutputs'], 'collecting', 'running'],
  [at('collecting'), 'collected', ['TeardownNode'], 'tearing_down', 'completed'],
  [at('run'), 'exit3', ['CollectOutputs'], 'collecting', 'failed'],
  // Stopped by the node on its GPU idle rule: a stop by policy, failed, outputs collected.
  [at('run'), 'idleStopped', ['CollectOutputs'], 'collecting', 'failed'],
  [at('collecting', { status: 'failed' }), 'collected', ['TeardownNode'], 'tearing_down', 'failed'],
  [
    at('collecting', { status: 'failed' }),
    'collectFailed',
    ['TeardownNode'],
    'tearing_down',
    'failed',
  ],
  [at('collecting'), 'collectFailed', ['TeardownNode'], 'tearing_down', 'failed'],
  [at('provisioning'), 'fault', ['TeardownNode'], 'tearing_down', 'failed'],
  [at('run'), 'lost', ['TeardownNode'], 'tearing_down', 'failed'],
  // Stopped by its user: cancelled, not failed. Stopped by policy: failed, with the reason.
  [at('provisioning'), 'stop', ['TeardownNode'], 'tearing_down', 'cancelled'],
  [at('run'), 'stop', ['CancelJob', 'CollectOutputs'], 'collecting', 'cancelled'],
  [at('setup'), 'stop', ['CancelJob', 'CollectOutputs'], 'collecting', 'cancelled'],
  [at('collecting'), 'stop', [], 'collecting', 'cancelled'],
  [at('collecting', { status: 'failed' }), 'stop', [], 'collecting', 'failed'],
  [
    at('collecting', { status: 'cancelled' }),
    'collected',
    ['TeardownNode'],
    'tearing_down',
    'cancelled',
  ],
  [at('provisioning'), 'policyStop', ['TeardownNode'], 'tearing_down', 'failed'],
  [at('run'), 'policyStop', ['CancelJob', 'CollectOutputs'], 'collecting', 'failed'],
  [at('collecting'), 'policyStop', [], 'collecting', 'failed'],
  [at('tearing_down', { status: 'completed' }), 'torn', [], 'done', 'completed'],
  // A healthy rank of a gang that restarts: its run stopped and started again.
  [at('run'), 'gangRestart', ['CancelJob', 'RunJob'], 'run', 'running'],
];

describe('a gang restart', () => {
  it('is a new attempt of a running rank, and nothing to a rank not running', () => {
    const out = jobTransition(at('run', { attempt: 1 }), E.gangRestart!);
    expect(out.state).toMatchObject({ attempt: 2, recoveredFrom: 'rank 1 was lost', phase: 'run' });
    for (const phase of ['setup', 'collecting', 'tearing_down'] as const)
      expect(jobTransition(at(phase), E.gangRestart!).ignored).toBe(`GangRestart in ${phase}`);
  });
});

describe('job FSM: the event → command table', () => {
  for (const [from, ev, commands, phase, status] of rows) {
    it(`${from.phase}/${from.status} + ${ev} → ${commands.join(', ') || '(none)'} → ${phase}/${status}`, () => {
      const out = jobTransition(from, E[ev]!);
      expect(out.ignored).toBeUndefined();
      expect(out.commands).toEqual(commands);
      expect(out.state.phase).toBe(phase);
      expect(out.state.status).toBe(status);
    });
  }

  it('skips materialization without a workspace and setup without a setup command', () => {
    const bare = initialJobState({ hasWorkspace: false, hasSetup: false });
    expect(jobTransition(bare, E.ready!).commands).toEqual(['RunJob']);
    const noWs = initialJobState({ hasWorkspace: false, hasSetup: true });
    expect(jobTransition(noWs, E.ready!).commands).toEqual(['RunSetup']);
    const noSetup = {
      ...initialJobState({ hasWorkspace: true, hasSetup: false }),
      phase: 'materializing' as const,
    };
    expect(jobTransition(noSetup, E.materialized!).commands).toEqual(['RunJob']);
  });

  it('the exit code is authoritative and named in the reason', () => {
    expect(jobTransition(at('run'), E.exit3!).state).toMatchObject({
      exitCode: 3,
      reason: 'run exited 3',
    });
    expect(jobTransition(at('run'), E.killed!).state).toMatchObject({
      status: 'failed',
      reason: 'run killed by SIGKILL',
    });
    expect(jobTransition(at('setup'), E.setupFail!).state.reason).toBe('setup exited 2');
  });

  it('missing outputs keep a completed job completed, with a note', () => {
    const out = jobTransition(at('collecting'), {
      type: 'OutputsCollected',
      missing: ['out/a.json'],
    });
    expect(out.state).toMatchObject({ status: 'completed', reason: 'outputs missing: out/a.json' });
  });

  it('a run the GPU idle rule stopped fails with the rule as its reason', () => {
    expect(jobTransition(at('run'), E.idleStopped!).state).toMatchObject({
      status: 'failed',
      reason: 'GPU idle rule: every GPU under 10% for 30m while the job ran',
    });
  });

  it('ignores late and duplicate events instead of moving backwards', () => {
    for (const ev of Object.values(E)) {
      const out = jobTransition(at('done', { status: 'completed' }), ev);
      expect(out.ignored).toBeTruthy();
    }
    expect(jobTransition(at('run'), E.setupOk!).ignored).toBeTruthy();
    expect(jobTransition(at('tearing_down', { status: 'failed' }), E.stop!).ignored).toBeTruthy();
    expect(jobTransition(at('collecting'), E.exit0!).ignored).toBeTruthy();
  });
});

describe('recovery ([recovery] max_restarts, on)', () => {
  const rules = (on: string[], attempt = 0, maxRestarts = 2) =>
    ({ recoverOn: on, maxRestarts, attempt }) satisfies Partial<JobState>;
  const exit137: JobEvent = { type: 'JobExited', code: 137, signal: null };
  const lost: JobEvent = { type: 'NodeLost', reason: 'the lease is gone' };
  const fault: JobEvent = { type: 'NodeFault', reason: 'link closed' };

  it.each<[string, JobState, JobEvent, string[], number, string]>([
    [
      'a listed exit starts attempt 1',
      at('run', rules(['exit_code:137'])),
      exit137,
      ['RecoverNode'],
      1,
      'provisioning',
    ],
    [
      'a stop by the GPU idle rule is never recovered, whatever its exit',
      at('run', rules(['exit_code:143'])),
      { type: 'JobExited', code: 143, signal: null, stoppedBy: 'GPU idle rule: …' },
      ['CollectOutputs'],
      0,
      'collecting',
    ],
    [
      'an exit not listed fails',
      at('run', rules(['exit_code:1'])),
      exit137,
      ['CollectOutputs'],
      0,
      'collecting',
    ],
    [
      'a node proved lost while running',
      at('run', rules(['node_lost'])),
      lost,
      ['RecoverNode'],
      1,
      'provisioning',
    ],
    [
      'a node proved lost during setup',
      at('setup', rules(['node_lost'])),
      lost,
      ['RecoverNode'],
      1,
      'provisioning',
    ],
    [
      'a fault is never a recovery (only proof is)',
      at('run', rules(['node_lost'])),
      fault,
      ['TeardownNode'],
      0,
      'tearing_down',
    ],
    [
      'restarts exhausted: the run fails',
      at('run', rules(['exit_code:137'], 2, 2)),
      exit137,
      ['CollectOutputs'],
      2,
      'collecting',
    ],
    ['no rules: nothing is recovered', at('run'), lost, ['TeardownNode'], 0, 'tearing_down'],
    [
      'preempted, listed',
      at('run', rules(['preempted'])),
      { type: 'NodeLost', reason: 'outbid', cause: 'preempted' },
      ['RecoverNode'],
      1,
      'provisioning',
    ],
    [
      'preempted, only node_lost listed: fails',
      at('run', rules(['node_lost'])),
      { type: 'NodeLost', reason: 'outbid', cause: 'preempted' },
      ['TeardownNode'],
      0,
      'tearing_down',
    ],
    [
      'a loss while collecting is not recovered (the job had ended)',
      at('collecting', rules(['node_lost'])),
      lost,
      ['TeardownNode'],
      0,
      'tearing_down',
    ],
  ])('%s', (_, from, event, commands, attempt, phase) => {
    const step = jobTransition(from, event);
    expect(step.commands).toEqual(commands);
    expect(step.state.attempt).toBe(attempt);
    expect(step.state.phase).toBe(phase);
  });

  it('a recovered attempt is running again, its cause kept, no exit code', () => {
    const step = jobTransition(at('run', rules(['exit_code:137'])), exit137);
    expect(step.state).toMatchObject({
      status: 'running',
      exitCode: null,
      reason: null,
      recoveredFrom: 'run exited 137',
    });
    // …and goes through the whole job again.
    expect(jobTransition(step.state, { type: 'NodeReady' }).commands).toEqual([
      'MaterializeWorkspace',
    ]);
  });
});
