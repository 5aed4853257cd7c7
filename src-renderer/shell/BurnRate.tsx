import { useStatus } from '../api/queries';
import { burnRate, isLive } from '../lib/billing';
import { perHour } from '../lib/format';

/** Dollars per hour of everything billing now; always in the top bar. */
export function BurnRate(): React.JSX.Element {
  const { data } = useStatus();
  const leases = data?.leases ?? [];
  const live = leases.filter(isLive).length;
  const orphans = data?.orphans.length ?? 0;
  const rate = burnRate(leases);
  return (
    <div
      className={`burn ${live > 0 ? 'live' : ''}`}
      data-testid="burn-rate"
      data-rate={rate.toFixed(6)}
      data-live={live}
      title="What every live lease bills per hour, all-in"
    >
      <span className="rate">{perHour(rate)}</span>
      <span className="what">
        {live === 0 ? 'nothing billing' : `${live} lease${live === 1 ? '' : 's'} billing`}
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
