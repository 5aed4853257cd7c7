import { readFileSync } from 'node:fs';
import { appendFile, mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentLogRecord } from '../../wire/protocol';
import { seededRandom } from '../../wire/tar/tar-test-helpers';
import { type LogSink, LogStore, type StoredRecord } from './log-store';

let dir: string;
let stores: LogStore[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tender-log-'));
});
afterEach(async () => {
  for (const s of stores) await s.close().catch(() => {});
  stores = [];
  await rm(dir, { recursive: true, force: true });
});

async function openStore(): Promise<LogStore> {
  const s = await LogStore.open(join(dir, 'log.jsonl'), { now: () => 1_700_000_000_000 });
  stores.push(s);
  return s;
}

/** A sink that records seqs; `slow` makes it report full now and then (seeded). */
function recordingSink(
  slow?: () => number,
): LogSink & { seqs: number[]; until(seq: number): Promise<void> } {
  const seqs: number[] = [];
  const waiters: { seq: number; resolve: () => void }[] = [];
  return {
    seqs,
    send(records: StoredRecord[]) {
      for (const r of records) {
        // A plain check: expect() per record would dominate the run time.
        if ((JSON.parse(r.json) as AgentLogRecord).seq !== r.seq)
          throw new Error(`seq mismatch in ${r.json}`);
        seqs.push(r.seq);
      }
      for (const w of waiters.filter((w) => seqs.at(-1)! >= w.seq)) w.resolve();
      return !(slow && slow() < 0.3);
    },
    drained: () => new Promise((r) => setImmediate(r)),
    until(seq: number) {
      if ((seqs.at(-1) ?? 0) >= seq) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ seq, resolve }));
    },
  };
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('LogStore', () => {
  it('numbers records from 1 and continues after a reopen', async () => {
    const a = await openStore();
    for (let i = 0; i < 5; i++) a.append('run', 'stdout', `line ${i}`);
    await a.close();
    const b = await openStore();
    expect(b.durableSeq).toBe(5);
    expect(b.append('agent', 'info', 'again')).toBe(6);
    await b.flush();
    const lines = (await readFile(join(dir, 'log.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as AgentLogRecord).seq)).toEqual(range(1, 6));
    expect(JSON.parse(lines[5]!)).toEqual({
      seq: 6,
      ts: 1_700_000_000_000,
      src: 'agent',
      stream: 'info',
      line: 'again',
    });
  });

  it('drops a torn last line left by a crash', async () => {
    const a = await openStore();
    a.append('run', 'stdout', 'whole');
    await a.close();
    await appendFile(join(dir, 'log.jsonl'), '{"seq":2,"ts":1,"src":"run","str');
    const b = await openStore();
    expect(b.durableSeq).toBe(1);
    b.append('run', 'stdout', 'next');
    await b.flush();
    const lines = (await readFile(join(dir, 'log.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as AgentLogRecord).line)).toEqual(['whole', 'next']);
  });

  it('has each record in the file before a subscriber gets it', async () => {
    const s = await openStore();
    const path = join(dir, 'log.jsonl');
    let checked = 0;
    s.subscribe(1, {
      send(records) {
        const onDisk = readFileSync(path, 'utf8');
        for (const r of records) expect(onDisk).toContain(`${r.json}\n`);
        checked += records.length;
        return true;
      },
      drained: () => Promise.resolve(),
    });
    for (let i = 0; i < 300; i++) s.append('run', 'stdout', `x${i}`);
    await s.flush();
    const text = await readFile(path, 'utf8');
    expect(text.trim().split('\n')).toHaveLength(300);
    expect(checked).toBe(300);
  });

  it('resumes from a late seq without reading from the start', { timeout: 60_000 }, async () => {
    const s = await openStore();
    for (let i = 1; i <= 100_000; i++)
      s.append('run', 'stdout', `epoch ${i} loss ${(1 / i).toFixed(6)}`);
    await s.close();
    const reopened = await openStore();
    const offset = reopened.offsetFor(90_000);
    expect(offset).toBeGreaterThan(reopened.durableSize * 0.85);
    const fh = await open(join(dir, 'log.jsonl'), 'r');
    const { buffer } = await fh.read(Buffer.alloc(64), 0, 64, offset);
    await fh.close();
    const seqAtOffset = Number(/^\{"seq":(\d+),/.exec(buffer.toString())![1]);
    expect(seqAtOffset).toBeLessThanOrEqual(90_000);
    expect(seqAtOffset).toBeGreaterThan(89_000);
    const sink = recordingSink();
    reopened.subscribe(90_000, sink);
    await sink.until(100_000);
    expect(sink.seqs).toEqual(range(90_000, 100_000));
  });

  it(
    'delivers every record once and in order while appends continue',
    { timeout: 60_000 },
    async () => {
      const s = await openStore();
      const rand = seededRandom(42);
      const sinks: { from: number; sink: ReturnType<typeof recordingSink> }[] = [];
      const total = 20_000;
      for (let i = 1; i <= total; i++) {
        s.append(
          i % 3 === 0 ? 'setup' : 'run',
          i % 2 ? 'stdout' : 'stderr',
          `line ${i} ${'x'.repeat(i % 50)}`,
        );
        if (i % 1000 === 0) {
          const from = 1 + Math.floor(rand() * i);
          const sink = recordingSink(seededRandom(i));
          sinks.push({ from, sink });
          s.subscribe(from, sink);
          await new Promise((r) => setTimeout(r, 1 + Math.floor(rand() * 5)));
        }
      }
      const lateFrom = total + 1;
      const late = recordingSink();
      s.subscribe(lateFrom, late);
      s.append('agent', 'info', 'last');
      await s.flush();
      for (const { from, sink } of sinks) {
        await sink.until(total + 1);
        expect(sink.seqs).toEqual(range(from, total + 1));
      }
      await late.until(total + 1);
      expect(late.seqs).toEqual([total + 1]);
    },
  );

  it('stops delivering after close', async () => {
    const s = await openStore();
    const sink = recordingSink();
    const sub = s.subscribe(1, sink);
    s.append('run', 'stdout', 'one');
    await s.flush();
    await sink.until(1);
    sub.close();
    s.append('run', 'stdout', 'two');
    await s.flush();
    expect(sink.seqs).toEqual([1]);
  });
});
