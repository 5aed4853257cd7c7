import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LeaseView, RunView, TenderClient } from '../../contract';
import { leaseView } from '../../contract/lease-view.test-util';
import { runView } from '../../contract/run-view.test-util';
import { untilRented } from './rent-wait';

const RUN = 'r-aaaaaa';
const started = { runId: RUN, priceCapPerHour: 0.5, maxDurationMs: 3_600_000 };
const node = { id: `${RUN}/node-0`, jobStatus: 'pending' } as RunView['nodes'][number];

/** A client over a run and a lease list that a case changes, announcing each change. */
function world() {
  let view = runView({ id: RUN, provider: 'vastai', nodes: [node] });
  let leases: LeaseView[] = [leaseView({ runId: RUN, state: 'requested', createdAt: null })];
  let isBroken = false;
  const handlers = new Map<string, Set<(p: unknown) => void>>();
  const emit = (topic: string, payload: unknown) => handlers.get(topic)?.forEach((h) => h(payload));
  const client = {
    invoke: async (cmd: string) => {
      if (isBroken) return { ok: false, error: { code: 'internal', message: 'ledger gone' } };
      return { ok: true, value: cmd === 'run.get' ? view : leases };
    },
    on: (topic: string, h: (p: unknown) => void) => {
      if (!handlers.has(topic)) handlers.set(topic, new Set());
      handlers.get(topic)!.add(h);
      return () => handlers.get(topic)!.delete(h);
    },
  } as unknown as TenderClient;
  return {
    client,
    listeners: () => [...handlers.values()].reduce((n, s) => n + s.size, 0),
    setLease(l: Partial<LeaseView>) {
      leases = [{ ...leases[0]!, ...l }];
      emit('lease.changed', leases[0]);
    },
    setRun(v: Partial<RunView>) {
      view = { ...view, ...v };
      emit('run.changed', view);
    },
    otherRunChanged() {
      emit('lease.changed', leaseView({ runId: 'r-other' }));
      emit('run.changed', runView({ id: 'r-other' }));
    },
    breakReads() {
      isBroken = true;
    },
  };
}

describe('untilRented: the next run is judged once this one has rented', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const cases: [string, (w: ReturnType<typeof world>) => void, boolean][] = [
    ['another run changes', (w) => w.otherRunChanged(), false],
    ['its lease is created', (w) => w.setLease({ state: 'created', createdAt: 1 }), true],
    ['its run fails before renting', (w) => w.setRun({ status: 'failed' }), true],
    [
      'a read fails (ends the wait, never throws)',
      (w) => (w.breakReads(), w.otherRunChanged(), w.setRun({})),
      true,
    ],
  ];
  it.each(cases)('%s → ended: %s', async (_name, act, ends) => {
    const w = world();
    let isEnded = false;
    void untilRented(w.client, started, 20_000).then(() => (isEnded = true));
    await vi.advanceTimersByTimeAsync(10);
    expect(isEnded).toBe(false); // still renting
    act(w);
    await vi.advanceTimersByTimeAsync(10);
    expect(isEnded).toBe(ends);
    if (ends) expect(w.listeners()).toBe(0);
  });

  it('gives up after its bound: the next run is judged with this one counted as renting', async () => {
    const w = world();
    let isEnded = false;
    void untilRented(w.client, started, 20_000).then(() => (isEnded = true));
    await vi.advanceTimersByTimeAsync(19_999);
    expect(isEnded).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(isEnded).toBe(true);
    expect(w.listeners()).toBe(0);
  });

  it('resolves at once for a run that already holds its lease', async () => {
    const w = world();
    w.setLease({ state: 'created', createdAt: 1 });
    let isEnded = false;
    void untilRented(w.client, started, 20_000).then(() => (isEnded = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(isEnded).toBe(true);
  });
});
