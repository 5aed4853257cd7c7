import { describe, expect, it } from 'vitest';
import type { LogRecord, LogSource } from '../../../../src-main/contract';
import { appendCellLog, CELL_LOG_LINES, NO_CELL_LOG } from './cell-log';

const rec = (
  seq: number,
  line: string,
  source: LogSource = 'run',
  stream: LogRecord['stream'] = 'stdout',
): LogRecord => ({
  run: 'r-1',
  node: 'r-1/node-0',
  channel: 'agent',
  source,
  stream,
  seq,
  ts: seq,
  line,
});

describe('appendCellLog', () => {
  it("keeps the job's lines and Tender's apart, leaves data out, strips escapes", () => {
    const held = appendCellLog(NO_CELL_LOG, [
      rec(1, 'run started', 'agent', 'info'),
      rec(2, '\x1b[32mstep 1\x1b[0m'),
      rec(3, '{"step":1}', 'metrics'),
      rec(4, 'oops', 'run', 'stderr'),
    ]);
    expect(held.lines.map((l) => [l.seq, l.kind, l.text])).toEqual([
      [1, 'tender', 'run started'],
      [2, 'out', 'step 1'],
      [4, 'err', 'oops'],
    ]);
    expect(held.readTo).toBe(4);
  });

  it('reads on after the last seq, data records included; each seq once', () => {
    const first = appendCellLog(NO_CELL_LOG, [rec(1, 'a'), rec(2, '{}', 'metrics')]);
    expect(first.readTo).toBe(2);
    const again = appendCellLog(first, [rec(2, '{}', 'metrics'), rec(3, 'b')]);
    expect(again.lines.map((l) => l.text)).toEqual(['a', 'b']);
    expect(appendCellLog(again, [rec(3, 'b')])).toBe(again);
  });

  it('keeps the newest lines only', () => {
    const many = Array.from({ length: CELL_LOG_LINES + 10 }, (_, i) => rec(i + 1, `l${i + 1}`));
    const held = appendCellLog(NO_CELL_LOG, many);
    expect(held.lines).toHaveLength(CELL_LOG_LINES);
    expect(held.lines[0]!.text).toBe('l11');
  });
});
