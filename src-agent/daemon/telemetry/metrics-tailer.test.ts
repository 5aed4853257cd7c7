import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LogSource, LogStream } from '../../wire/protocol';
import { METRICS_LOG_SOURCE, MetricsTailer } from './metrics-tailer';
import { createRedactor } from '../logs/redact';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tender-metrics-'))));
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

/** A tailer over `D/metrics.jsonl` whose log is an array. */
function harness(opts: { maxLineBytes?: number; everyMs?: number } = {}) {
  const path = join(dir, 'metrics.jsonl');
  const records: { src: LogSource; stream: LogStream; line: string }[] = [];
  const make = () =>
    new MetricsTailer({
      path,
      log: { append: (src, stream, line) => records.push({ src, stream, line }) },
      ...opts,
    });
  const metrics = () => records.filter((r) => r.src === METRICS_LOG_SOURCE).map((r) => r.line);
  const notes = () => records.filter((r) => r.src === 'agent').map((r) => r.line);
  return { path, records, make, metrics, notes, write: (s: string) => appendFileSync(path, s) };
}

const none = createRedactor([]);

describe('MetricsTailer', () => {
  it('logs each complete line as a metrics record on stdout, waiting for a partial one', () => {
    const h = harness();
    const t = h.make();
    t.begin('run', none);
    h.write('{"step":1,"loss":0.5}\n{"step":2,');
    t.read(Infinity);
    expect(h.metrics()).toEqual(['{"step":1,"loss":0.5}']);
    h.write('"loss":0.4}\n\n   \n{"step":3');
    t.read(Infinity);
    expect(h.metrics()).toEqual(['{"step":1,"loss":0.5}', '{"step":2,"loss":0.4}']);
    expect(h.records.every((r) => r.stream === 'stdout')).toBe(true);
    // The phase exits with its last line unterminated: flushed as it is.
    t.end('run');
    expect(h.metrics().at(-1)).toBe('{"step":3');
    t.end('run');
    expect(h.metrics()).toHaveLength(3);
  });

  it('reads what a phase wrote before its exit, and flushes only once no phase runs', () => {
    const h = harness();
    const t = h.make();
    t.begin('setup', none);
    t.begin('run', none);
    h.write('{"a":1}\n{"a":2');
    t.end('setup');
    expect(h.metrics()).toEqual(['{"a":1}']); // run still runs: its partial line waits
    h.write(',"b":0}\n');
    t.end('run');
    expect(h.metrics()).toEqual(['{"a":1}', '{"a":2,"b":0}']);
  });

  it('polls while a phase runs and stops when none does', async () => {
    vi.useFakeTimers();
    const h = harness({ everyMs: 100 });
    const t = h.make();
    t.begin('run', none);
    h.write('{"step":1}\n');
    await vi.advanceTimersByTimeAsync(150);
    expect(h.metrics()).toEqual(['{"step":1}']);
    t.end('run');
    h.write('{"step":2}\n');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.metrics()).toEqual(['{"step":1}']);
  });

  it('cuts a line over the limit (before a UTF-8 character), skips its rest, notes it once', () => {
    const h = harness({ maxLineBytes: 8 });
    const t = h.make();
    t.begin('run', none);
    h.write('{"x":"é€abc"}\n');
    t.read(Infinity);
    h.write('0123');
    t.read(Infinity);
    h.write('456789abcdef');
    t.read(Infinity);
    h.write('ghij\n{"ok":1}\n');
    t.end('run');
    // '{"x":"' is 6 bytes, 'é' 2 more: exactly 8; '€' would not fit whole.
    expect(h.metrics()).toEqual(['{"x":"é', '01234567', '{"ok":1}']);
    expect(h.notes()).toHaveLength(1);
    expect(h.notes()[0]).toMatch(/longer than 8 bytes was cut/);
  });

  it('cuts an over-long unterminated line at exit too', () => {
    const h = harness({ maxLineBytes: 4 });
    const t = h.make();
    t.begin('run', none);
    h.write('abcdefgh');
    t.end('run');
    expect(h.metrics()).toEqual(['abcd']);
  });

  it('starts after what an earlier daemon read, and from the start of a new file', () => {
    const h = harness();
    h.write('{"old":1}\n');
    const t = h.make();
    t.begin('run', none);
    h.write('{"new":1}\n');
    t.read(Infinity);
    expect(h.metrics()).toEqual(['{"new":1}']);
    // A new job: clean slate removed the file; the tailer starts over.
    rmSync(h.path);
    t.reset();
    h.write('{"job2":1}\n');
    t.end('run');
    expect(h.metrics()).toEqual(['{"new":1}', '{"job2":1}']);
  });

  it('reads a file the job truncated or replaced from its beginning', () => {
    const h = harness();
    const t = h.make();
    t.begin('run', none);
    h.write('{"a":1}\n{"a":2}\n');
    t.read(Infinity);
    writeFileSync(h.path, '{"b":1}\n'); // truncated and rewritten: shorter than the offset
    t.read(Infinity);
    rmSync(h.path);
    t.read(Infinity); // gone: nothing to read
    writeFileSync(h.path, '{"c":1}\n{"c":2}\n{"c":3}\n');
    t.end('run');
    expect(h.metrics()).toEqual(['{"a":1}', '{"a":2}', '{"b":1}', '{"c":1}', '{"c":2}', '{"c":3}']);
  });

  it('redacts the job secrets as in its output, and is quiet without a file', () => {
    const h = harness();
    const t = h.make();
    t.begin('run', createRedactor(['hunter2-secret']));
    t.read(Infinity);
    expect(h.records).toEqual([]);
    h.write('{"note":"hunter2-secret","step":1}\n');
    t.end('run');
    expect(h.metrics()).toEqual(['{"note":"***","step":1}']);
  });

  it.each([0, 1, 5, 10, 13])(
    'keeps a secret that straddles the line cut by %i bytes out of what it logs',
    (into) => {
      const secret = 'Zq8Kv3Wm7Rj2Tx5'; // 14 bytes past the cut at most: one piece ≥ 4
      const h = harness({ maxLineBytes: 64 });
      const t = h.make();
      t.begin('run', createRedactor([secret]));
      const line = `{"n":"${'.'.repeat(64 - 6 - into)}${secret}"}\n`;
      for (let i = 0; i < line.length; i += 7) {
        h.write(line.slice(i, i + 7)); // read in pieces: the secret arrives in several reads
        t.read(Infinity);
      }
      t.end('run');
      const logged = h.metrics().join('\n');
      for (let i = 0; i + 4 <= secret.length; i++)
        expect(logged).not.toContain(secret.slice(i, i + 4));
      expect(h.metrics()).toHaveLength(1);
    },
  );
});
