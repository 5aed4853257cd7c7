import type { LogChannel, LogRecord } from '../../../src-main/contract';
import { byTime, CHANNELS, NodeSequencer } from './log-sequencer';

/** Records per stored read: ~3 MB of JSON, parsed in a few tens of ms (a 100 000-record page
 *  would block the page for a tenth of a second or more). */
export const READ_PAGE = 20_000;
/** Live records kept while the store is read (a backfill, a gap): the newest are kept. */
export const MAX_HELD = 50_000;
/** A hole this long between what is placed and the newest live records is not read back
 *  line by line: a pane keeps 10 000 lines, the rest stays on disk, searchable. */
export const SKIP_AHEAD = 10_000;
/** Of a long stored log, the newest records written (a pane keeps 10 000 lines). */
export const TAIL_LINES = 10_000;
const RETRY_MS = 1_000;
/** After a burst this big, a pause this long makes the feed check the store once: the server
 *  drops batches for a socket that falls behind, and when the burst was the end of the log,
 *  no later record would reveal the hole. */
export const BURST_RECORDS = 10_000;
export const SETTLE_MS = 1_500;

export interface LogFeedDeps {
  /** The node's stored records of one channel with seq ≥ fromSeq, in seq order. */
  read(channel: LogChannel, fromSeq: number, limit: number): Promise<LogRecord[]>;
  /** New records, each once, in order. */
  write(records: LogRecord[]): void;
  /** Records only on disk, not written: a hole in the live stream too long to read back
   *  ('here'), or the start of a long stored log, beyond what a pane keeps ('earlier'). */
  onSkip?(lines: number, where: 'here' | 'earlier'): void;
  /** While a long stored log is read: how many records so far. */
  onReading?(records: number): void;
  /** Of a long stored log, only this many of the newest records are written. */
  tailLines?: number;
  /** Where the newest `lines` stored records of a channel begin (their first seq; null when
   *  the channel is empty). With it, opening a long log reads only its tail instead of
   *  every page of it. */
  tailStart?(channel: LogChannel, lines: number): Promise<number | null>;
  /** A read failed; the feed retries by itself. */
  onError?(err: unknown): void;
  /** Whether the feed is reading the store (backfill or filling a gap): for a spinner. */
  onCatchingUp?(isCatchingUp: boolean): void;
  readPage?: number;
  burstRecords?: number;
  settleMs?: number;
  maxHeld?: number;
  skipAhead?: number;
  retryMs?: number;
}

/**
 * One node's log for a pane: the stored backlog first, then live batches, each record once
 * and in seq order per channel. Live records that cannot be placed yet (they come while the
 * store is read, or after a hole: a batch the server did not send, a reconnect) are held,
 * and the hole is read from the store by seq, which has it: the datastream stores a batch
 * before it sends the event. A hole too long to be worth reading is skipped, with a note.
 */
export class LogFeed {
  private readonly seq = new NodeSequencer();
  /** The highest seq a live batch has shown per channel. */
  private readonly head: Record<LogChannel, number> = { bootstrap: 0, agent: 0, events: 0 };
  /** Live records past the cursor, not placed yet, per channel. */
  private readonly held: Record<LogChannel, LogRecord[]> = { bootstrap: [], agent: [], events: [] };
  private heldCount = 0;
  /** Channels the store must be read to its end for (the backfill; after a reconnect). */
  private readonly mustRead = new Set<LogChannel>(CHANNELS);
  private isPumping = false;
  private isClosed = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private settleTimer: ReturnType<typeof setTimeout> | null = null;
  private burst = 0;
  private isTailChecked = false;

  constructor(private readonly deps: LogFeedDeps) {}

  /** Reads the stored backlog; live batches given meanwhile are held, not lost. */
  start(): void {
    void this.pump();
  }

  /** A live batch (only this node's records). */
  live(records: readonly LogRecord[]): void {
    if (this.isClosed || records.length === 0) return;
    for (const r of records) this.head[r.channel] = Math.max(this.head[r.channel], r.seq);
    this.noteBurst(records.length);
    if (this.isPumping || CHANNELS.some((c) => this.needsWork(c))) {
      this.hold(records);
      void this.pump();
      return;
    }
    const { fresh, gaps } = this.seq.acceptLive(records);
    if (fresh.length > 0) this.deps.write(fresh);
    if (gaps.size > 0) {
      this.hold(records.filter((r) => gaps.has(r.channel)));
      void this.pump();
    }
  }

  /** After a reconnect: events sent while the socket was down are gone; read them. */
  resync(): void {
    for (const c of CHANNELS) this.mustRead.add(c);
    void this.pump();
  }

  /** The last seq placed, per channel. */
  lastSeq(channel: LogChannel): number {
    return this.seq.last(channel);
  }

