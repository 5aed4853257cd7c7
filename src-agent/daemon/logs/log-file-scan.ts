// Opening an existing log: find where the last complete record ends, its seq, and a sparse
// seq → byte-offset index, reading the file once with native newline search only.
import { open } from 'node:fs/promises';

/** One index entry per this many bytes: resuming reads at most this much it then skips. */
export const INDEX_STRIDE_BYTES = 64 * 1024;
const SCAN_CHUNK_BYTES = 1024 * 1024;
/** Records are written as `{"seq":N,…`; this many bytes always hold the seq. */
const SEQ_HEAD_BYTES = 32;

export interface IndexPoint {
  seq: number;
  offset: number;
}

export interface ScanResult {
  /** Bytes of complete records (a torn last line from a crash is beyond it). */
  size: number;
  lastSeq: number;
  index: IndexPoint[];
}

export function seqOfLine(head: string): number | undefined {
  const m = /^\{"seq":(\d+),/.exec(head);
  return m ? Number(m[1]) : undefined;
}

export async function scanLogFile(path: string): Promise<ScanResult> {
  const fh = await open(path, 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!fh) return { size: 0, lastSeq: 0, index: [] };
  try {
    const starts: number[] = []; // candidate line starts for the index
    let nextIndexAt = 0;
    let lineStart = 0;
    let lastLineStart = -1;
    let completeEnd = 0;
    const buf = Buffer.alloc(SCAN_CHUNK_BYTES);
    for (let pos = 0; ;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      for (let at = buf.indexOf(10); at >= 0 && at < bytesRead; at = buf.indexOf(10, at + 1)) {
        if (lineStart >= nextIndexAt) {
          starts.push(lineStart);
          nextIndexAt = lineStart + INDEX_STRIDE_BYTES;
        }
        lastLineStart = lineStart;
        completeEnd = pos + at + 1;
        lineStart = completeEnd;
      }
      pos += bytesRead;
    }
    const head = Buffer.alloc(SEQ_HEAD_BYTES);
    const seqAt = async (offset: number): Promise<number | undefined> => {
      const { bytesRead } = await fh.read(head, 0, SEQ_HEAD_BYTES, offset);
      return seqOfLine(head.toString('latin1', 0, bytesRead));
    };
    const index: IndexPoint[] = [];
    for (const offset of starts) {
      const seq = await seqAt(offset);
      if (seq !== undefined) index.push({ seq, offset });
    }
    const lastSeq =
      lastLineStart >= 0 ? ((await seqAt(lastLineStart)) ?? index.at(-1)?.seq ?? 0) : 0;
    return { size: completeEnd, lastSeq, index };
  } finally {
    await fh.close();
  }
}

/** Offset to start reading at for `seq`: the last index point at or before it. */
export function offsetFor(index: IndexPoint[], seq: number): number {
  let lo = 0;
  let hi = index.length - 1;
  let best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const point = index[mid] as IndexPoint;
    if (point.seq <= seq) {
      best = point.offset;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}
