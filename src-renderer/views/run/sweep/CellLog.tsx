import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useLayoutEffect, useRef } from 'react';
import type { CellView } from '../../../../src-main/contract';
import { call, describeError } from '../../../api/backend';
import { keys } from '../../../api/queries';
import { CloseIcon } from '../icons';
import { appendCellLog, CELL_LOG_LINES, NO_CELL_LOG, type HeldCellLog } from './cell-log';

/** Records per `logs.read` page, and pages per poll (a long log is read over several). */
const PAGE = 10_000;
const PAGES_PER_POLL = 10;

/** One cell's log (`logs.read {cellId}`: its node's records between the cell's seqs), read
 *  on from where it was every second while the cell runs. Plain text, newest at the end. */
export function CellLog(props: { runId: string; cell: CellView; onClose(): void }) {
  const { runId, cell } = props;
  const qc = useQueryClient();
  const key = keys.cellLog(runId, cell.id);
  const isRunning = cell.status === 'running';
  const q = useQuery({
    queryKey: key,
    queryFn: async () => {
      let held = qc.getQueryData<HeldCellLog>(key) ?? NO_CELL_LOG;
      for (let page = 0; page < PAGES_PER_POLL; page++) {
        const { records } = await call('logs.read', {
          runId,
          cellId: cell.id,
          fromSeq: held.readTo + 1,
          limit: PAGE,
        });
        held = appendCellLog(held, records);
        if (records.length < PAGE) break;
      }
      return held;
    },
    refetchInterval: isRunning ? 1_000 : false,
    structuralSharing: false,
  });
  // The cell has ended (or started): read what it wrote last.
  const { refetch } = q;
  const status = cell.status;
  const seen = useRef(status);
  useEffect(() => {
    if (seen.current !== status) void refetch();
    seen.current = status;
  }, [status, refetch]);

  // Keep the newest line in view while it is (a scroll up holds the view still).
  const box = useRef<HTMLPreElement>(null);
  const atEnd = useRef(true);
  const lines = q.data?.lines;
  useLayoutEffect(() => {
    const el = box.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [lines]);

  return (
    <section className="card cell-log" data-testid="cell-log-view" data-cell-id={cell.id}>
      <div className="card-head">
        Log of <span className="mono">{cell.id}</span>
        <span className="faint card-sub">
          {cell.node ? `on ${cell.node}` : 'not started'}
          {lines && lines.length >= CELL_LOG_LINES
            ? ` · the newest ${CELL_LOG_LINES.toLocaleString('en-US')} lines`
            : ''}
        </span>
        <div className="grow" />
        <button
          className="icon-btn"
          title="Close"
          aria-label="Close the log"
          onClick={props.onClose}
        >
          <CloseIcon />
        </button>
      </div>
      {q.error ? (
        <div className="alert">{describeError(q.error)}</div>
      ) : (
        <pre
          className="cell-log-lines"
          ref={box}
          onScroll={(e) => {
            const el = e.currentTarget;
            atEnd.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
          }}
        >
          {!lines
            ? 'reading…'
            : lines.length === 0
              ? 'No lines yet.'
              : lines.map((l) => (
                  <div key={l.seq} className={`cell-log-${l.kind}`}>
                    {l.kind === 'tender' ? `» ${l.text}` : l.text || ' '}
                  </div>
                ))}
        </pre>
      )}
    </section>
  );
}
