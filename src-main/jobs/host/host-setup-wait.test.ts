import { describe, expect, it } from 'vitest';
import type { HostSetupEntry, HostSetupStatus } from '../../../src-agent/wire/protocol';
import {
  type AgentRequest,
  failedDeclaredEntry,
  waitForHostSetup,
  waitingLine,
} from './host-setup-wait';

function entry(id: number, patch: Partial<HostSetupEntry> = {}): HostSetupEntry {
  return {
    id,
    script: `cmd${id}`,
    refreshCapabilities: false,
    origin: 'declared',
    declIndex: id - 1,
    state: 'exited',
    pid: null,
    code: 0,
    signal: null,
    addedAt: 0,
    startedAt: 0,
    exitedAt: 0,
    firstSeq: 1,
    lastSeq: 2,
    ...patch,
  };
}

describe('failedDeclaredEntry', () => {
  // [what, entries, declared, reason]
  // prettier-ignore
  const cases: [string, HostSetupEntry[], string[], string | undefined][] = [
    ['all exited 0', [entry(1), entry(2)], ['cmd1', 'cmd2'], undefined],
    ['nothing declared', [entry(1, { code: 1, origin: 'appended' })], [], undefined],
    ['a failed declared entry, named with its script and code', [entry(1, { script: 'apt-get install -y ffmpeg', code: 100 })], ['apt-get install -y ffmpeg'], 'host_setup[1] `apt-get install -y ffmpeg` exited 100'],
    ['the first failed one in declaration order', [entry(1), entry(2, { code: 2 }), entry(3, { code: 3 })], ['cmd1', 'cmd2', 'cmd3'], 'host_setup[2] `cmd2` exited 2'],
    ['an appended entry that failed is not the job’s', [entry(1), entry(2, { origin: 'appended', declIndex: undefined, code: 9 })], ['cmd1'], undefined],
    ['killed', [entry(1, { code: null, signal: 'SIGKILL' })], ['cmd1'], 'host_setup[1] `cmd1` was killed by SIGKILL'],
    ['its outcome unknown (the agent restarted under it)', [entry(1, { code: null })], ['cmd1'], 'host_setup[1] `cmd1` ended while no agent watched (exit code unknown)'],
    ['an entry of another declaration at that index does not count', [entry(1, { script: 'old', code: 1 })], ['new'], undefined],
    ['the latest entry for a script counts', [entry(1, { code: 1 }), entry(4, { script: 'cmd1', declIndex: 0, code: 0 })], ['cmd1'], undefined],
    ['a multi-line script shows its first line', [entry(1, { script: 'set -e\napt-get update', code: 1 })], ['set -e\napt-get update'], 'host_setup[1] `set -e …` exited 1'],
  ];
  it.each(cases)('%s', (_what, entries, declared, reason) => {
    expect(failedDeclaredEntry(entries, declared)).toBe(reason);
  });
});

describe('waitForHostSetup', () => {
  /** An agent's `request` answering host_setup.status from a script of statuses. */
  function agent(statuses: (HostSetupStatus | Error)[]): {
    request: AgentRequest;
    asked: () => number;
  } {
    let i = 0;
    const request = (async (op: string) => {
      expect(op).toBe('host_setup.status');
      const s = statuses[Math.min(i++, statuses.length - 1)]!;
      if (s instanceof Error) throw s;
      return s;
    }) as AgentRequest;
    return { request, asked: () => i };
  }
  const busy: HostSetupStatus = {
    entries: [
      entry(1, { state: 'running', code: null }),
      entry(2, { state: 'pending', code: null }),
    ],
    drained: false,
  };
  const noSleep = async () => {};

  it('polls until drained, saying once what it waits for', async () => {
    const a = agent([busy, busy, { entries: [entry(1), entry(2)], drained: true }]);
    const lines: string[] = [];
    const out = await waitForHostSetup({
      request: a.request,
      declared: ['cmd1', 'cmd2'],
      onWaiting: (l) => lines.push(l),
      sleep: noSleep,
    });
    expect(out).toEqual({ kind: 'drained' });
    expect(a.asked()).toBe(3);
    expect(lines).toEqual(['waiting for host setup: host_setup[1] `cmd1` running, 1 more pending']);
  });

  it('reports a failed declared entry once drained', async () => {
    const a = agent([{ entries: [entry(1, { code: 100 })], drained: true }]);
    expect(
      await waitForHostSetup({ request: a.request, declared: ['cmd1'], sleep: noSleep }),
    ).toEqual({
      kind: 'failed',
      reason: 'host_setup[1] `cmd1` exited 100',
    });
  });

  it('stops waiting when told to', async () => {
    let stop = false;
    const a = agent([busy]);
    const out = await waitForHostSetup({
      request: a.request,
      declared: [],
      shouldStop: () => stop,
      sleep: async () => void (stop = true),
    });
    expect(out).toEqual({ kind: 'stopped' });
  });

  it('treats an agent without the FIFO as drained, and passes other errors on', async () => {
    const old = agent([Object.assign(new Error('unknown op'), { code: 'unknown_op' })]);
    expect(await waitForHostSetup({ request: old.request, declared: ['x'] })).toEqual({
      kind: 'drained',
    });
    const down = agent([new Error('agent link closed')]);
    await expect(waitForHostSetup({ request: down.request, declared: [] })).rejects.toThrow(
      'link closed',
    );
  });

  it('describes a FIFO with nothing running yet by its first pending entry', () => {
    expect(waitingLine([entry(3, { state: 'pending', code: null })])).toBe(
      'waiting for host setup: host_setup[3] `cmd3` pending',
    );
  });
});
