import type { Offer } from '../../../src-main/contract';
import { perHour } from '../../lib/format';
import { MAX_POOL } from './offers-store';

/** How many nodes, which offers they take, and the button that hands them to the composer. */
export function PoolBar(props: {
  count: number;
  picked: number;
  pool: Offer[];
  /** Offers of the pool's marketplace in the table (what auto-fill can take). */
  available: number;
  /** The pool's marketplace, by name; null before any offer is in it. */
  providerName: string | null;
  /** Why the pool cannot be used (offers picked from two marketplaces); null when it can. */
  problem: string | null;
  onCount: (n: number) => void;
  onUse: () => void;
}): React.JSX.Element {
  const { count, pool } = props;
  const rate = pool.reduce((s, o) => s + o.pricePerHour, 0);
  const isShort = pool.length < count;
  const filled = pool.length - props.picked;
  return (
    <div className="of-pool-bar" data-testid="pool-bar">
      <div className="of-stepper" role="group" aria-label="Nodes in the pool">
        <span className="of-label">Nodes</span>
        <button
          className="btn btn-sm"
          aria-label="One node fewer"
          onClick={() => props.onCount(count - 1)}
          disabled={count <= Math.max(1, props.picked)}
        >
          −
        </button>
        <input
          className="input"
          value={count}
          inputMode="numeric"
          aria-label="Nodes"
          data-testid="offer-count"
          onChange={(e) => {
            const n = Number(e.target.value);
            if (Number.isFinite(n) && e.target.value.trim() !== '') props.onCount(n);
          }}
        />
        <button
          className="btn btn-sm"
          aria-label="One node more"
          onClick={() => props.onCount(count + 1)}
          disabled={count >= MAX_POOL}
        >
          +
        </button>
      </div>
      <div className="of-pool-text">
        <span>
          {props.picked > 0 ? `${props.picked} picked` : 'none picked'}
          {filled > 0 && ` + the ${filled} cheapest`}
        </span>
        {props.problem ? (
          <span className="of-pool-problem" role="alert" data-testid="pool-problem">
            {props.problem}
          </span>
        ) : isShort ? (
          <span className="red">
            {`only ${props.available} ${props.providerName ? `${props.providerName} ` : ''}offer${props.available === 1 ? '' : 's'} match; loosen the filter`}
          </span>
        ) : (
          <span className="of-pool-rate">
            {perHour(rate)} for the pool{props.providerName ? ` on ${props.providerName}` : ''}
          </span>
        )}
      </div>
      <span className="grow" />
      <button
        className="btn btn-primary"
        data-testid="use-offers"
        disabled={pool.length === 0 || isShort || props.problem !== null}
        onClick={props.onUse}
        title="Opens New run with these machines as the pool"
      >
        Use {count} as pool
      </button>
    </div>
  );
}