  close(): void {
    this.isClosed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.settleTimer) clearTimeout(this.settleTimer);
  }

  private noteBurst(n: number): void {
    this.burst += n;
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => {
      this.settleTimer = null;
      const wasBurst = this.burst >= (this.deps.burstRecords ?? BURST_RECORDS);
      this.burst = 0;
      if (wasBurst) this.resync();
    }, this.deps.settleMs ?? SETTLE_MS);
  }

  private needsWork(c: LogChannel): boolean {
    return this.mustRead.has(c) || this.held[c].length > 0 || this.seq.last(c) < this.head[c];
  }

  private hold(records: readonly LogRecord[]): void {
    for (const r of records) {
      if (r.seq <= this.seq.last(r.channel)) continue;
      this.held[r.channel].push(r);
      this.heldCount++;
    }
    const max = this.deps.maxHeld ?? MAX_HELD;
    if (this.heldCount <= max) return;
    // Too many: drop the oldest of the busiest channel; the store has them.
    const c = CHANNELS.reduce((a, b) => (this.held[b].length > this.held[a].length ? b : a));
    const drop = Math.min(this.heldCount - max, this.held[c].length);
    this.held[c] = sortedBySeq(this.held[c]).slice(drop);
    this.heldCount -= drop;
  }

  /** Places the held records that follow the cursor; drops those behind it. */
  private drainHeld(c: LogChannel): LogRecord[] {
    const list = sortedBySeq(this.held[c]);
    const fresh = this.seq.acceptLive(list).fresh;
    const rest = list.filter((r) => r.seq > this.seq.last(c));
    this.heldCount -= list.length - rest.length;
    this.held[c] = rest;
    return fresh;
  }

  /** Before the first backfill: a channel whose stored log is longer than a pane keeps
   *  starts at its tail; what comes before is only noted (it stays on disk, searchable). */
  private async skipToTail(tailLines: number): Promise<void> {
    if (this.isTailChecked || !this.deps.tailStart) return;
    let skipped = 0;
    for (const c of CHANNELS) {
      if (this.seq.last(c) > 0 || !this.mustRead.has(c)) continue;
      const start = await this.deps.tailStart(c, tailLines);
      if (start !== null && start > 1 && this.seq.last(c) === 0) {
        this.seq.skipTo(c, start - 1);
        skipped += start - 1;
      }
    }
    this.isTailChecked = true;
    if (skipped > 0) this.deps.onSkip?.(skipped, 'earlier');
  }

  private async pump(): Promise<void> {
    if (this.isPumping || this.isClosed) return;
    this.isPumping = true;
    this.deps.onCatchingUp?.(true);
    const page = this.deps.readPage ?? READ_PAGE;
    const skipAhead = this.deps.skipAhead ?? SKIP_AHEAD;
    const tailLines = this.deps.tailLines ?? TAIL_LINES;
    // A stored log longer than a page is read to its end before anything is written, and
    // only its newest records are: parsing a million lines to keep ten thousand is waste.
    let tail: LogRecord[] | null = null;
    let tailRead = 0;
    const emit = (records: LogRecord[]) => {
      if (records.length === 0) return;
      if (!tail) return this.deps.write(records);
      tail = tail.concat(records);
      tailRead += records.length;
      if (tail.length > 2 * tailLines) tail = tail.slice(tail.length - tailLines);
    };
    const endTail = () => {
      if (!tail) return;
      const kept = tail.slice(Math.max(0, tail.length - tailLines));
      tail = null;
      if (tailRead > kept.length) this.deps.onSkip?.(tailRead - kept.length, 'earlier');
      if (kept.length > 0) this.deps.write(kept);
    };
    try {
      if (this.deps.tailStart && !this.isTailChecked) await this.skipToTail(tailLines);
      for (;;) {
        if (this.isClosed) return;
        const work = CHANNELS.filter((c) => this.needsWork(c));
        if (work.length === 0) {
          endTail();
          break;
        }
        // Held records that follow the cursor go first; a long hole before the held ones
        // is skipped; whatever is still missing is read from the store.
        const fresh: LogRecord[] = [];
        for (const c of work) {
          fresh.push(...this.drainHeld(c));
          const next = this.held[c][0];
          const missing = next ? next.seq - 1 - this.seq.last(c) : 0;
          if (next && missing > skipAhead) {
            this.seq.skipTo(c, next.seq - 1);
            this.mustRead.delete(c); // the live stream shows where the store ends
            this.deps.onSkip?.(missing, 'here');
            fresh.push(...this.drainHeld(c));
          }
        }
        emit(byTime(fresh));
        const toRead = work.filter((c) => this.needsWork(c));
        if (toRead.length === 0) continue;

        const before = toRead.map((c) => ({
          last: this.seq.last(c),
          head: this.head[c],
          firstHeld: this.held[c][0]?.seq ?? Infinity,
        }));
        const pages = await Promise.all(
          toRead.map((c) => this.deps.read(c, this.seq.last(c) + 1, page)),
        );
        if (this.isClosed) return;
        // A full page may have more behind it: records of other channels later than its
        // last one wait for the next round, so channels interleave by time.
        let cutoff = Infinity;
        for (const p of pages) if (p.length >= page) cutoff = Math.min(cutoff, p.at(-1)!.ts);
        if (cutoff !== Infinity && !tail && toRead.some((c) => this.mustRead.has(c))) {
          tail = [];
          tailRead = 0;
        }
        emit(this.seq.acceptStored(byTime(pages.flat().filter((r) => r.ts <= cutoff))));
        if (cutoff === Infinity) endTail();
        else if (tail) this.deps.onReading?.(tailRead);
        toRead.forEach((c, i) => {
          const p = pages[i]!;
          const b = before[i]!;
          const last = this.seq.last(c);
          if (p.length >= page || last < (p.at(-1)?.seq ?? 0)) return; // more to read
          this.mustRead.delete(c);
          // Short page: the store ends here. Records known before the read began were
          // stored before it began, so what it lacks up to them, it never had: accept
          // the hole rather than ask again for ever.
          const known = Math.min(b.head, b.firstHeld - 1);
          if (last === b.last && last < known) this.seq.skipTo(c, known);
        });
      }
    } catch (err) {
      endTail(); // what was read stays placed: write it
      this.deps.onError?.(err);
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        void this.pump();
      }, this.deps.retryMs ?? RETRY_MS);
    } finally {
      this.isPumping = false;
      this.deps.onCatchingUp?.(this.retryTimer !== null);
    }
  }
}

function sortedBySeq(list: LogRecord[]): LogRecord[] {
  for (let i = 1; i < list.length; i++)
    if (list[i]!.seq < list[i - 1]!.seq) return list.sort((a, b) => a.seq - b.seq);
  return list;
}
