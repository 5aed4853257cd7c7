import { describe, expect, it } from 'vitest';
import { node, T0 } from './fixtures.test-util';
import { deadlineLeft, isEndedStage, nodeAge, stageSpans, timelineSteps } from './timeline';

const healthy = node([
  ['new', T0],
  ['lease_requested', T0 + 10],
  ['lease_created', T0 + 200],
  ['endpoint_known', T0 + 5_000],
  ['bootstrap_running', T0 + 5_010],
  ['agent_joined', T0 + 9_000],
  ['handed_off', T0 + 9_020],
  ['dormant', T0 + 9_030],
]);

describe('stage timeline', () => {
  it('gives each stage the time until the next one, and the current one until now', () => {
    const spans = stageSpans(healthy.stages, T0 + 60_000);
    expect(spans.map((s) => s.ms)).toEqual([10, 190, 4_800, 10, 3_990, 20, 10, 60_000 - 9_030]);
    expect(spans.filter((s) => s.isCurrent).map((s) => s.stage)).toEqual(['dormant']);
  });

  it('stops the clock in destroyed: no time accrues after the end', () => {
    const gone = node([
      ['new', T0],
      ['dormant', T0 + 1_000],
      ['destroying', T0 + 5_000],
      ['destroyed', T0 + 6_000],
    ]);
    const spans = stageSpans(gone.stages, T0 + 999_999);
    expect(spans.at(-1)).toMatchObject({ stage: 'destroyed', ms: 0, isCurrent: true });
    expect(nodeAge(gone, T0 + 999_999)).toBe(6_000);
    expect(nodeAge(healthy, T0 + 60_000)).toBe(60_000);
  });

  it('stops the clock in released: the lease passed to a later run ends this node', () => {
    const passed = node([
      ['new', T0],
      ['dormant', T0 + 1_000],
      ['released', T0 + 4_000],
    ]);
    const spans = stageSpans(passed.stages, T0 + 999_999);
    expect(spans.at(-1)).toMatchObject({ stage: 'released', ms: 0, isCurrent: true });
    expect(nodeAge(passed, T0 + 999_999)).toBe(4_000);
    expect(isEndedStage('released')).toBe(true);
    expect(isEndedStage('dormant')).toBe(false);
  });

  it('marks stages jumped over as skipped and those ahead as pending', () => {
    const local = node([
      ['new', T0],
      ['lease_requested', T0 + 1],
      ['endpoint_known', T0 + 5],
      ['bootstrap_running', T0 + 6],
    ]);
    const { steps } = timelineSteps(local.stages, T0 + 100);
    const state = Object.fromEntries(steps.map((s) => [s.stage, s.state]));
    expect(state).toMatchObject({
      new: 'done',
      lease_requested: 'done',
      lease_created: 'skipped',
      endpoint_known: 'done',
      bootstrap_running: 'current',
      agent_joined: 'pending',
      dormant: 'pending',
    });
    expect(steps.find((s) => s.stage === 'bootstrap_running')?.ms).toBe(94);
    expect(steps.some((s) => s.stage === 'failed')).toBe(false);
  });

  it('appends the off-path stages a node entered, after the main path', () => {
    const failed = node([
      ['new', T0],
      ['lease_requested', T0 + 1],
      ['lease_created', T0 + 2],
      ['endpoint_known', T0 + 3],
      ['bootstrap_running', T0 + 4],
      ['failed', T0 + 10],
      ['destroying', T0 + 20],
    ]);
    const { steps } = timelineSteps(failed.stages, T0 + 30);
    expect(steps.slice(-2)).toEqual([
      { stage: 'failed', state: 'done', ms: 10 },
      { stage: 'destroying', state: 'current', ms: 10 },
    ]);
    expect(steps.find((s) => s.stage === 'agent_joined')?.state).toBe('pending');
  });

  it('draws only the attempt after a replacement, and counts the attempts', () => {
    const replaced = node([
      ['new', T0],
      ['lease_requested', T0 + 1],
      ['failed', T0 + 2],
      ['destroying', T0 + 3],
      ['destroyed', T0 + 4],
      ['lease_requested', T0 + 5],
      ['lease_created', T0 + 7],
    ]);
    const { steps, attempt } = timelineSteps(replaced.stages, T0 + 10);
    expect(attempt).toBe(2);
    expect(steps.find((s) => s.stage === 'lease_created')).toEqual({
      stage: 'lease_created',
      state: 'current',
      ms: 3,
    });
    expect(steps.some((s) => s.stage === 'failed')).toBe(false);
  });

  it('says how long the current stage has before it gives up', () => {
    expect(deadlineLeft({ deadlineAt: T0 + 90_000 }, T0 + 30_000)).toBe(60_000);
    expect(deadlineLeft({ deadlineAt: T0 }, T0 + 5_000)).toBe(-5_000);
    expect(deadlineLeft({ deadlineAt: null }, T0)).toBeNull();
  });
});
