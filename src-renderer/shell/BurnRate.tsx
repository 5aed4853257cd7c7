import { useStatus } from '../api/queries';
import { billingText, burnRate, isLive, liveCounts } from '../lib/billing';
import { perHour } from '../lib/format';

/** Dollars per hour of everything billing now; always in the top bar. A free live node (a
 *  local folder, a host of yours) is counted apart: it does not bill. */
export function BurnRate(): React.JSX.Element {
  const { data } = useStatus();
  const leases = data?.leases ?? [];
  const live = leases.filter(isLive).length;
  const orphans = data?.orphans.length ?? 0;
  const rate = burnRate(leases);
  const counts = liveCounts(leases);
  return (
    <div
      className={`burn ${counts.billing > 0 ? 'live' : ''}`}
      data-testid="burn-rate"
      data-rate={rate.toFixed(6)}
      data-live={live}
      title="What every live lease bills per hour, all-in"
    >
      <span className="rate">{perHour(rate)}</span>
      <span className="what">
        {billingText(counts)}
        {orphans > 0 && (
          <span className="red">
            {' '}
            · {orphans} orphan{orphans === 1 ? '' : 's'}
          </span>
        )}
      </span>
    </div>
  );
}
