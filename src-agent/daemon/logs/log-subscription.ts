// One subscriber of the log. It is either catching up (reading the file from its next seq
// up to what is durable) or live (handed each batch as it becomes durable). It goes back to
// catching up whenever its sink is full, so a slow reader costs file reads, not memory.
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { seqOfLine } from './log-file-scan';

/** One line of the on-node log: its seq and the record as stored (a JSON line). */
export interface StoredRecord {
  seq: number;
  json: string;
}

export interface LogSink {
  /** Delivers records in seq order. Returns false when the sink wants a pause. */
  send(records: StoredRecord[]): boolean;
  /** Resolves when the sink takes records again. */
  drained(): Promise<void>;
}

/** The part of the store a subscription needs. */
interface LogSource {
  readonly path: string;
  readonly durableSeq: number;
  readonly durableSize: number;
  offsetFor(seq: number): number;
}

const READ_CHUNK_BYTES = 256 * 1024;
const MAX_BATCH_RECORDS = 1000;

export class LogSubscription {
  private isLive = false;
  private isClosed = false;
  /** Set when the sink reported full: the next durable batch sends us back to the file. */
  private isBlocked = false;

  constructor(
    private readonly store: LogSource,
    private next: number,
    private readonly sink: LogSink,
    private readonly onClose: () => void,
  ) {}

  /** The seq this subscription will deliver next. */
  get nextSeq(): number {
    return this.next;
  }

  start(): void {
    void this.catchUp();
  }

  close(): void {
    this.isClosed = true;
    this.onClose();
  }

  /** Called by the store after each batch is in the file. */
  onDurable(batch: StoredRecord[]): void {
    if (!this.isLive || this.isClosed) return;
    if (this.isBlocked) {
      this.isLive = false;
      void this.catchUp();
      return;
    }
    const fresh = batch.filter((r) => r.seq >= this.next);
    if (fresh.length === 0) return;
    this.next = (fresh.at(-1) as StoredRecord).seq + 1;
    if (!this.sink.send(fresh)) {
      this.isBlocked = true;
      void this.sink.drained().then(() => (this.isBlocked = false));
    }
  }

  private async catchUp(): Promise<void> {
    try {
      if (this.isBlocked) await this.sink.drained();
      this.isBlocked = false;
      while (!this.isClosed) {
        const target = this.store.durableSize;
        // No await between this check and going live: no batch can slip in between.
        if (this.next > this.store.durableSeq) {
          this.isLive = true;
          return;
        }
        const before = this.next;
        await this.readFile(this.store.offsetFor(this.next), target);
        if (this.next === before) this.next = this.store.durableSeq + 1; // a gap at the end
      }
    } catch (err) {
      process.stderr.write(`log subscription failed: ${(err as Error).message}\n`);
      this.close();
    }
  }

  /** Sends every record in [from, to) bytes with seq ≥ next. */
  private async readFile(from: number, to: number): Promise<void> {
    const fh = await open(this.store.path, 'r');
    try {
      let carry = '';
      const decoder = new StringDecoder('utf8'); // a character may straddle two reads
      let batch: StoredRecord[] = [];
      const buf = Buffer.alloc(READ_CHUNK_BYTES);
      for (let pos = from; pos < to && !this.isClosed;) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, to - pos), pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        const lines = (carry + decoder.write(buf.subarray(0, bytesRead))).split('\n');
        carry = lines.pop() ?? '';
        for (const json of lines) {
          const seq = seqOfLine(json.slice(0, 32));
          if (seq === undefined || seq < this.next) continue;
          batch.push({ seq, json });
          this.next = seq + 1;
          if (batch.length >= MAX_BATCH_RECORDS) {
            await this.deliver(batch);
            batch = [];
          }
        }
      }
      if (batch.length > 0) await this.deliver(batch);
    } finally {
      await fh.close();
    }
  }

  private async deliver(batch: StoredRecord[]): Promise<void> {
    if (this.isClosed) return;
    if (!this.sink.send(batch)) await this.sink.drained();
  }
}
