import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { mkdirPrivate, PRIVATE_FILE_MODE } from '../base/private-files';

/** The on-disk form of one record; run, node and channel are implied by the file's path. */
export interface StoredRecord {
  seq: number;
  ts: number;
  source: string;
  stream: string;
  line: string;
}

const TAIL_PROBE_BYTES = 256 * 1024; // a record is at most ~1 MiB, but almost always tiny

/** An append-only JSONL file. Opening repairs a torn last line (a crash mid-write) and
 *  recovers the last sequence number. */
export class ChannelFile {
  private readonly fd: number;
  lastSeq: number;

  constructor(readonly path: string) {
    mkdirPrivate(dirname(path));
    this.fd = openSync(path, existsSync(path) ? 'r+' : 'w+', PRIVATE_FILE_MODE);
    this.lastSeq = this.repairTail();
  }

  /** Appends whole records or nothing: a failed write (disk full) is cut back off. */
  append(records: StoredRecord[]): void {
    if (records.length === 0) return;
    let text = '';
    for (const r of records) text += JSON.stringify(r) + '\n';
    const buf = Buffer.from(text, 'utf8');
    const end = fstatSync(this.fd).size;
    try {
      let off = 0;
      while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off, end + off);
    } catch (err) {
      ftruncateSync(this.fd, end);
      throw err;
    }
    this.lastSeq = records[records.length - 1]!.seq;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Finds the last complete record and cuts off whatever follows it: a torn write from a
   *  crash, or a corrupt line. Returns that record's seq (0 for an empty file). */
  private repairTail(): number {
    const size = fstatSync(this.fd).size;
    let probe = Math.min(size, TAIL_PROBE_BYTES);
    while (probe > 0) {
      const start = size - probe;
      const buf = Buffer.alloc(probe);
      readSync(this.fd, buf, 0, probe, start);
      // Complete lines end with \n; the first line of the window may be cut unless start is 0.
      let end = buf.lastIndexOf(0x0a);
      while (end !== -1) {
        const prev = buf.lastIndexOf(0x0a, end - 1);
        if (prev === -1 && start > 0) break; // this line may begin before the window
        const seq = parseSeq(buf.subarray(prev + 1, end));
        if (seq !== null) {
          const keep = start + end + 1;
          if (keep < size) ftruncateSync(this.fd, keep);
          return seq;
        }
        end = prev;
      }
      if (start === 0) break;
      probe = Math.min(size, probe * 4);
    }
    if (size > 0) ftruncateSync(this.fd, 0); // nothing readable at all
    return 0;
  }
}

function parseSeq(line: Buffer): number | null {
  try {
    const seq = (JSON.parse(line.toString('utf8')) as StoredRecord).seq;
    return Number.isInteger(seq) && seq > 0 ? seq : null;
  } catch {
    return null;
  }
}
