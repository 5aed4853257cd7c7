// The node's log: append-only `logs/log.jsonl`, node-wide seq, batched writes. A record
// reaches subscribers only after it is in the file, so a subscriber that falls behind (or
// subscribes late) reads the file and never misses or repeats a record.
import { type FileHandle, open, truncate } from 'node:fs/promises';
import type { LogSource, LogStream } from '../../wire/protocol';
import { INDEX_STRIDE_BYTES, type IndexPoint, offsetFor, scanLogFile } from './log-file-scan';
import { LogSubscription, type LogSink, type StoredRecord } from './log-subscription';

const FLUSH_MS = 10; // a line shows up within 10 ms, yet a fast job costs one write per batch
const FLUSH_BYTES = 64 * 1024; // …or sooner, once a batch is this big

/** A record as stored: its seq and its JSON text (no newline). */
export type { LogSink, StoredRecord } from './log-subscription';

export class LogStore {
  private pending: StoredRecord[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private nextSeq: number;
  private size: number;
  private lastDurableSeq: number;
  private lastIndexedOffset: number;
  private readonly subscribers = new Set<LogSubscription>();
  private readonly index: IndexPoint[];

  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
    scan: { size: number; lastSeq: number; index: IndexPoint[] },
    private readonly now: () => number,
    private readonly onWriteError: (err: Error) => void,
  ) {
    this.size = scan.size;
    this.lastDurableSeq = scan.lastSeq;
    this.nextSeq = scan.lastSeq + 1;
    this.index = scan.index;
    this.lastIndexedOffset = scan.index.at(-1)?.offset ?? -INDEX_STRIDE_BYTES;
  }

  /** Opens (or creates) the log; seq continues after the file's last complete record. */
  static async open(
    path: string,
    options: { now?: () => number; onWriteError?: (err: Error) => void } = {},
  ): Promise<LogStore> {
    const scan = await scanLogFile(path);
    await truncate(path, scan.size).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    const fh = await open(path, 'a');
    return new LogStore(
      path,
      fh,
      scan,
      options.now ?? Date.now,
      options.onWriteError ?? (() => {}),
    );
  }

  /** Last seq that is in the file (what a subscriber can be given now). */
  get durableSeq(): number {
    return this.lastDurableSeq;
  }

  get durableSize(): number {
    return this.size;
  }

  /** Assigns the next seq; the record is written within FLUSH_MS. */
  append(src: LogSource, stream: LogStream, line: string): number {
    const seq = this.nextSeq++;
    const json = JSON.stringify({ seq, ts: this.now(), src, stream, line });
    this.pending.push({ seq, json });
    this.pendingBytes += json.length + 1;
    if (this.pendingBytes >= FLUSH_BYTES) this.kick();
    else this.timer ??= setTimeout(() => this.kick(), FLUSH_MS);
    return seq;
  }

  /** Resolves once everything appended so far is in the file. */
  async flush(): Promise<void> {
    this.kick();
    while (this.writing) await this.writing;
  }

  /** Every record with seq ≥ fromSeq, in order, each once: the file's backlog, then live. */
  subscribe(fromSeq: number, sink: LogSink): LogSubscription {
    const sub = new LogSubscription(this, Math.max(1, Math.floor(fromSeq)), sink, () =>
      this.subscribers.delete(sub),
    );
    this.subscribers.add(sub);
    sub.start();
    return sub;
  }

  offsetFor(seq: number): number {
    return offsetFor(this.index, seq);
  }

  async close(): Promise<void> {
    await this.flush();
    for (const sub of [...this.subscribers]) sub.close();
    await this.fh.close();
  }

  private kick(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing || this.pending.length === 0) return;
    this.writing = this.writeLoop().finally(() => (this.writing = undefined));
  }

  private async writeLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      this.pendingBytes = 0;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      const data = Buffer.from(batch.map((r) => `${r.json}\n`).join(''));
      try {
        await this.writeAll(data);
      } catch (err) {
        // Disk full or similar: these records are lost (a gap in seq); later ones may fit.
        // Cut any torn tail so the next batch starts on a line of its own.
        await this.fh.truncate(this.size).catch(() => {});
        this.onWriteError(err as Error);
        continue;
      }
      this.indexBatch(batch, this.size);
      this.size += data.length;
      this.lastDurableSeq = (batch.at(-1) as StoredRecord).seq;
      for (const sub of [...this.subscribers]) {
        try {
          sub.onDurable(batch);
        } catch (err) {
          sub.close(); // one broken subscriber must not stop the log
          this.onWriteError(err as Error);
        }
      }
    }
  }

  private async writeAll(data: Buffer): Promise<void> {
    for (let at = 0; at < data.length;) {
      const { bytesWritten } = await this.fh.write(data, at, data.length - at);
      at += bytesWritten;
    }
  }

  private indexBatch(batch: StoredRecord[], start: number): void {
    let offset = start;
    for (const r of batch) {
      if (offset >= this.lastIndexedOffset + INDEX_STRIDE_BYTES) {
        this.index.push({ seq: r.seq, offset });
        this.lastIndexedOffset = offset;
      }
      offset += Buffer.byteLength(r.json) + 1;
    }
  }
}
