import type { LogChannel, LogRecord, LogSource } from '../contract';
import { ChannelFile, type StoredRecord } from './channel-file';
import { channelFile, logicalOf } from './paths';
import { readMerged } from './reader';

const FLUSH_MS = 16; // one frame: fewer writes and events, no visible lag
const FLUSH_BYTES = 64 * 1024;

export type RecordInput = {
  source: LogSource;
  stream: 'stdout' | 'stderr' | 'info';
  line: string;
  ts: number;
  /** Given for the agent channel (the agent's own seq); assigned here otherwise. */
  seq?: number;
};

/** The app-side log store: append-only records per run / node / channel. Log bodies live
 *  here and nowhere else. Writes are batched per frame; `onBatch` sees each flushed batch. */
export class Datastream {
  private readonly files = new Map<string, ChannelFile>();
  private pending = new Map<
    string,
    { file: ChannelFile; run: string; node: string; channel: LogChannel; records: StoredRecord[] }
  >();
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly nextSeq = new Map<string, number>();

  constructor(
    readonly root: string,
    private readonly onBatch: (records: LogRecord[]) => void = () => {},
    private readonly onError: (err: Error) => void = (err) =>
      console.error(`tender: ${err.message}`),
  ) {}

  /** Last sequence number stored (or pending) for a channel: resume the agent from +1. */
  lastSeq(nodeId: string, channel: LogChannel): number {
    const key = `${nodeId}|${channel}`;
    const next = this.nextSeq.get(key);
    if (next !== undefined) return next - 1;
    return this.file(nodeId, channel).lastSeq;
  }

  /** Appends one record. For the agent channel a seq at or below the last stored is a
   *  duplicate (a resumed stream overlapping) and is dropped; returns whether it was kept. */
  append(nodeId: string, channel: LogChannel, input: RecordInput): boolean {
    const key = `${nodeId}|${channel}`;
    const last = this.lastSeq(nodeId, channel);
    const seq = input.seq ?? last + 1;
    if (seq <= last) return false;
    this.nextSeq.set(key, seq + 1);
    let batch = this.pending.get(key);
    if (!batch) {
      const run = nodeId.slice(0, nodeId.indexOf('/'));
      batch = { file: this.file(nodeId, channel), run, node: nodeId, channel, records: [] };
      this.pending.set(key, batch);
    }
    batch.records.push({
      seq,
      ts: input.ts,
      source: input.source,
      stream: input.stream,
      line: input.line,
    });
    this.pendingBytes += input.line.length + 64;
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
    return true;
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batches = this.pending;
    this.pending = new Map();
    this.pendingBytes = 0;
    const flushed: LogRecord[] = [];
    for (const [key, b] of batches) {
      try {
        b.file.append(b.records);
      } catch (err) {
        // Nothing of this batch is stored: forget the seqs handed out for it, so lastSeq()
        // says what is on disk and a resumed agent stream fetches these lines again.
        this.nextSeq.delete(key);
        this.onError(
          new Error(
            `could not store ${b.records.length} log lines of ${b.node} in ${b.file.path}: ${(err as Error).message}`,
          ),
        );
        continue;
      }
      for (const r of b.records)
        flushed.push({ run: b.run, node: b.node, channel: b.channel, ...r } as LogRecord);
    }
    if (flushed.length > 0) this.onBatch(flushed);
  }

  read(
    run: string,
    opts: {
      nodeId?: string;
      channel?: LogChannel;
      fromSeq: number;
      limit: number;
      tail?: number;
    },
  ): Promise<LogRecord[]> {
    this.flush();
    return readMerged(this.root, run, {
      logical: opts.nodeId ? logicalOf(opts.nodeId) : undefined,
      channel: opts.channel,
      fromSeq: opts.fromSeq,
      limit: opts.limit,
      tail: opts.tail,
    });
  }

  close(): void {
    this.flush();
    for (const f of this.files.values()) f.close();
    this.files.clear();
  }

  private file(nodeId: string, channel: LogChannel): ChannelFile {
    const key = `${nodeId}|${channel}`;
    let f = this.files.get(key);
    if (!f) {
      const run = nodeId.slice(0, nodeId.indexOf('/'));
      f = new ChannelFile(channelFile(this.root, run, logicalOf(nodeId), channel));
      this.files.set(key, f);
    }
    return f;
  }
}
