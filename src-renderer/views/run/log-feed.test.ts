import { describe, expect, it } from 'vitest';
import type { LogChannel, LogRecord } from '../../../src-main/contract';
import { LogFeed } from './log-feed';
import { rec } from './log-record.test-util';

/** A datastream: records by channel, read by seq like logs.read. */
class Store {
  readonly byChannel: Record<LogChannel, LogRecord[]> = { bootstrap: [], agent: [], events: [] };
  reads: { channel: LogChannel; fromSeq: number }[] = [];
  hold: Promise<void> | null = null;
  add(...rs: LogRecord[]) {
    for (const r of rs) this.byChannel[r.channel].push(r);
    return rs;
  }
  async tailStart(channel: LogChannel, lines: number) {
    const list = this.byChannel[channel];
    return list.length === 0 ? null : list[Math.max(0, list.length - lines)]!.seq;
  }
  async read(channel: LogChannel, fromSeq: number, limit: number) {
    this.reads.push({ channel, fromSeq });
    const snapshot = this.byChannel[channel].filter((r) => r.seq >= fromSeq).slice(0, limit);
    if (this.hold) await this.hold;
    return snapshot;
  }
}

function setup(
  readPage = 100,
  more: {
    maxHeld?: number;
    skipAhead?: number;
    tailLines?: number;
    burstRecords?: number;
    settleMs?: number;
    withTail?: boolean;
  } = {},
) {
  const store = new Store();
  const written: LogRecord[] = [];
  const notes: string[] = [];
  const feed = new LogFeed({
    ...more,
    onSkip: (n, where) => notes.push(`${n} ${where}`),
    read: (c, from, limit) => store.read(c, from, limit),
    ...(more.withTail ? { tailStart: (c: LogChannel, n: number) => store.tailStart(c, n) } : {}),
    write: (rs) => written.push(...rs),
    readPage,
    retryMs: 1,
  });
  const ids = () => written.map((r) => `${r.channel[0]}${r.seq}`);
  return { store, feed, written, ids, notes };
}

const settle = () => new Promise((r) => setTimeout(r, 5));

