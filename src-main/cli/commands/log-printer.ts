import { once } from 'node:events';
import { isDataSource, type LogRecord } from '../../contract';
import { terminalSafe } from '../terminal-text';

/** Prints each (node, channel, seq) once, in order, whatever mix of pages, backfill and
 *  live batches it is handed; what it printed last of each is where the next page starts.
 *  Job output goes to stdout whole, so `> file` captures it, less any escape other than
 *  colours (terminal-text.ts: a node must not drive the user's terminal); GPU samples (`gpu`) and
 *  metrics (`metrics`) are data, never printed. */
export class LogPrinter {
  private readonly last = new Map<string, number>();

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly prefixNodes: boolean,
  ) {}

  /** The last seq printed of a node's channel (0: none). */
  lastSeq(node: string, channel: string): number {
    return this.last.get(`${node}|${channel}`) ?? 0;
  }

  /** Writes, then waits while the stream is full: a slow pipe holds back the reading of
   *  the next page instead of piling pages up in memory. */
  async print(records: LogRecord[]): Promise<void> {
    if (!this.write(records)) await once(this.out, 'drain');
  }

  /** Writes at once (a live batch from an event: nothing to hold back). Returns whether
   *  the stream can take more. */
  write(records: LogRecord[]): boolean {
    let text = '';
    // Pages come a node and channel at a time: the map is touched once per run of them.
    let node = '';
    let channel = '';
    let last = 0;
    const prefix = (n: string) => (this.prefixNodes ? `[${n.slice(n.indexOf('/') + 1)}] ` : '');
    let shown = '';
    for (const r of records) {
      if (r.node !== node || r.channel !== channel) {
        if (node) this.last.set(`${node}|${channel}`, last);
        ({ node, channel } = r);
        last = this.last.get(`${node}|${channel}`) ?? 0;
        shown = prefix(node);
      }
      if (r.seq <= last) continue;
      last = r.seq;
      if (isDataSource(r.source)) continue;
      text += `${shown}${terminalSafe(r.line)}\n`;
    }
    if (node) this.last.set(`${node}|${channel}`, last);
    return text === '' || this.out.write(text);
  }
}
