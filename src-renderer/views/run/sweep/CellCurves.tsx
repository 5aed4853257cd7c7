import { useMemo } from 'react';
import type { CellView, MetricSeries } from '../../../../src-main/contract';
import { MetricChart } from '../metrics/MetricChart';
import { cellCurves } from './cell-curves';
import { colourByParam } from './colour-by';

/** The chosen metric of every cell, overlaid, coloured by one param: cells with the same
 *  value share a colour, and the legend says which value is which. `drawn`: the cells
 *  whose curve is drawn (the first, as the table sorts them, of a big sweep). */
export function CellCurves(props: {
  series: readonly MetricSeries[];
  metric: string;
  cells: readonly CellView[];
  drawn: readonly CellView[];
  params: readonly string[];
  colourBy: string | null;
  onColourBy(param: string): void;
}): React.JSX.Element {
  const { series, metric, cells, drawn, colourBy } = props;
  const groups = useMemo(() => colourByParam(cells, colourBy ?? ''), [cells, colourBy]);
  const lines = useMemo(
    () => cellCurves(series, metric, drawn, groups),
    [series, metric, drawn, groups],
  );
  return (
    <div className="cell-curves" data-testid="cell-curves">
      <div className="cell-curves-head">
        <span className="cell-curves-title">
          <span className="mono">{metric}</span>{' '}
          {drawn.length < cells.length
            ? `of the first ${drawn.length} cells as sorted`
            : 'of every cell'}
        </span>
        {props.params.length > 0 && (
          <label className="cells-choice">
            colour by
            <select
              className="select"
              data-testid="colour-by"
              value={colourBy ?? ''}
              onChange={(e) => props.onColourBy(e.target.value)}
            >
              {props.params.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </label>
        )}
        <div className="grow" />
        {colourBy && (
          <ul className="cell-curves-legend" data-testid="colour-legend">
            {groups.legend.map((g) => (
              <li key={g.value} title={`${g.count} cell${g.count === 1 ? '' : 's'}`}>
                <span className="cell-curves-swatch" style={{ background: g.colour }} />
                <span className="mono">
                  {colourBy}={g.value}
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
      {lines.length === 0 ? (
        <div className="empty">No cell has reported {metric} yet.</div>
      ) : (
        <MetricChart name={metric} lines={lines} legend={false} caption={false} height={240} />
      )}
    </div>
  );
}
