import type { CellStatus, CellView } from '../../../../src-main/contract';
import { duration } from '../../../lib/format';
import { SortIcon } from '../../../shell/icons';
import { formatValue } from '../metrics/chart-options';
import { LogIcon, StopIcon } from '../icons';
import type { Direction } from './cell-metric';
import {
  cellDuration,
  nextCellSort,
  type CellRow,
  type CellSort,
  type CellSortKey,
} from './cell-sort';

const STATUS_COLOUR: Record<CellStatus, string> = {
  queued: 'grey',
  running: 'blue',
  completed: 'green',
  failed: 'red',
  cancelled: 'amber', // stopped by its user: not a failure
};

interface Column {
  key: CellSortKey;
  label: string;
  num?: boolean;
  title?: string;
}

/** Every cell of a sweep, one row each, sortable by any column; a queued or running cell
 *  can be cancelled, and any cell's log shown. */
export function CellsTable(props: {
  rows: readonly CellRow[];
  params: readonly string[];
  metric: string | null;
  direction: Direction;
  sort: CellSort;
  onSort(sort: CellSort): void;
  now: number;
  onCancel(cell: CellView): void;
  cancelling: string | null;
  onLog(cell: CellView): void;
  logOf: string | null;
}): React.JSX.Element {
  const { sort, metric } = props;
  const columns: Column[] = [
    { key: 'id', label: 'Cell' },
    ...props.params.map((p): Column => ({ key: `param:${p}`, label: p })),
    { key: 'status', label: 'Status' },
    { key: 'node', label: 'Node' },
    { key: 'exit', label: 'Exit', num: true },
    { key: 'duration', label: 'Duration', num: true },
    ...(metric
      ? ([
          { key: 'last', label: `Last ${metric}`, num: true, title: 'Its newest point' },
          {
            key: 'best',
            label: `Best ${metric}`,
            num: true,
            title: props.direction === 'min' ? 'Its least value' : 'Its greatest value',
          },
        ] satisfies Column[])
      : []),
  ];
  return (
    <div className="cells-scroll">
      <table className="table cells-table" data-testid="cells-table">
        <thead>
          <tr>
            {columns.map((c) => {
              const dir = sort.key === c.key ? sort.dir : null;
              return (
                <th
                  key={c.key}
                  className={`${c.num ? 'num' : ''} ${dir ? 'cells-sorted' : ''}`}
                  aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'}
                  title={c.title}
                >
                  <button
                    className="cells-sort-btn"
                    data-testid={`cells-sort-${c.key}`}
                    onClick={() => props.onSort(nextCellSort(sort, c.key, props.direction))}
                  >
                    {c.label}
                    <SortIcon dir={dir} size={11} />
                  </button>
                </th>
              );
            })}
            <th aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {props.rows.map(({ cell, score }) => {
            const took = cellDuration(cell, props.now);
            const canCancel = cell.status === 'queued' || cell.status === 'running';
            return (
              <tr
                key={cell.id}
                data-testid="cell-row"
                data-cell-id={cell.id}
                data-status={cell.status}
                className={props.logOf === cell.id ? 'cells-shown' : ''}
              >
                <td className="mono">{cell.id}</td>
                {props.params.map((p) => (
                  <td key={p} className="mono">
                    {cell.values[p] ?? <span className="faint">—</span>}
                  </td>
                ))}
                <td>
                  <span
                    className={`badge ${STATUS_COLOUR[cell.status]}`}
                    data-cell-status={cell.status}
                    title={cell.reason ?? undefined}
                  >
                    {cell.status}
                  </span>
                  {cell.cacheHit && (
                    <span
                      className="badge plain cells-cache"
                      title={`Took the outputs of ${cell.cacheHit.runId} ${cell.cacheHit.cellId} instead of running`}
                    >
                      cached
                    </span>
                  )}
                  {cell.tries > 1 && <span className="faint cells-tries"> · try {cell.tries}</span>}
                </td>
                <td className="mono">{cell.node ?? <span className="faint">—</span>}</td>
                <td className={`num ${cell.exitCode ? 'red' : ''}`}>{cell.exitCode ?? '—'}</td>
                <td className="num">{took === null ? '—' : elapsed(took)}</td>
                {metric && <td className="num mono">{formatValue(score?.last)}</td>}
                {metric && <td className="num mono">{formatValue(score?.best)}</td>}
                <td className="cells-actions">
                  <button
                    className="btn btn-sm btn-ghost"
                    data-testid="cell-log"
                    title={`Show ${cell.id}'s log`}
                    aria-pressed={props.logOf === cell.id}
                    disabled={cell.seq === null}
                    onClick={() => props.onLog(cell)}
                  >
                    <LogIcon /> Log
                  </button>
                  {canCancel && (
                    <button
                      className="btn btn-sm btn-ghost"
                      data-testid="cell-cancel"
                      title={
                        cell.status === 'queued'
                          ? 'Never start this cell'
                          : 'Stop this cell (SIGTERM, then SIGKILL); its node goes on to the next'
                      }
                      disabled={props.cancelling === cell.id}
                      onClick={() => props.onCancel(cell)}
                    >
                      <StopIcon /> Cancel
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Under a minute with a tenth: a cell of 0.8 s did not take "0 s". */
function elapsed(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : duration(ms);
}
