// A node's log as an agent reads it: the last lines, or the lines after a seq it has seen,
// with the seq to ask from next. Data riding the log (GPU samples, metrics) is left out,
// as every printer of the log leaves it out.
import { isDataSource, type LogChannel, type LogRecord, type RunView } from '../../contract';
import { TenderError } from '../../base/tender-error';
import type { McpSession } from './session';

export interface LogLines {
  node: string;
  lines: { seq: number; stream: 'stdout' | 'stderr' | 'info'; text: string }[];
  /** Ask `from_seq` this next time: nothing before it is new. */
  nextSeq: number;
}

/** A line longer than this is cut: a progress bar without newlines must not fill a context. */
const MAX_LINE_CHARS = 2_000;
export const MAX_LINES = 2_000;

export async function readLogLines(
  session: McpSession,
  view: RunView,
  want: { node?: string; channel: LogChannel; tail?: number; fromSeq?: number },
): Promise<LogLines> {
  const node = nodeOf(view, want.node);
  // A run nobody drives logs on its node only: fetch what the datastream lacks first.
  if (view.detached && (view.status === 'running' || view.status === 'pending'))
    await session.call('logs.backfill', { runId: view.id, nodeName: node }).catch(() => null);
  const read = (input: { fromSeq?: number; tail?: number; limit: number }) =>
    session
      .call('logs.read', { runId: view.id, nodeName: node, channel: want.channel, ...input })
      .then((r) => r.records);

  let records: LogRecord[];
  if (want.fromSeq !== undefined) {
    records = await read({ fromSeq: want.fromSeq, limit: MAX_LINES });
  } else {
    // Samples ride the same channel: widen the tail until it holds enough lines.
    const tail = want.tail ?? 100;
    let asked = tail;
    records = await read({ tail: asked, limit: asked });
    while (records.filter(isLine).length < tail && records.length === asked && asked < 64 * tail) {
      asked *= 4;
      records = await read({ tail: asked, limit: asked });
    }
  }
  const lastSeq = records.at(-1)?.seq;
  const lines = records.filter(isLine);
  const kept = want.fromSeq === undefined ? lines.slice(-(want.tail ?? 100)) : lines;
  return {
    node,
    lines: kept.map((r) => ({
      seq: r.seq,
      stream: r.stream,
      text: r.line.length > MAX_LINE_CHARS ? `${r.line.slice(0, MAX_LINE_CHARS)}…` : r.line,
    })),
    nextSeq: lastSeq === undefined ? (want.fromSeq ?? 1) : lastSeq + 1,
  };
}

function isLine(r: LogRecord): boolean {
  return !isDataSource(r.source);
}

function nodeOf(view: RunView, asked: string | undefined): string {
  if (asked === undefined) return view.nodes[0]?.logicalId ?? 'node-0';
  const name = asked.startsWith('node-') ? asked : `node-${asked}`;
  if (!view.nodes.some((n) => n.logicalId === name))
    throw new TenderError(
      'bad_input',
      `run ${view.id} has no node ${asked}`,
      `nodes: ${view.nodes.map((n) => n.logicalId).join(', ')}`,
    );
  return name;
}
