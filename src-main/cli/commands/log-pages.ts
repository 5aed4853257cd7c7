// Streaming a stored log page by page: each node is read from its own seq (a merged page
// has no single seq to resume from), and several nodes are merged by time as `logs.read`
// merges them. At most one page per node is held, whatever the log's length.
import type { LogRecord } from '../../contract';

/** Reads up to `limit` of one node's records from `fromSeq`, in seq order. */
export type ReadPage = (fromSeq: number, limit: number) => Promise<LogRecord[]>;

export interface PageSource {
  read: ReadPage;
  /** The first seq wanted. */
  fromSeq: number;
}

interface Cursor {
  read: ReadPage;
  next: number;
  page: LogRecord[];
  at: number;
  /** The last read came back short: what is stored now has all been read. */
  isLast: boolean;
}

/** Every record of the sources from each one's `fromSeq` to what is stored, merged by
 *  time (ties by node, then seq), in batches of at most `pageSize`. */
export async function* mergedPages(
  sources: PageSource[],
  pageSize: number,
): AsyncGenerator<LogRecord[]> {
  if (sources.length === 1) {
    // One node: its pages are already in order, and the next is read while the one
    // before is being written out.
    const read = (from: number) => {
      const page = sources[0]!.read(from, pageSize);
      page.catch(() => {}); // awaited below; a consumer that stops early never sees it
      return page;
    };
    for (let next: Promise<LogRecord[]> | null = read(sources[0]!.fromSeq); next;) {
      const page: LogRecord[] = await next;
      next = page.length < pageSize ? null : read(page[page.length - 1]!.seq + 1);
      if (page.length > 0) yield page;
    }
    return;
  }
  const cursors: Cursor[] = sources.map((s) => ({
    read: s.read,
    next: s.fromSeq,
    page: [],
    at: 0,
    isLast: false,
  }));
  let out: LogRecord[] = [];
  for (;;) {
    let head: Cursor | null = null;
    for (const c of cursors) {
      if (c.at >= c.page.length && !c.isLast) await refill(c, pageSize);
      if (c.at < c.page.length && (!head || before(c.page[c.at]!, head.page[head.at]!))) head = c;
    }
    if (!head) break;
    out.push(head.page[head.at++]!);
    if (out.length >= pageSize) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}

async function refill(c: Cursor, pageSize: number): Promise<void> {
  c.page = await c.read(c.next, pageSize);
  c.at = 0;
  c.isLast = c.page.length < pageSize;
  if (c.page.length > 0) c.next = c.page[c.page.length - 1]!.seq + 1;
}

function before(a: LogRecord, b: LogRecord): boolean {
  return (a.ts - b.ts || a.node.localeCompare(b.node) || a.seq - b.seq) < 0;
}
