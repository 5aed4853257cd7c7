import type { LeaseView } from '../../../src-main/contract';
import { JobBadge } from '../../components/StageBadge';
import { clockTime, duration, money, perHour } from '../../lib/format';
import { useUi } from '../../store/ui';
import { totals, type NodeRow, type RunGroup } from './ledger-model';
import { LEDGER_COLUMNS, LeaseRow, NodeRowView } from './NodeRows';

export function LedgerTableHead(): React.JSX.Element {
  return (
    <colgroup>
      <col style={{ width: 104 }} />
      <col style={{ width: 72 }} />
      <col style={{ width: 150 }} />
      <col style={{ width: 236 }} />
      <col style={{ width: 64 }} />
      <col />
      <col style={{ width: 84 }} />
      <col style={{ width: 76 }} />
      <col style={{ width: 84 }} />
      <col style={{ width: 84 }} />
    </colgroup>
  );
}

function HeadRow(): React.JSX.Element {
  return (
    <thead>
      <tr>
        <th>Node</th>
        <th>Provider</th>
        <th>Lease</th>
        <th>Stage</th>
        <th>Ready</th>
        <th>GPU · host</th>
        <th className="num">$/h</th>
        <th className="num">Accrued</th>
        <th className="num">Age</th>
        <th />
      </tr>
    </thead>
  );
}

/** One run: what it is, what it costs, and a row per node. */
export function RunGroupCard(props: {
  group: RunGroup;
  now: number;
  onDestroy: (row: NodeRow) => void;
}): React.JSX.Element {
  const { run, rows, strays, leases, hiddenRows } = props.group;
  const openRun = useUi((s) => s.openRun);
  const t = totals(leases, props.now);
  const ended = run.endedAt ?? null;
  // Runs made by an older Tender carry no cost summary.
  const budget = run.cost?.budgetUsd ?? null;
  return (
    <section
      className={`card lg-run-group ${props.group.isLive ? 'lg-is-live' : 'lg-is-ended'}`}
      data-testid="run-group"
      data-run-id={run.id}
    >
      <header className="lg-run-head">
        <span className="mono lg-run-id">{run.id}</span>
        <span className="lg-run-name">{run.jobName}</span>
        <JobBadge status={run.status} />
        {run.detached && (
          <span
            className="badge lg-amber plain"
            title="No Tender process drives this run: its agents keep running the job. Attach with tender logs --follow."
          >
            detached
          </span>
        )}
        <span className="lg-run-meta">
          {run.provider} · {run.count} node{run.count === 1 ? '' : 's'} · started{' '}
          {clockTime(run.createdAt)}
          {run.origin && (
            <span data-testid="run-group-origin">
              {' '}
              by <span className="mono">{run.origin}</span>
            </span>
          )}
          {ended !== null && ` · ran ${duration(ended - run.createdAt)}`}
        </span>
        <span className="grow" />
        <span
          className="lg-run-cost"
          title="What the run's live leases bill per hour, and what all its leases cost so far"
        >
          <span className={t.perHour > 0 ? 'lg-rate lg-live' : 'lg-rate'}>
            {t.perHour > 0 ? perHour(t.perHour) : 'not billing'}
          </span>
          <span className="lg-spent">
            {money(t.accrued)} so far
            {budget != null && (
              <span className={run.cost?.budgetWarning ? 'lg-amber' : ''}>
                {' '}
                of {money(budget)} budget
              </span>
            )}
          </span>
        </span>
        <button className="btn btn-sm" onClick={() => openRun(run.id)}>
          Open run
        </button>
      </header>
      {run.failedReason && <div className="lg-run-reason">{run.failedReason}</div>}
      <table className="table ledger-table">
        <LedgerTableHead />
        <HeadRow />
        <tbody>
          {rows.map((row) => (
            <NodeRowView key={row.node.id} row={row} now={props.now} onDestroy={props.onDestroy} />
          ))}
          {strays.map((l: LeaseView) => (
            <LeaseRow key={l.label} lease={l} now={props.now} note="lease" />
          ))}
          {rows.length === 0 && strays.length === 0 && (
            <tr>
              <td colSpan={LEDGER_COLUMNS} className="faint">
                No node has been created for this run yet.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      {hiddenRows > 0 && (
        <div className="lg-run-hidden faint">
          {hiddenRows} ended node{hiddenRows === 1 ? '' : 's'} hidden (live only)
        </div>
      )}
    </section>
  );
}

/** Leases without a run in the ledger: orphans Tender adopted in order to destroy them. */
export function LooseLeases(props: { leases: LeaseView[]; now: number }): React.JSX.Element {
  return (
    <section className="card lg-run-group" data-testid="loose-leases">
      <header className="lg-run-head">
        <span className="lg-run-name">Leases without a run</span>
        <span className="lg-run-meta">orphans Tender found carrying its label and destroyed</span>
      </header>
      <table className="table ledger-table">
        <LedgerTableHead />
        <HeadRow />
        <tbody>
          {props.leases.map((l) => (
            <LeaseRow key={l.label} lease={l} now={props.now} note="orphan" />
          ))}
        </tbody>
      </table>
    </section>
  );
}
