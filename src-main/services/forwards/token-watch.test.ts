import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../contract';
import { TokenWatch } from './token-watch';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);

const rec = (seq: number, line: string, source: LogRecord['source'] = 'run'): LogRecord => ({
  run: 'r-1',
  node: 'r-1/node-0',
  channel: 'agent',
  source,
  stream: 'stdout',
  seq,
  ts: seq,
  line,
});

/** A datastream of `records`, read in pages as the service reads it. */
function store(records: LogRecord[]) {
  const reads: number[] = [];
  const read = async (fromSeq: number, limit: number) => {
    reads.push(fromSeq);
    return records.filter((r) => r.seq >= fromSeq).slice(0, limit);
  };
  return { records, reads, read };
}

describe('TokenWatch', () => {
  it('reads the stored log once, then only what follows', async () => {
    const s = store([rec(1, 'starting'), rec(2, `http://127.0.0.1:8888/lab?token=${A}`)]);
    const w = new TokenWatch(s.read);
    await w.refresh();
    expect(w.tokenFor(8888)).toBe(A);
    expect(w.tokenFor(6006)).toBeNull(); // the URL names another port
    s.records.push(rec(3, `http://127.0.0.1:8888/lab?token=${B}`)); // restarted
    await w.refresh();
    expect(w.tokenFor(8888)).toBe(B);
    expect(s.reads).toEqual([1, 3]);
  });

  it('takes live batches in place, and a gap from the store', async () => {
    const s = store([rec(1, 'x')]);
    const w = new TokenWatch(s.read);
    await w.refresh();
    expect(await w.live([rec(2, `token=${A}`)])).toBe(true); // names no port: any forward
    expect(w.tokenFor(6006)).toBe(A);
    expect(await w.live([rec(3, 'nothing')])).toBe(false);
    // Seq 4 was never seen live: the batch with 5 reads from the store.
    s.records.push(rec(2, ''), rec(3, ''), rec(4, `http://h:8888/?token=${C}`), rec(5, 'y'));
    expect(await w.live([rec(5, 'y')])).toBe(true);
    expect(w.tokenFor(8888)).toBe(C);
    expect(w.tokenFor(6006)).toBe(A);
  });

  it('leaves out data records and other channels', async () => {
    const w = new TokenWatch(store([]).read);
    expect(
      w.feed([rec(1, `token=${A}`, 'metrics'), { ...rec(2, `token=${B}`), channel: 'events' }]),
    ).toBe(false);
    expect(w.tokenFor(8888)).toBeNull();
  });
});
