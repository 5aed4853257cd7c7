import type { DestroyAllReport, LeaseView } from '../../src-main/contract';
import { Dialog } from '../components/Dialog';
import { duration, logicalOf, perHour } from '../lib/format';
import { useNow } from '../lib/use-now';
import { useUi } from '../store/ui';
import { AlertIcon, CheckIcon, CrossIcon, Spinner } from './icons';
import {
  countStates,
  shortLeaseId,
  teardownProgress,
  type TargetProgress,
  type TeardownTarget,
} from './teardown-progress';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function Owner({ t }: { t: TeardownTarget }): React.JSX.Element {
  if (t.kind === 'orphan')
    return (
      <span className="row" title={t.label}>
        <span className="badge red plain">orphan</span>
        <span className="mono faint td-ellipsis">{t.label}</span>
      </span>
    );
  if (!t.runId) return <span className="mono faint td-ellipsis">{t.label}</span>;
  return (
    <span className="mono">
      {t.runId}
      {t.nodeId && <span className="faint"> / {logicalOf(t.nodeId)}</span>}
    </span>
  );
}

export function ConfirmDialog(props: {
  targets: TeardownTarget[];
  isLoading: boolean;
  /** The ledger could not be read: what bills is unknown, the teardown can still run. */
  isUnknown: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}): React.JSX.Element {
  const { targets } = props;
  const leases = targets.filter((t) => t.kind === 'lease');
  const orphans = targets.length - leases.length;
  const rate = leases.reduce((s, t) => s + (t.pricePerHour ?? 0), 0);
  return (
    <Dialog
      title="Tear down everything that bills?"
      onClose={props.onCancel}
      testId="teardown-dialog"
      actions={
        <>
          <button className="btn" onClick={props.onCancel} autoFocus>
            Cancel
          </button>
          <button
            className="btn btn-danger"
            data-testid="teardown-confirm"
            disabled={targets.length === 0 && !props.isUnknown}
            onClick={props.onConfirm}
          >
            {props.isUnknown ? 'Destroy everything' : `Destroy ${plural(targets.length, 'lease')}`}
          </button>
        </>
      }
    >
      {props.isLoading ? (
        <p className="row">
          <Spinner /> Reading the ledger…
        </p>
      ) : props.isUnknown ? (
        <p>
          The ledger could not be read, so what bills is not known here. Tear down all still
          destroys every live lease and every orphan, and reports each one.
        </p>
      ) : targets.length === 0 ? (
        <p>Nothing bills now: no live lease and no orphan.</p>
      ) : (
        <>
          <p className="td-lede">
            Jobs still running stop now, and outputs not yet collected are lost. Each lease is
            destroyed and then checked gone with its provider.
          </p>
          <table className="table td-table">
            <thead>
              <tr>
                <th>Provider</th>
                <th>Lease</th>
                <th>Run / node</th>
                <th className="num">$/h</th>
              </tr>
            </thead>
            <tbody>
              {targets.map((t) => (
                <tr key={t.label} data-testid="teardown-target">
                  <td>{t.provider}</td>
                  <td className="mono">{shortLeaseId(t.leaseId, t.provider)}</td>
                  <td className="td-owner">
                    <Owner t={t} />
                  </td>
                  <td className="num">
                    {t.kind === 'orphan' ? (
                      <span className="faint">unknown</span>
                    ) : (
                      perHour(t.pricePerHour)
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <td colSpan={3}>
                  Total for {plural(leases.length, 'live lease')}
                  {orphans > 0 && (
                    <span className="red"> + {plural(orphans, 'orphan')} (price unknown)</span>
                  )}
                </td>
                <td className="num td-total" data-testid="teardown-total">
                  {perHour(rate)}
                </td>
              </tr>
            </tfoot>
          </table>
        </>
      )}
    </Dialog>
  );
}

export function ProgressDialog(props: {
  targets: TeardownTarget[];
  leases: LeaseView[];
  report: DestroyAllReport | null;
  error: string | null;
  isRunning: boolean;
  startedAt: number | null;
  endedAt: number | null;
  onClose: () => void;
}): React.JSX.Element {
  const now = useNow(props.isRunning ? 1000 : 60_000);
  const elapsed = props.startedAt === null ? null : (props.endedAt ?? now) - props.startedAt;
  const setView = useUi((s) => s.setView);
  const rows = teardownProgress(props.targets, props.leases, props.report, props.error);
  const n = countStates(rows);
  const isClean = !props.isRunning && n.failed === 0 && !props.error;
  const title = props.isRunning
    ? 'Tearing down…'
    : isClean
      ? 'Everything is torn down'
      : 'Teardown incomplete';
  return (
    <Dialog
      title={title}
      onClose={props.onClose}
      testId="teardown-dialog"
      actions={
        props.isRunning ? (
          <button
            className="btn"
            onClick={props.onClose}
            title="The teardown goes on; the top bar shows it"
          >
            Hide
          </button>
        ) : (
          <>
            {!isClean && (
              <button
                className="btn"
                onClick={() => {
                  setView('ledger');
                  props.onClose();
                }}
              >
                Open the ledger
              </button>
            )}
            <button
              className={`btn ${isClean ? 'btn-primary' : ''}`}
              onClick={props.onClose}
              autoFocus
            >
              Close
            </button>
          </>
        )
      }
    >
      <div className="td-meter" aria-live="polite">
        <span>
          {n.gone} of {rows.length} verified gone
          {n.failed > 0 && <span className="red"> · {n.failed} failed</span>}
          {elapsed !== null && <span className="faint"> · {elapsedText(elapsed)}</span>}
        </span>
        <div
          className="td-bar"
          role="progressbar"
          aria-valuemin={0}
          aria-valuemax={rows.length}
          aria-valuenow={n.gone}
        >
          <div
            className="td-bar-gone"
            style={{ width: `${(100 * n.gone) / Math.max(1, rows.length)}%` }}
          />
          <div
            className="td-bar-failed"
            style={{ width: `${(100 * n.failed) / Math.max(1, rows.length)}%` }}
          />
        </div>
      </div>
      <ul className="td-rows">
        {rows.map((r) => (
          <ProgressRow key={`${r.label}|${r.leaseId ?? ''}`} row={r} />
        ))}
      </ul>
      {props.error && (
        <div className="alert td-alert" role="alert">
          <strong>Tear down all failed: {props.error}</strong>
          <div>Leases not shown as gone may still bill. Check the ledger, then try again.</div>
        </div>
      )}
      {!props.isRunning && n.failed > 0 && !props.error && (
        <div className="alert td-alert" role="alert" data-testid="teardown-failures">
          <strong>
            <AlertIcon /> {plural(n.failed, 'lease')} could not be verified gone and may still bill.
          </strong>
          <div>
            Tender keeps retrying in the background and the ledger lists them in red. Check the
            provider console (Vast.ai: console.vast.ai → Instances) and destroy them there if they
            stay.
          </div>
        </div>
      )}
      {isClean && (
        <div className="alert info td-clean" data-testid="teardown-clean">
          <CheckIcon /> Every lease was confirmed gone by its provider. Nothing of this bills any
          more.
        </div>
      )}
    </Dialog>
  );
}

/** Seconds with a tenth below ten (a teardown often takes under one), then as durations. */
function elapsedText(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : duration(ms);
}

const STATE_TEXT = { destroying: 'destroying…', gone: 'verified gone', failed: 'failed' } as const;

function ProgressRow({ row }: { row: TargetProgress }): React.JSX.Element {
  return (
    <li
      className={`td-row td-${row.state}`}
      data-testid="teardown-lease"
      data-state={row.state}
      data-label={row.label}
    >
      <span className="td-state">
        {row.state === 'destroying' && <Spinner />}
        {row.state === 'gone' && <CheckIcon />}
        {row.state === 'failed' && <CrossIcon />}
        {STATE_TEXT[row.state]}
      </span>
      <span className="td-provider">{row.provider}</span>
      <span className="mono td-lease">{shortLeaseId(row.leaseId, row.provider)}</span>
      <span className="td-owner">
        <Owner t={row} />
      </span>
      <span className="num td-price">{row.kind === 'orphan' ? '' : perHour(row.pricePerHour)}</span>
      {row.error && (
        <span className={`td-why ${row.state === 'failed' ? 'red' : 'td-amber'}`}>
          {row.state === 'failed'
            ? `${row.error} — retrying in the background; check the provider console.`
            : `last attempt failed: ${row.error} — retrying`}
        </span>
      )}
    </li>
  );
}
