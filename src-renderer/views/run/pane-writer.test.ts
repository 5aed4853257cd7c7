import { describe, expect, it } from 'vitest';
import { CHUNK_CHARS, HIGH_WATER, PaneWriter } from './pane-writer';

/** An xterm that parses only when told to, and a frame clock run by hand. */
function setup(maxQueuedLines?: number) {
  const writes: { data: string; done: () => void }[] = [];
  const frames: (() => void)[] = [];
  let written = 0;
  const writer = new PaneWriter(
    { write: (data, done) => writes.push({ data, done }) },
    (f) => frames.push(f),
    {
      onWritten: (n) => (written += n),
      leftOutNotice: (n) => `${n.toLocaleString('en-US')} lines left out here\r\n`,
      maxQueuedLines,
    },
  );
  const frame = () => frames.splice(0).forEach((f) => f());
  const parseAll = () => writes.splice(0).forEach((w) => w.done());
  return { writer, writes, frames, frame, parseAll, written: () => written };
}

const linesOf = (n: number, width = 9) =>
  Array.from({ length: n }, (_, i) => `${String(i).padStart(width, '0')}\r\n`).join('');

describe('PaneWriter', () => {
  it('coalesces pushes into one frame and counts lines once parsed', () => {
    const t = setup();
    t.writer.push('a\r\n', 1);
    t.writer.push('b\r\nc\r\n', 2);
    expect(t.frames.length).toBe(1);
    t.frame();
    expect(t.writes.map((w) => w.data)).toEqual(['a\r\n', 'b\r\nc\r\n']);
    expect(t.written()).toBe(0);
    t.parseAll();
    expect(t.written()).toBe(3);
  });

  it('cuts big text at line ends and stops at the high-water mark until xterm catches up', () => {
    const t = setup(1_000_000);
    const n = 100_000; // 1.1 MB of 11-char lines
    t.writer.push(linesOf(n), n);
    t.frame();
    expect(t.writes.every((w) => w.data.length <= CHUNK_CHARS && w.data.endsWith('\n'))).toBe(true);
    const handed = t.writes.reduce((s, w) => s + w.data.length, 0);
    expect(handed).toBeGreaterThanOrEqual(HIGH_WATER);
    expect(handed).toBeLessThan(HIGH_WATER + CHUNK_CHARS);
    expect(t.writer.pending).toBe(handed);
    // Parsing drains below the low-water mark: the next frame is asked for, and so on.
    let out = '';
    for (let i = 0; i < 100 && (t.writes.length || t.frames.length); i++) {
      const batch = t.writes.splice(0);
      out += batch.map((w) => w.data).join('');
      batch.forEach((w) => w.done());
      t.frame();
    }
    expect(out).toBe(linesOf(n));
    expect(t.written()).toBe(n);
    expect(t.writer.queued).toBe(0);
  });

  it('leaves out the oldest queued lines when xterm falls far behind, and says so', () => {
    const t = setup(1_000);
    for (let i = 0; i < 10; i++) t.writer.push(`batch ${i}\r\n`.repeat(500), 500);
    expect(t.writer.queued).toBeLessThanOrEqual(1_500);
    t.frame();
    const text = t.writes.map((w) => w.data).join('');
    expect(text).toMatch(/4,000 lines left out here/);
    expect(text).not.toContain('batch 7');
    expect(text).toContain('batch 8');
    expect(text).toContain('batch 9');
  });

  it('writes nothing once closed', () => {
    const t = setup();
    t.writer.push('a\r\n', 1);
    t.writer.close();
    t.frame();
    expect(t.writes).toEqual([]);
  });
});
