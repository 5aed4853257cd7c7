import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentLogRecord } from '../../../src-agent/wire/protocol';
import { Datastream } from '../../datastream/datastream';
import { AgentLogSink, eventNotes } from './job-logs';

const NODE = 'r-logs01/node-0';
let root: string;
let datastream: Datastream;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tender-job-logs-'));
  datastream = new Datastream(root);
});
afterEach(() => {
  vi.useRealTimers();
  datastream.close();
  rmSync(root, { recursive: true, force: true });
});

const rec = (seq: number): AgentLogRecord => ({
  seq,
  ts: 1_000 + seq,
  src: 'run',
  stream: 'stdout',
  line: `line ${seq}`,
});

describe('AgentLogSink', () => {
  it('stores records under their agent seq and drops a resumed stream’s overlap', async () => {
    const sink = new AgentLogSink(datastream, NODE);
    expect(sink.fromSeq()).toBe(1);
    sink.store([rec(1), rec(2)]);
    sink.store([rec(2), rec(3)]);
    expect(sink.fromSeq()).toBe(4);
    const lines = await datastream.read('r-logs01', {
      nodeId: NODE,
      channel: 'agent',
      fromSeq: 0,
      limit: 10,
    });
    expect(lines.map((l) => [l.seq, l.source, l.line])).toEqual([
      [1, 'run', 'line 1'],
      [2, 'run', 'line 2'],
      [3, 'run', 'line 3'],
    ]);
  });

  it('a wait for a seq already stored resolves at once', async () => {
    const sink = new AgentLogSink(datastream, NODE);
    sink.store([rec(1), rec(2)]);
    await expect(sink.waitStored(2, 30_000)).resolves.toBeUndefined();
    await expect(sink.waitStored(0, 30_000)).resolves.toBeUndefined();
  });

  it('a wait is woken by the record that completes it, not an earlier one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const sink = new AgentLogSink(datastream, NODE);
    let isDone = false;
    const wait = sink.waitStored(3, 30_000).then(() => (isDone = true));
    sink.store([rec(1), rec(2)]);
    await Promise.resolve();
    expect(isDone).toBe(false);
    sink.store([rec(3)]);
    await wait;
    expect(isDone).toBe(true);
  });

  it('a wait gives up at its deadline when the records never come', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const sink = new AgentLogSink(datastream, NODE);
    let isDone = false;
    void sink.waitStored(5, 30_000).then(() => (isDone = true));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(isDone).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(isDone).toBe(true);
  });

  it('releaseAll ends every wait (the link is gone for good)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const sink = new AgentLogSink(datastream, NODE);
    const waits = [sink.waitStored(5, 30_000), sink.waitStored(9, 30_000)];
    sink.releaseAll();
    await expect(Promise.all(waits)).resolves.toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('eventNotes', () => {
  it('appends progress lines to the node’s events channel, stamped by the given clock', async () => {
    const note = eventNotes(datastream, NODE, () => 42);
    note('job running: run');
    const lines = await datastream.read('r-logs01', {
      nodeId: NODE,
      channel: 'events',
      fromSeq: 0,
      limit: 10,
    });
    expect(lines.map((l) => [l.ts, l.source, l.stream, l.line])).toEqual([
      [42, 'event', 'info', 'job running: run'],
    ]);
  });
});
