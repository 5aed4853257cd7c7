import { describe, expect, it } from 'vitest';
import type { PhaseState } from '../../../src-agent/wire/protocol';
import { PhaseTracker } from './phase-tracker';

const st = (phase: 'setup' | 'run', state: 'running' | 'exited', code: number | null = null) =>
  ({
    phase,
    command: 'true',
    state,
    pid: 1,
    startedAt: 0,
    exitedAt: state === 'exited' ? 1 : null,
    code,
    signal: null,
  }) as PhaseState;

describe('PhaseTracker', () => {
  it('a wait resolves with the exit, not with a running report', async () => {
    const t = new PhaseTracker();
    const order: string[] = [];
    const exited = t.exited('run').then((s) => order.push(`exited ${s.code}`));
    t.observe(st('run', 'running'));
    await Promise.resolve();
    order.push('after running');
    t.observe(st('run', 'exited', 3));
    await exited;
    expect(order).toEqual(['after running', 'exited 3']);
  });

  it('an exit reported before the wait resolves it at once', async () => {
    const t = new PhaseTracker();
    t.observe(st('setup', 'exited', 0));
    await expect(t.exited('setup')).resolves.toMatchObject({ phase: 'setup', code: 0 });
  });

  it('every waiter on a phase is told, and only of its own phase', async () => {
    const t = new PhaseTracker();
    const a = t.exited('run');
    const b = t.exited('run');
    let setupDone = false;
    void t.exited('setup').then(() => (setupDone = true));
    t.observe(st('run', 'exited', 0));
    await expect(Promise.all([a, b])).resolves.toHaveLength(2);
    expect(setupDone).toBe(false);
  });

  it.each<[PhaseState[], string[]]>([
    [[], []],
    [[st('setup', 'running')], ['setup']],
    [[st('setup', 'exited'), st('run', 'running')], ['run']],
    [[st('run', 'running'), st('run', 'exited')], []],
  ])('running after %j → %j', (reports, want) => {
    const t = new PhaseTracker();
    reports.forEach((r) => t.observe(r));
    expect(t.running()).toEqual(want);
  });
});
