import { useSettings } from '../../api/queries';
import { configuredMarkets } from '../../lib/marketplaces';
import { useNow } from '../../lib/use-now';
import { useUi } from '../../store/ui';
import { poolProviderOf } from './market-pool';
import { placementSummary } from './placement';
import type { PlanState } from './use-run-plan';

/** Where the run goes, beside the Run button: the warm nodes it would claim or that it
 *  rents, why warm nodes were passed over, and the box to rent anyway. */
export function PlacementLine({ plan }: { plan: PlanState }): React.JSX.Element | null {
  const now = useNow(10_000);
  const newNode = useUi((s) => s.draft.newNode);
  const freshSetup = useUi((s) => s.draft.freshSetup);
  const provider = useUi((s) => poolProviderOf(s.draft));
  const settings = useSettings();
  const patch = useUi((s) => s.patchDraft);
  if (plan.state === 'idle') return null;
  if (plan.state === 'loading')
    return <div className="placement faint">Looking for warm nodes…</div>;
  if (plan.state === 'error') {
    // Input the contract refuses is shown by Run, with the field to fix; a conflict (an own
    // host kept warm for another declaration) blocks the run whatever is typed.
    if (plan.error.code === 'bad_input' || plan.error.code === 'bad_request') return null;
    return (
      <div className="alert placement-error" role="alert" data-testid="placement-error">
        {plan.error.message}
        {plan.error.hint && <div className="run-error-hint">{plan.error.hint}</div>}
      </div>
    );
  }
  const s = placementSummary(plan.plan, {
    now,
    useNew: newNode,
    freshSetup,
    provider,
    configured: configuredMarkets(settings.data),
  });
  return (
    <div
      className={`placement ${plan.isStale ? 'is-stale' : ''}`}
      data-testid="placement"
      data-warm={s.warmCount}
    >
      <div className={s.warmCount > 0 && !newNode ? 'placement-warm' : 'placement-new'}>
        {s.headline}
      </div>
      {s.route && (
        <div className="placement-route" data-testid="placement-route">
          {s.route}
        </div>
      )}
      {s.nodes.length > 0 && (
        <ul className="placement-nodes">
          {s.nodes.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      {s.passedOver.map((why) => (
        <div key={why} className="placement-why" data-testid="placement-passed-over">
          {why}
        </div>
      ))}
      {s.warmCount > 0 && (
        <label className="check placement-check">
          <input
            type="checkbox"
            data-testid="new-node"
            checked={newNode}
            onChange={(e) => patch({ newNode: e.target.checked })}
          />
          <span>
            Use a new node
            <span className="hint block">
              Rent afresh; warm nodes stay up for another run until their idle timeout.
            </span>
          </span>
        </label>
      )}
    </div>
  );
}
