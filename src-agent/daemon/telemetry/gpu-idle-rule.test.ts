import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../../src-main/contract/policy-duration';
import type { GpuIdleRule } from '../../wire/gpu-idle';
import {
  type GpuIdleDecision,
  type GpuIdleFacts,
  decideGpuIdle,
  ruleWords,
  shortDuration,
} from './gpu-idle-rule';

const RULE: GpuIdleRule = { belowPct: 10, forMs: 30 * 60_000, then: 'stop' };
const MIN = 60_000;

const facts = (over: Partial<GpuIdleFacts>): GpuIdleFacts => ({
  rule: RULE,
  isRunPhaseRunning: true,
  idleSince: 1_000,
  firedFor: null,
  now: 1_000,
  ...over,
});

describe('decideGpuIdle', () => {
  const cases: [string, Partial<GpuIdleFacts>, GpuIdleDecision][] = [
    ['no rule: off', { rule: undefined, now: 1_000 + 60 * MIN }, { kind: 'off' }],
    ['idle from now: the whole window to go', {}, { kind: 'wait', inMs: 30 * MIN }],
    ['idle a minute short of the window', { now: 1_000 + 29 * MIN }, { kind: 'wait', inMs: MIN }],
    ['1 ms short: not yet', { now: 1_000 + 30 * MIN - 1 }, { kind: 'wait', inMs: 1 }],
    [
      'idle for exactly the window: fires',
      { now: 1_000 + 30 * MIN },
      { kind: 'fire', since: 1_000, idleForMs: 30 * MIN },
    ],
    [
      'idle past the window (a late check): fires with the idle time',
      { now: 1_000 + 31 * MIN },
      { kind: 'fire', since: 1_000, idleForMs: 31 * MIN },
    ],
    [
      'a busy GPU (no idle stretch) never fires',
      { idleSince: null, now: 1_000 + 600 * MIN },
      { kind: 'wait', inMs: null },
    ],
    [
      'no run phase (setup, host setup, job ended): never judged',
      { isRunPhaseRunning: false, now: 1_000 + 60 * MIN },
      { kind: 'wait', inMs: null },
    ],
    [
      'the stretch it already acted on does not fire again',
      { firedFor: 1_000, now: 1_000 + 90 * MIN },
      { kind: 'wait', inMs: null },
    ],
    [
      'a new stretch after the GPUs were busy fires again',
      { firedFor: 1_000, idleSince: 50 * MIN, now: 80 * MIN },
      { kind: 'fire', since: 50 * MIN, idleForMs: 30 * MIN },
    ],
    [
      'a short window (a test)',
      { rule: { ...RULE, forMs: 3_000 }, now: 4_000 },
      { kind: 'fire', since: 1_000, idleForMs: 3_000 },
    ],
  ];
  it.each(cases)('%s', (_name, over, expected) => {
    expect(decideGpuIdle(facts(over))).toEqual(expected);
  });
});

describe('ruleWords', () => {
  it.each([
    [RULE, 'stop after 30m under 10%'],
    [{ belowPct: 5, forMs: 90 * MIN, then: 'teardown' } as const, 'teardown after 1h30m under 5%'],
    [{ belowPct: 2.5, forMs: 1_500, then: 'notify' } as const, 'notify after 1.5s under 2.5%'],
  ])('%j → %s', (rule, words) => {
    expect(ruleWords(rule)).toBe(words);
  });
});

// The agent's twin of the app's formatDuration (they may not import each other): the same
// words for whole seconds and from a minute up, so the node and the app say a rule alike.
describe('shortDuration beside the app’s formatDuration', () => {
  it.each([1_000, 45_000, 60_000, 90_500, 30 * MIN, 90 * MIN + 1_400, 26 * 60 * MIN])(
    '%i ms: the same',
    (ms) => expect(shortDuration(ms)).toBe(formatDuration(ms)),
  );
  it.each([
    [1_500, '1.5s', '2s'],
    [500, '0.5s', '500ms'],
  ])('%i ms below a minute: tenths (%s), where the app says %s', (ms, agent, app) => {
    expect(shortDuration(ms)).toBe(agent);
    expect(formatDuration(ms)).toBe(app);
  });
});
