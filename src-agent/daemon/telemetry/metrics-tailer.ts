// Tails the job's `$TENDER_METRICS` file into the node's log: each complete line becomes one
// record, src `metrics`, so metrics ride the log's seq, backfill and `subscribe` resume like
// any record (docs/agent-protocol.md, "Metrics"). Polled while a phase runs, read to its end
// when a phase exits (before its exit is logged, so no line is lost behind it).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { LogStore } from '../logs/log-store';
import { NO_REDACTION, type Redactor } from '../logs/redact';
import { StreamRedactor } from '../logs/stream-redact';

/** The log source of the job's metrics lines: data, never printed as its output. */
export const METRICS_LOG_SOURCE = 'metrics';
/** A line written shows up within a quarter of a second; an idle poll is one fstat. */
export const METRICS_POLL_MS = 250;
/** A metrics line is a small JSON object; a longer one is cut here (and noted once). */
export const MAX_METRICS_LINE_BYTES = 64 * 1024;
/** One poll reads at most this much (a job that dumps a huge file cannot stall the daemon
 *  for long); the rest comes with the next polls, and the final read takes everything. */
const MAX_READ_PER_POLL = 4 * 1024 * 1024;
const READ_CHUNK = 256 * 1024;

export interface MetricsTailerDeps {
  /** The file (`D/metrics.jsonl`). */
  path: string;
  log: Pick<LogStore, 'append'>;
  everyMs?: number;
  maxLineBytes?: number;
}

export class MetricsTailer {
  /** Where the next read starts, in the file as it is now. */
  private offset = 0;
  private ino: number | undefined;
  /** The line read so far (no newline yet): waited for, flushed when no phase runs. */
  private parts: Buffer[] = [];
  private partBytes = 0;
  /** The current line went over the limit: its first part was logged, the rest is skipped
   *  up to its newline. */
  private skipping = false;
  private cutNoted = false;
  private readonly active = new Set<string>();
  /** The file's bytes are redacted before they are split or cut (no cut splits a secret). */
  private redactor = new StreamRedactor(NO_REDACTION);
  private timer: NodeJS.Timeout | undefined;
  private readonly maxLineBytes: number;

  constructor(private readonly d: MetricsTailerDeps) {
    this.maxLineBytes = d.maxLineBytes ?? MAX_METRICS_LINE_BYTES;
    // What a daemon before this one read (or could not) is not read again.
    const at = this.stat();
    if (at) ({ size: this.offset, ino: this.ino } = at);
  }

  /** A phase started (or changed while running): polls until every phase has ended. The
   *  job's secrets are redacted from its metrics as from its output. */
  begin(phase: string, redact: Redactor): void {
    this.active.add(phase);
    this.redactor = this.redactor.handOver(redact);
    if (this.timer) return;
    this.timer = setInterval(() => this.read(MAX_READ_PER_POLL), this.d.everyMs ?? METRICS_POLL_MS);
    this.timer.unref();
  }

  /** A phase is exiting: everything written so far is read now. Once no phase runs, a last
   *  line without its newline is logged as it is, and polling stops. */
  end(phase: string): void {
    this.active.delete(phase);
    this.read(Number.POSITIVE_INFINITY);
    if (this.active.size > 0) return;
    this.push(this.redactor.flush());
    if (this.partBytes > 0) this.emit();
    this.parts = [];
    this.partBytes = 0;
    this.skipping = false;
    this.stopPolling();
  }

  /** A new job: its metrics file starts empty (job/clean-slate.ts removed the one before). */
  reset(): void {
    this.redactor.reset();
    this.offset = 0;
    this.ino = undefined;
    this.parts = [];
    this.partBytes = 0;
    this.skipping = false;
    this.cutNoted = false;
  }

  /** No polling after this (shutdown); a phase's `end` still reads what it wrote. */
  stop(): void {
    this.stopPolling();
  }

  /** Reads what was appended since the last read, up to `maxBytes`. */
  read(maxBytes: number): void {
    let fd: number;
    try {
      fd = openSync(this.d.path, 'r');
    } catch {
      // Not written yet, or removed: a file made next starts from its beginning.
      if (this.ino !== undefined) this.restart();
      return;
    }
    try {
      const { size, ino } = fstatSync(fd);
      // Replaced or truncated (the job rewrote it): read it again from the start.
      if ((this.ino !== undefined && ino !== this.ino) || size < this.offset) this.restart();
      this.ino = ino;
      const until = Math.min(size, this.offset + maxBytes);
      const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, Math.max(1, until - this.offset)));
      while (this.offset < until) {
        const n = readSync(fd, buf, 0, Math.min(buf.length, until - this.offset), this.offset);
        if (n === 0) break;
        this.offset += n;
        this.push(this.redactor.push(buf.subarray(0, n)));
      }
    } catch {
      // A read error is retried by the next poll, from the same offset.
    } finally {
      closeSync(fd);
    }
  }

  private push(chunk: Buffer): void {
    let at = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, at)) {
      this.add(chunk.subarray(at, nl));
      if (this.skipping) this.skipping = false;
      else this.emit();
      this.parts = [];
      this.partBytes = 0;
      at = nl + 1;
    }
    if (at < chunk.length) this.add(chunk.subarray(at));
  }

  private add(piece: Buffer): void {
    if (this.skipping || piece.length === 0) return;
    const room = this.maxLineBytes - this.partBytes;
    if (piece.length <= room) {
      this.parts.push(Buffer.from(piece));
      this.partBytes += piece.length;
      return;
    }
    // Cut before the UTF-8 character the limit falls in, never inside it.
    let cut = room;
    while (cut > 0 && ((piece[cut] as number) & 0xc0) === 0x80) cut--;
    this.parts.push(Buffer.from(piece.subarray(0, cut)));
    this.partBytes += cut;
    this.emit(true);
    this.parts = [];
    this.partBytes = 0;
    this.skipping = true;
  }

  /** Logs the pending line (a blank one is no record); `cut`: it was longer than the limit
   *  and this is its beginning. */
  private emit(cut = false): void {
    const all = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    const line = new StringDecoder('utf8').end(all);
    if (line.trim() === '') return;
    this.d.log.append(METRICS_LOG_SOURCE, 'stdout', line);
    if (cut && !this.cutNoted) {
      this.cutNoted = true;
      this.d.log.append(
        'agent',
        'info',
        `metrics: a line longer than ${this.maxLineBytes} bytes was cut to its first ${this.maxLineBytes} (further cuts are not noted)`,
      );
    }
  }

  private restart(): void {
    this.redactor.reset();
    this.offset = 0;
    this.ino = undefined;
    this.parts = [];
    this.partBytes = 0;
    this.skipping = false;
  }

  private stat(): { size: number; ino: number } | undefined {
    try {
      const fd = openSync(this.d.path, 'r');
      try {
        const { size, ino } = fstatSync(fd);
        return { size, ino };
      } finally {
        closeSync(fd);
      }
    } catch {
      return undefined;
    }
  }

  private stopPolling(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
