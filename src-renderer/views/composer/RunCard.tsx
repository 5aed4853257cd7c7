import type { ErrorData } from '../../../src-main/contract';
import { useClusters } from '../../api/queries';
import { perHour } from '../../lib/format';
import { useUi } from '../../store/ui';
import { PlayIcon } from '../run/icons';
import { estimatedHourly, nodeCount } from './draft-to-run';
import { isMarketPool } from './market-pool';
import { PlacementLine } from './PlacementLine';
import { notionalPerHour } from './slurm-pool';
import type { CheapestMatch } from './use-cheapest-match';
import type { PlanState } from './use-run-plan';

/** The summary beside the Run button: what it will cost, where it goes, what is missing,
 *  what went wrong. */
export function RunCard(props: {
  cheapest: CheapestMatch;
  plan: PlanState;
  problemCount: number;
  isStarting: boolean;
  error: ErrorData | null;
  onRun(): void;
}): React.JSX.Element {
  const draft = useUi((s) => s.draft);
  const nodes = nodeCount(draft);
  const price = props.cheapest.state === 'ready' ? props.cheapest.price : null;
  const estimate = estimatedHourly(draft, price);
  return (
    <section className="card composer-card run-card">
      <div className="card-body stack">
        <div className="estimate">
          <div className="label">Estimated cost</div>
          {isMarketPool(draft.provider) ? (
            estimate ? (
              <div className="estimate-value" data-testid="estimate">
                <span className="big tabular">
                  {estimate.isUpperBound ? 'up to ' : ''}
                  {perHour(estimate.perHour)}
                </span>
                <span className="faint">
                  {' '}
                  for {nodes} node{nodes === 1 ? '' : 's'}
                  {estimate.isBid ? ' at your bid, plus disk' : ''}, while they are up
                </span>
              </div>
            ) : (
              <div className="faint">{unknownWhy(props.cheapest)}</div>
            )
          ) : draft.provider === 'slurm' ? (
            <SlurmEstimate />
          ) : (
            <div className="estimate-value">
              <span className="big">Nothing bills</span>
              <span className="faint">
                {' '}
                {draft.provider === 'local' ? 'runs on this machine' : 'your own machines'}
              </span>
            </div>
          )}
        </div>
        <PlacementLine plan={props.plan} />
        {props.error && (
          <div className="alert run-error" role="alert" data-testid="run-error">
            <strong>Not started: </strong>
            {props.error.message}
            {props.error.hint && <div className="run-error-hint">{props.error.hint}</div>}
          </div>
        )}
        <button
          className="btn btn-primary run-button"
          data-testid="run-button"
          disabled={props.isStarting}
          onClick={props.onRun}
        >
          <PlayIcon />
          {props.isStarting
            ? 'Starting…'
            : `Run on ${nodes || 1} node${(nodes || 1) === 1 ? '' : 's'}`}
        </button>
        {props.problemCount > 0 && (
          <button className="problems-link" onClick={showFirstProblem}>
            {props.problemCount === 1 ? 'One field needs' : `${props.problemCount} fields need`} a
            fix: show
          </button>
        )}
      </div>
    </section>
  );
}

/** A cluster bills no one by the hour; one that declares a notional $/GPU-hour has its
 *  allocations counted at that in the cost report. */
function SlurmEstimate(): React.JSX.Element {
  const draft = useUi((s) => s.draft);
  const { data: clusters } = useClusters();
  const cluster = clusters?.find((c) => c.name === draft.slurm.cluster);
  const notional = notionalPerHour(draft.slurm, draft.count, cluster);
  return (
    <div className="estimate-value" data-testid="estimate-slurm">
      <span className="big">Nothing bills</span>
      <span className="faint">
        {' '}
        {cluster ? `allocations on ${cluster.name}` : 'allocations on your cluster'}
        {notional !== null &&
          (draft.slurm.gpus > 0
            ? `; counted at ${perHour(notional)} in the cost report (${perHour(cluster!.gpuHourUsd!)} per GPU)`
            : '; no GPUs asked, so nothing is counted')}
      </span>
    </div>
  );
}

/** Brings the first field marked in red into view. */
function showFirstProblem(): void {
  const el = document.querySelector('.composer .field-error');
  el?.scrollIntoView({ behavior: 'smooth', block: 'center' });
}

function unknownWhy(c: CheapestMatch): string {
  if (c.state === 'ready')
    return 'Unknown: no offer matches the shape now. Pick offers, or widen it.';
  if (c.state === 'error') return 'Unknown: offer prices could not be read.';
  if (c.state === 'loading') return 'Looking up prices…';
  return 'Unknown until offers are picked.';
}
