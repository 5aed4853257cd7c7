import { isDataSource, type LogRecord } from '../../../../src-main/contract';
import { plainText } from '../log-format';

/** At most this many lines of a cell's log are kept on screen (the newest). */
export const CELL_LOG_LINES = 5_000;

/** A line of a cell's log as shown: the job's own output, or Tender's (dimmed). */
export interface CellLogLine {
  seq: number;
  text: string;
  kind: 'out' | 'err' | 'tender';
}

/** What is held of a cell's log: its lines, and the highest seq read (data records too,
 *  so the next read starts after them). */
export interface HeldCellLog {
  lines: CellLogLine[];
  readTo: number;
}

export const NO_CELL_LOG: HeldCellLog = { lines: [], readTo: 0 };

/** Records read after what is held: data (GPU samples, metrics) left out, escapes removed,
 *  each seq once and in order, the newest `CELL_LOG_LINES` kept. */
export function appendCellLog(held: HeldCellLog, records: readonly LogRecord[]): HeldCellLog {
  let readTo = held.readTo;
  const added: CellLogLine[] = [];
  for (const r of records) {
    if (r.seq <= readTo) continue;
    readTo = r.seq;
    if (isDataSource(r.source)) continue;
    const own = r.stream !== 'info' && r.source !== 'agent' && r.source !== 'event';
    added.push({
      seq: r.seq,
      text: plainText(r.line),
      kind: own ? (r.stream === 'stderr' ? 'err' : 'out') : 'tender',
    });
  }
  if (readTo === held.readTo) return held;
  const all = held.lines.concat(added);
  return {
    lines: all.length > CELL_LOG_LINES ? all.slice(all.length - CELL_LOG_LINES) : all,
    readTo,
  };
}
