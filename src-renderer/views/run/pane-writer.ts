/** What the writer needs of an xterm Terminal. */
export interface TerminalSink {
  write(data: string, callback: () => void): void;
}

/** One xterm write: parsed in one go, a few ms at most (xterm yields between writes). */
export const CHUNK_CHARS = 64 * 1024;
/** Handed to xterm and not yet parsed: above HIGH we stop writing; below LOW we resume. */
export const HIGH_WATER = 512 * 1024;
export const LOW_WATER = 128 * 1024;
/** Queued beyond this, the oldest lines are left out: a pane keeps ~10 000 lines of
 *  scrollback anyway, and the whole log stays on disk, searchable. */
export const MAX_QUEUED_LINES = 20_000;

interface Entry {
  text: string;
  lines: number;
}

/**
 * Feeds log text to one xterm at the pace it parses: writes are coalesced per animation
 * frame, cut into chunks at line ends, and held back while xterm has more than HIGH_WATER
 * characters to parse (its write callbacks say when it has caught up). When the log comes
 * faster than xterm can parse for long, the oldest queued lines are left out, with a notice
 * in the pane, so the page never freezes and memory stays bounded.
 */
export class PaneWriter {
  private readonly queue: Entry[] = [];
  private head = 0;
  private queuedLines = 0;
  private inflight = 0;
  private leftOut = 0;
  private isScheduled = false;
  private isClosed = false;

  constructor(
    private readonly term: TerminalSink,
    private readonly schedule: (frame: () => void) => void,
    private readonly opts: {
      /** Lines xterm has parsed (for the pane's counter and the bench). */
      onWritten?(lines: number): void;
      /** Lines dropped from the queue to keep up (they stay on disk). */
      onLeftOut?(lines: number): void;
      /** The line that says so, in the pane. */
      leftOutNotice?(lines: number): string;
      maxQueuedLines?: number;
    } = {},
  ) {}

  /** Queues text made of `lines` whole lines (each ending in \n). */
  push(text: string, lines: number): void {
    if (this.isClosed || text.length === 0) return;
    this.queue.push({ text, lines });
    this.queuedLines += lines;
    this.trim();
    this.kick();
  }

  /** Characters handed to xterm and not parsed yet. */
  get pending(): number {
    return this.inflight;
  }

  get queued(): number {
    return this.queuedLines;
  }

  close(): void {
    this.isClosed = true;
    this.queue.length = 0;
    this.head = 0;
  }

  private trim(): void {
    const max = this.opts.maxQueuedLines ?? MAX_QUEUED_LINES;
    while (
      this.head < this.queue.length - 1 &&
      this.queuedLines - this.queue[this.head]!.lines >= max
    ) {
      const dropped = this.queue[this.head++]!;
      this.queuedLines -= dropped.lines;
      this.leftOut += dropped.lines;
    }
    if (this.head > 1024) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  private kick(): void {
    if (this.isScheduled || this.isClosed) return;
    this.isScheduled = true;
    this.schedule(() => this.frame());
  }

  private frame(): void {
    this.isScheduled = false;
    if (this.isClosed) return;
    if (this.leftOut > 0) {
      const n = this.leftOut;
      this.leftOut = 0;
      this.opts.onLeftOut?.(n);
      this.send(this.opts.leftOutNotice?.(n) ?? `[${n} lines left out]\r\n`, 0);
    }
    while (this.inflight < HIGH_WATER && this.head < this.queue.length) {
      const entry = this.queue[this.head]!;
      const { text, lines } = takeChunk(entry);
      if (entry.text.length === 0) this.head++;
      this.queuedLines -= lines;
      this.send(text, lines);
    }
    if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    }
  }

  private send(text: string, lines: number): void {
    this.inflight += text.length;
    this.term.write(text, () => {
      this.inflight -= text.length;
      if (lines > 0) this.opts.onWritten?.(lines);
      if (this.inflight <= LOW_WATER && this.head < this.queue.length) this.kick();
    });
  }
}

/** Takes up to CHUNK_CHARS of whole lines from the front of an entry (a longer single line
 *  goes whole). */
function takeChunk(entry: Entry): Entry {
  if (entry.text.length <= CHUNK_CHARS) {
    const whole = { ...entry };
    entry.text = '';
    entry.lines = 0;
    return whole;
  }
  let end = entry.text.lastIndexOf('\n', CHUNK_CHARS - 1);
  if (end === -1) end = entry.text.indexOf('\n', CHUNK_CHARS);
  if (end === -1) end = entry.text.length - 1;
  const text = entry.text.slice(0, end + 1);
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  entry.text = entry.text.slice(end + 1);
  entry.lines -= lines;
  return { text, lines };
}
