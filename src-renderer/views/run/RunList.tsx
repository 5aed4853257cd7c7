import type { RunView } from '../../../src-main/contract';
import { clockTime, duration } from '../../lib/format';
import { useNow } from '../../lib/use-now';

const STATUS_COLOUR: Record<RunView['status'], string> = {
  pending: 'grey',
  running: 'blue',
  completed: 'green',
  failed: 'red',
  cancelled: 'amber', // stopped by its user: not a failure
};

/** Every run, newest first; the one shown is marked. */
export function RunList(props: {
  runs: RunView[];
  selected: string | null;
  onSelect(runId: string): void;
}): React.JSX.Element {
  const now = useNow(10_000);
  return (
    <nav className="run-list" aria-label="Runs" data-testid="run-list">
      <div className="run-list-head">Runs</div>
      {props.runs.map((r) => (
        <button
          key={r.id}
          className="run-item"
          aria-current={r.id === props.selected ? 'true' : undefined}
          data-run-id={r.id}
          onClick={() => props.onSelect(r.id)}
        >
          <span className={`dot ${STATUS_COLOUR[r.status]}`} title={r.status} />
          <span className="run-item-main">
            <span className="run-item-name">{r.jobName}</span>
            <span className="run-item-sub">
              {r.provider} · {r.count}× · {r.status}
              {r.detached && r.status === 'running' ? ' (detached)' : ''}
            </span>
          </span>
          <span className="run-item-time tabular" title={new Date(r.createdAt).toLocaleString()}>
            {ago(r.createdAt, now)}
          </span>
        </button>
      ))}
    </nav>
  );
}

/** "12:04:31" today, "3 d 4 h" ago otherwise. */
function ago(ts: number, now: number): string {
  const isToday = new Date(ts).toDateString() === new Date(now).toDateString();
  return isToday ? clockTime(ts).slice(0, 5) : `${duration(now - ts)} ago`;
}
