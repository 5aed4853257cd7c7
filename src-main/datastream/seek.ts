// Finding a place in a channel file without reading it from the start: records are JSONL in
// seq order, so a binary search over byte offsets finds where `seq ≥ fromSeq` begins, and a
// backwards scan finds where the last N records begin. A million-line log is then paged in
// O(log n + page) instead of re-reading it from line 1 for every page.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

const PROBE = 64 * 1024;
/** Below this many bytes a plain scan from the start is as cheap as searching. */
const SCAN_BELOW = 256 * 1024;

/** Most records are short: a probe reads this much first, and a whole PROBE only when no
 *  whole line fits in it (the search runs for every page of a long `tender logs`). */
const SMALL_PROBE = 4 * 1024;

/** The seq of the first whole line starting at or after `offset`, and where that line
 *  starts; null when none is found within a probe (a huge line) or at the end. */
function lineAt(fd: number, offset: number, size: number): { start: number; seq: number } | null {
  return lineWithin(fd, offset, size, SMALL_PROBE) ?? lineWithin(fd, offset, size, PROBE);
}

function lineWithin(
  fd: number,
  offset: number,
  size: number,
  probe: number,
): { start: number; seq: number } | null {
  const buf = Buffer.allocUnsafe(Math.min(probe, size - offset));
  const n = readSync(fd, buf, 0, buf.length, offset);
  let start = 0;
  if (offset > 0) {
    const nl = buf.indexOf(10, 0);
    if (nl < 0 || nl + 1 >= n) return null;
    start = nl + 1;
  }
  const end = buf.indexOf(10, start);
  if (end < 0 || end >= n) return null;
  const m = /"seq":(\d+)/.exec(buf.toString('utf8', start, end));
  return m ? { start: offset + start, seq: Number(m[1]) } : null;
}

/** A byte offset (a line start) at or before the first record with seq ≥ fromSeq. Reading
 *  from there and skipping lower seqs gives exactly what a scan from 0 would. */
export function offsetForSeq(path: string, fromSeq: number): number {
  if (fromSeq <= 1) return 0;
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size < SCAN_BELOW) return 0;
    let lo = 0; // a line start whose seq < fromSeq (or 0)
    let hi = size;
    while (hi - lo > PROBE) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const line = lineAt(fd, mid, size);
      if (!line || line.start >= hi) {
        hi = mid;
        continue;
      }
      if (line.seq < fromSeq) lo = line.start;
      else hi = mid;
    }
    return lo;
  } finally {
    closeSync(fd);
  }
}

/** The byte offset where the last `count` whole lines of the file begin. */
export function offsetOfLastLines(path: string, count: number): number {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    let seen = 0;
    // A trailing newline ends the last line; it does not start another.
    const buf = Buffer.alloc(PROBE);
    let pos = size;
    let skipTrailing = true;
    while (pos > 0) {
      const len = Math.min(PROBE, pos);
      pos -= len;
      readSync(fd, buf, 0, len, pos);
      for (let i = len - 1; i >= 0; i--) {
        if (buf[i] !== 10) {
          skipTrailing = false;
          continue;
        }
        if (skipTrailing) continue;
        seen += 1;
        if (seen === count) return pos + i + 1;
      }
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}
