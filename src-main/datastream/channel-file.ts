import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

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
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, existsSync(path) ? 'r+' : 'w+');
    this.lastSeq = this.repairTail();
  }

  append(records: StoredRecord[]): void {
    if (records.length === 0) return;
    let text = '';
    for (const r of records) text += JSON.stringify(r) + '\n';
    const buf = Buffer.from(text, 'utf8');
    const end = fstatSync(this.fd).size;
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off, buf.length - off, end + off);
    this.lastSeq = records[records.length - 1]!.seq;
  }

  close(): void {
    closeSync(this.fd);
  }

  private repairTail(): number {
    const size = fstatSync(this.fd).size;
    if (size === 0) return 0;
    let probe = Math.min(size, TAIL_PROBE_BYTES);
    for (;;) {
      const buf = Buffer.alloc(probe);
      readSync(this.fd, buf, 0, probe, size - probe);
      const lastNl = buf.lastIndexOf(0x0a);
      if (lastNl === -1 && probe < size) {
        probe = Math.min(size, probe * 4);
        continue;
      }
      const completeEnd = size - probe + lastNl + 1; // 0 when no newline at all
      if (completeEnd < size) ftruncateSync(this.fd, completeEnd); // torn write: drop it
      if (lastNl === -1) return 0;
      const prevNl = buf.lastIndexOf(0x0a, lastNl - 1);
      if (prevNl === -1 && probe < size) {
        probe = Math.min(size, probe * 4);
        continue;
      }
      const lastLine = buf.subarray(prevNl + 1, lastNl).toString('utf8');
      return (JSON.parse(lastLine) as StoredRecord).seq;
    }
  }
}
