import type { LeaseView } from '../../../src-main/contract';
import { logicalOf, perHour } from '../../lib/format';
import { AlertIcon } from '../../shell/icons';
import { shortLeaseId } from '../../shell/teardown-progress';
import { useTeardown } from '../../shell/teardown-store';
import { useUi } from '../../store/ui';
import type { Attention } from './ledger-model';

/** What may bill without Tender being able to stop it on its own: shown first, in red,
 *  each with what to do. */
export function AttentionPanel({ attention }: { attention: Attention }): React.JSX.Element | null {
  const openTeardown = useTeardown((s) => s.open);
  const setView = useUi((s) => s.setView);
  const { orphans, leases, unreachable } = attention;
  const count = orphans.length + leases.length + unreachable.length;
  if (count === 0) return null;
  return (
    <section className="lg-attention" data-testid="ledger-attention" role="alert">
      <header className="lg-attention-head">
        <AlertIcon size={16} />
        <strong>
          {count} thing{count === 1 ? '' : 's'} may bill without Tender stopping{' '}
          {count === 1 ? 'it' : 'them'}
        </strong>
        <span className="grow" />
        {(orphans.length > 0 || leases.length > 0) && (
          <button className="btn btn-danger btn-sm" onClick={openTeardown}>
            Tear down all…
          </button>
        )}
      </header>
      <ul className="lg-attention-list">
        {orphans.map((o) => (
          <li key={o.label} data-testid="orphan-row" data-label={o.label}>
            <span className="badge red plain">orphan</span>
            <span className="lg-what">
              <span className="mono">
                {o.provider} {shortLeaseId(o.leaseId, o.provider)}
              </span>{' '}
              <span className="mono faint">{o.label}</span>
            </span>
            <span className="lg-todo">
              Carries Tender’s label but is not in the ledger, so it may be billing. Tear down all
              destroys orphans too; or destroy it in the provider’s console.
            </span>
          </li>
        ))}
        {leases.map((l) => (
          <AttentionLease key={l.label} lease={l} />
        ))}
        {unreachable.map((u) => (
          <li key={u.provider} data-testid="unreachable-row">
            <span className="badge lg-amber plain">unreachable</span>
            <span className="lg-what">
              <span className="mono">{u.provider}</span> <span className="dim">{u.error}</span>
            </span>
            <span className="lg-todo">
              Tender could not list this provider’s leases, so orphans there cannot be seen.{' '}
              {u.provider === 'vastai' && (
                <button className="lg-linkish" onClick={() => setView('settings')}>
                  Check the API key in Settings
                </button>
              )}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function AttentionLease({ lease }: { lease: LeaseView }): React.JSX.Element {
  const isLost = lease.state === 'lost';
  return (
    <li data-testid="attention-lease" data-label={lease.label} data-lease-state={lease.state}>
      <span className="badge red plain">{isLost ? 'lost' : 'destroy failing'}</span>
      <span className="lg-what">
        <span className="mono">
          {lease.provider} {shortLeaseId(lease.leaseId, lease.provider)}
        </span>{' '}
        {lease.nodeId && (
          <span className="faint">{`${lease.runId} / ${logicalOf(lease.nodeId)}`}</span>
        )}{' '}
        {lease.pricePerHour !== null && (
          <span className="lg-amber">{perHour(lease.pricePerHour)}</span>
        )}
        {lease.lastError && <span className="red lg-err"> {lease.lastError}</span>}
      </span>
      <span className="lg-todo">
        {isLost
          ? 'The provider no longer lists this lease, yet Tender did not destroy it. Check the provider’s console that it is gone and not billing.'
          : 'Destroying failed; Tender keeps retrying in the background. If it persists, destroy it in the provider’s console.'}
      </span>
    </li>
  );
}
