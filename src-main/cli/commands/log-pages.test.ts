import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../contract';
import { mergedPages, type PageSource } from './log-pages';

/** A node's stored log: `n` records, seq 1…n, at the given times; reads are counted. */
function node(name: string, times: number[]) {
  const records: LogRecord[] = times.map((ts, i) => ({
    run: 'r-p',
    node: `r-p/${name}`,
    channel: 'agent',
    source: 'run',
    stream: 'stdout',
    seq: i + 1,
    ts,
    line: `${name} ${i + 1}`,
  }));
  const reads: { from: number; limit: number }[] = [];
  const source = (fromSeq: number): PageSource => ({
    fromSeq,
    read: async (from, limit) => {
      reads.push({ from, limit });
      return records.filter((r) => r.seq >= from).slice(0, limit);
    },
  });
  return { records, reads, source };
}

async function collect(sources: PageSource[], pageSize: number) {
  const pages: LogRecord[][] = [];
  for await (const p of mergedPages(sources, pageSize)) pages.push(p);
  return pages;
}

describe('mergedPages', () => {
  it('streams one node whole, each page resuming after the last seq of the one before', async () => {
    const a = node(
      'node-0',
      Array.from({ length: 25 }, (_, i) => i),
    );
    const pages = await collect([a.source(1)], 10);
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat().map((r) => r.seq)).toEqual(a.records.map((r) => r.seq));
    expect(a.reads.map((r) => r.from)).toEqual([1, 11, 21]);
  });

  it('reads once more after a full last page, and yields nothing for it', async () => {
    const a = node(
      'node-0',
      Array.from({ length: 20 }, (_, i) => i),
    );
    const pages = await collect([a.source(1)], 10);
    expect(pages.map((p) => p.length)).toEqual([10, 10]);
    expect(a.reads.map((r) => r.from)).toEqual([1, 11, 21]);
  });

  it('starts at each source’s own seq', async () => {
    const a = node('node-0', [1, 2, 3, 4, 5]);
    const b = node('node-1', [1, 2, 3]);
    const pages = await collect([a.source(4), b.source(3)], 10);
    expect(pages.flat().map((r) => r.line)).toEqual(['node-1 3', 'node-0 4', 'node-0 5']);
  });

  it('merges nodes by time, ties by node then seq, holding one page per node', async () => {
    const a = node('node-0', [1, 3, 3, 8, 9, 10, 11]);
    const b = node('node-1', [2, 3, 4, 5, 6, 7]);
    const pages = await collect([b.source(1), a.source(1)], 2);
    expect(pages.flat().map((r) => r.line)).toEqual([
      'node-0 1',
      'node-1 1',
      'node-0 2',
      'node-0 3',
      'node-1 2',
      'node-1 3',
      'node-1 4',
      'node-1 5',
      'node-1 6',
      'node-0 4',
      'node-0 5',
      'node-0 6',
      'node-0 7',
    ]);
    expect(pages.every((p) => p.length <= 2)).toBe(true);
    for (const r of [...a.reads, ...b.reads]) expect(r.limit).toBe(2);
  });

  it('yields nothing for nodes with nothing stored', async () => {
    expect(await collect([node('node-0', []).source(1), node('node-1', []).source(1)], 5)).toEqual(
      [],
    );
    expect(await collect([node('node-0', []).source(1)], 5)).toEqual([]);
  });
});
