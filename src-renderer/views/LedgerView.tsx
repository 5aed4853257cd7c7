import { useState } from 'react';
import { describeError } from '../api/backend';
import { useStatus } from '../api/queries';
import { clockTime, money, perHour } from '../lib/format';
import { useNow } from '../lib/use-now';
import { Spinner } from '../shell/icons';
import { useUi } from '../store/ui';
import { AttentionPanel } from './ledger/AttentionPanel';
import { DestroyNodeDialog } from './ledger/DestroyNodeDialog';
import { buildLedger, totals, type LedgerFilter, type NodeRow } from './ledger/ledger-model';
import { LooseLeases, RunGroupCard } from './ledger/RunGroupCard';
import './ledger/ledger.css';

const FILTER_KEY = 'tender.ledger.filter';

function savedFilter(): LedgerFilter {
  return window.localStorage.getItem(FILTER_KEY) === 'live' ? 'live' : 'all';
}

/** Every node and lease Tender holds, grouped by run, live first; what needs a person on top. */
export function LedgerView(): React.JSX.Element {
  const status = useStatus();
  const now = useNow();
  const [filter, setFilterState] = useState<LedgerFilter>(savedFilter);
  const [destroying, setDestroying] = useState<{ row: NodeRow; runName: string } | null>(null);
  const setFilter = (f: LedgerFilter) => {
    window.localStorage.setItem(FILTER_KEY, f);
    setFilterState(f);
  };

  if (status.isPending)
    return (
      <div className="page" data-testid="ledger">
        <LedgerHead />
        <div className="card empty row ledger-loading">
          <Spinner /> Reading the ledger and asking providers for their labelled leases…
        </div>
      </div>
    );
  if (!status.data)
    return (
      <div className="page" data-testid="ledger">
        <LedgerHead />
        <div className="alert" role="alert">
          <strong>Could not read the ledger.</strong> {describeError(status.error)}{' '}
          <button className="btn btn-sm" onClick={() => void status.refetch()}>
            Try again
          </button>
        </div>
      </div>
    );

  const model = buildLedger(status.data, filter);
  const t = totals(status.data.leases, now);
  return (
    <div className="page" data-testid="ledger">
      <LedgerHead>
        {!model.isEmpty && (
          <>
            <div className="ledger-sum" data-testid="ledger-summary">
              <span>
                <b className={t.live > 0 ? 'lg-amber' : ''}>{t.live}</b> live lease
                {t.live === 1 ? '' : 's'}
              </span>
              <span>
                <b className={t.perHour > 0 ? 'lg-amber' : ''}>{perHour(t.perHour)}</b> now
              </span>
              <span>
                <b>{money(t.accrued)}</b> spent in all
              </span>
            </div>
            <div className="lg-seg" role="group" aria-label="Show">
              <button
                aria-pressed={filter === 'live'}
                onClick={() => setFilter('live')}
                data-testid="ledger-filter-live"
              >
                Live only
              </button>
              <button
                aria-pressed={filter === 'all'}
                onClick={() => setFilter('all')}
                data-testid="ledger-filter-all"
              >
                All
              </button>
            </div>
          </>
        )}
      </LedgerHead>
      {status.isError && (
        <div className="alert warn lg-stale" role="status">
          Could not refresh the ledger ({describeError(status.error)}); showing what was read at{' '}
          {clockTime(status.dataUpdatedAt)}.
        </div>
      )}
      <AttentionPanel attention={model.attention} />
      {model.isEmpty ? (
        <LedgerEmpty />
      ) : (
        <div className="lg-run-groups">
          {model.groups.map((g) => (
            <RunGroupCard
              key={g.run.id}
              group={g}
              now={now}
              onDestroy={(row) => setDestroying({ row, runName: g.run.jobName })}
            />
          ))}
          {model.loose.length > 0 && <LooseLeases leases={model.loose} now={now} />}
          {model.groups.length === 0 && model.loose.length === 0 && (
            <div className="card empty">
              <strong>Nothing is live</strong>
              No node runs and no lease bills.{' '}
              {model.hiddenRuns > 0 && (
                <button className="lg-linkish" onClick={() => setFilter('all')}>
                  Show {model.hiddenRuns} past run{model.hiddenRuns === 1 ? '' : 's'}
                </button>
              )}
            </div>
          )}
          {filter === 'live' && model.hiddenRuns > 0 && model.groups.length > 0 && (
            <div className="faint ledger-hidden">
              {model.hiddenRuns} ended run{model.hiddenRuns === 1 ? '' : 's'} hidden.{' '}
              <button className="lg-linkish" onClick={() => setFilter('all')}>
                Show all
              </button>
            </div>
          )}
        </div>
      )}
      {destroying && (
        <DestroyNodeDialog
          row={destroying.row}
          runName={destroying.runName}
          onClose={() => setDestroying(null)}
        />
      )}
    </div>
  );
}

function LedgerHead({ children }: { children?: React.ReactNode }): React.JSX.Element {
  return (
    <div className="page-head">
      <div>
        <h1>Ledger</h1>
        <div className="sub">
          Every node and lease Tender rented, from request until the provider confirms it gone.
        </div>
      </div>
      <div className="actions ledger-actions">{children}</div>
    </div>
  );
}

function LedgerEmpty(): React.JSX.Element {
  const setView = useUi((s) => s.setView);
  return (
    <div className="card ledger-empty" data-testid="ledger-empty">
      <strong>The ledger is empty</strong>
      <p>
        Each node Tender rents for a run appears here the moment it is requested, with its lease,
        its stage, what it bills and what it has cost, until the provider confirms the lease is
        gone. Anything still billing is always in the top bar, and Tear down all stops it.
      </p>
      <div className="row ledger-empty-actions">
        <button className="btn btn-primary" onClick={() => setView('composer')}>
          Start a run
        </button>
        <button className="btn" onClick={() => setView('offers')}>
          Browse GPU offers
        </button>
        <span className="faint">
          or from a terminal: <code>tender run tender.toml</code>
        </span>
      </div>
    </div>
  );
}