describe('LogFeed', () => {
  it('opens a long stored log at its tail: only the newest lines are read, the rest noted', async () => {
    const { store, feed, ids, notes } = setup(100, { tailLines: 5, withTail: true });
    store.add(...Array.from({ length: 1_000 }, (_, i) => rec('agent', i + 1)));
    store.add(rec('events', 1, 0));
    feed.start();
    await settle();
    expect(ids()).toEqual(['e1', 'a996', 'a997', 'a998', 'a999', 'a1000']);
    expect(notes).toEqual(['995 earlier']);
    expect(store.reads.filter((r) => r.channel === 'agent')).toEqual([
      { channel: 'agent', fromSeq: 996 },
    ]);
  });

  it('writes the backlog merged by time, then live batches, each record once', async () => {
    const { store, feed, ids } = setup();
    store.add(
      rec('bootstrap', 1, 1),
      rec('bootstrap', 2, 2),
      rec('events', 1, 3),
      rec('agent', 1, 4),
    );
    feed.start();
    await settle();
    expect(ids()).toEqual(['b1', 'b2', 'e1', 'a1']);
    feed.live(store.add(rec('agent', 2, 5), rec('agent', 3, 6)));
    feed.live([rec('agent', 3, 6)]); // a duplicate
    expect(ids()).toEqual(['b1', 'b2', 'e1', 'a1', 'a2', 'a3']);
  });

  it('live batches that arrive during the backfill are read from the store, not lost', async () => {
    const { store, feed, ids } = setup();
    store.add(rec('agent', 1));
    let release!: () => void;
    store.hold = new Promise((r) => (release = r));
    feed.start();
    // Stored before sent, like the datastream; the read in flight does not have them.
    feed.live(store.add(rec('agent', 2), rec('agent', 3)));
    store.hold = null;
    release();
    await settle();
    expect(ids()).toEqual(['a1', 'a2', 'a3']);
  });

  it('a hole in the live stream is filled from the store, in order', async () => {
    const { store, feed, ids } = setup();
    feed.start();
    await settle();
    feed.live(store.add(rec('agent', 1)));
    store.add(rec('agent', 2), rec('agent', 3)); // an event batch the socket dropped
    feed.live(store.add(rec('agent', 4)));
    await settle();
    expect(ids()).toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  it('after a reconnect, reads everything past the last seq placed', async () => {
    const { store, feed, ids } = setup();
    feed.start();
    await settle();
    feed.live(store.add(rec('agent', 1, 1)));
    store.add(rec('agent', 2, 2), rec('events', 1, 3)); // sent while the socket was down
    feed.resync();
    await settle();
    expect(ids()).toEqual(['a1', 'a2', 'e1']);
  });

  it('reads a long backlog page by page, interleaving channels by time across pages', async () => {
    const { store, feed, ids, written } = setup(10);
    for (let i = 1; i <= 35; i++) store.add(rec('agent', i, i * 10));
    store.add(rec('events', 1, 55), rec('events', 2, 305));
    feed.start();
    await settle();
    expect(written.length).toBe(37);
    expect(written.map((r) => r.ts)).toEqual([...written.map((r) => r.ts)].sort((a, b) => a - b));
    expect(ids().indexOf('e1')).toBe(5);
    expect(feed.lastSeq('agent')).toBe(35);
    expect(store.reads.filter((r) => r.channel === 'agent').map((r) => r.fromSeq)).toEqual([
      1, 11, 21, 31,
    ]);
  });

  it('retries a failed read, and gives up on seqs the store never had', async () => {
    const { store, feed, ids } = setup();
    let fails = 1;
    const read = store.read.bind(store);
    store.read = async (c, from, limit) => {
      if (fails-- > 0) throw new Error('socket closed');
      return read(c, from, limit);
    };
    store.add(rec('agent', 1));
    feed.start();
    await settle();
    expect(ids()).toEqual(['a1']);
    feed.live([rec('agent', 3)]); // seq 2 was never stored
    await settle();
    feed.live(store.add(rec('agent', 4)));
    await settle();
    expect(ids()).toEqual(['a1', 'a3', 'a4']);
    expect(store.reads.length).toBeLessThan(12);
  });

  it('places live batches held during a slow read without reading them back', async () => {
    const { store, feed, ids } = setup(10);
    store.add(...Array.from({ length: 5 }, (_, i) => rec('agent', i + 1)));
    let release!: () => void;
    store.hold = new Promise((r) => (release = r));
    feed.start();
    feed.live(store.add(...Array.from({ length: 30 }, (_, i) => rec('agent', i + 6))));
    store.hold = null;
    release();
    await settle();
    expect(ids()).toEqual(Array.from({ length: 35 }, (_, i) => `a${i + 1}`));
    expect(store.reads.filter((r) => r.channel === 'agent').map((r) => r.fromSeq)).toEqual([1]);
  });

  it('skips a hole too long to be worth reading, and says so', async () => {
    const { store, feed, ids, notes } = setup(10, { skipAhead: 50 });
    feed.start();
    await settle();
    feed.live(store.add(rec('agent', 1)));
    store.add(...Array.from({ length: 100 }, (_, i) => rec('agent', i + 2))); // not sent
    feed.live(store.add(rec('agent', 102), rec('agent', 103)));
    await settle();
    expect(ids()).toEqual(['a1', 'a102', 'a103']);
    expect(notes).toEqual(['100 here']);
  });

  it('keeps only the newest held records; the rest come from the store', async () => {
    const { store, feed, ids } = setup(1000, { maxHeld: 10 });
    let release!: () => void;
    store.hold = new Promise((r) => (release = r));
    feed.start();
    for (let i = 1; i <= 40; i += 4)
      feed.live(store.add(...[0, 1, 2, 3].map((k) => rec('agent', i + k))));
    store.hold = null;
    release();
    await settle();
    expect(ids()).toEqual(Array.from({ length: 40 }, (_, i) => `a${i + 1}`));
  });

  it('of a long stored log, writes only the newest lines, once it is all read', async () => {
    const { store, feed, written, notes } = setup(10, { tailLines: 15 });
    for (let i = 1; i <= 95; i++) store.add(rec('agent', i));
    store.add(rec('events', 1, 94.5));
    feed.start();
    await settle();
    expect(written.map((r) => `${r.channel[0]}${r.seq}`)).toEqual([
      ...Array.from({ length: 13 }, (_, i) => `a${i + 82}`),
      'e1',
      'a95',
    ]);
    expect(notes).toEqual(['81 earlier']);
    expect(feed.lastSeq('agent')).toBe(95);
    // Then live, as usual.
    feed.live(store.add(rec('agent', 96)));
    expect(written.at(-1)!.seq).toBe(96);
  });

  it('after a burst goes quiet, reads the end the server may have dropped', async () => {
    const { store, feed, ids } = setup(100, { burstRecords: 3, settleMs: 10 });
    feed.start();
    await settle();
    feed.live(store.add(rec('agent', 1), rec('agent', 2), rec('agent', 3)));
    store.add(rec('agent', 4), rec('agent', 5)); // the last batch, never sent
    expect(ids()).toEqual(['a1', 'a2', 'a3']);
    await new Promise((r) => setTimeout(r, 40));
    expect(ids()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
  });
});
