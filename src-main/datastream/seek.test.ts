import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { offsetForSeq, offsetOfLastLines } from './seek';

const dir = mkdtempSync(join(tmpdir(), 'tender-seek-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, lines: string[]): { path: string; text: string } {
  const path = join(dir, name);
  const text = lines.map((l) => l + '\n').join('');
  writeFileSync(path, text);
  return { path, text };
}

const record = (seq: number, line = `line ${seq}`) =>
  JSON.stringify({ seq, ts: 1_000 + seq, source: 'run', stream: 'stdout', line });

describe('seeking in a channel file', () => {
  // Lines of varying length (some long), 50 000 records: well past the scan threshold.
  const lines = Array.from({ length: 50_000 }, (_, i) =>
    record(i + 1, i % 997 === 0 ? 'x'.repeat(20_000) : `step ${i + 1}`),
  );
  const big = file('big.jsonl', lines);

  it.each([1, 2, 997, 12_345, 49_999, 50_000, 60_000])(
    'fromSeq %i: starts at a line at or before the first record with that seq',
    (seq) => {
      const at = offsetForSeq(big.path, seq);
      expect(at === 0 || big.text[at - 1] === '\n').toBe(true);
      const first = big.text.slice(at).split('\n')[0]!;
      const found = first ? (JSON.parse(first) as { seq: number }).seq : Infinity;
      expect(found).toBeLessThanOrEqual(Math.max(1, seq));
      // ... and close to it: no more than about a probe's worth of records before it.
      if (seq > 2_000 && seq <= 50_000) expect(seq - found).toBeLessThan(4_000);
    },
  );

  it('the last N lines begin where they should', () => {
    const at = offsetOfLastLines(big.path, 3);
    expect(
      big.text
        .slice(at)
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).seq),
    ).toEqual([49_998, 49_999, 50_000]);
    expect(offsetOfLastLines(big.path, 1_000_000)).toBe(0);
  });

  it('a small file is read from the start', () => {
    const small = file('small.jsonl', [record(1), record(2)]);
    expect(offsetForSeq(small.path, 2)).toBe(0);
    expect(offsetOfLastLines(small.path, 1)).toBe(small.text.indexOf('\n') + 1);
  });
});
