import { formatDuration } from '../../../src-main/contract';
import { useSettings } from '../../api/queries';
import { useUi, type DraftLimits } from '../../store/ui';
import { limitsToPolicy } from './draft-limits';
import { GpuIdleField } from './GpuIdleField';
import { isMarketPool } from './market-pool';

/** The run's lease limits: what stops a machine billing even if nobody is watching. Empty
 *  fields take the defaults from Settings, shown as placeholders. */
export function LimitsCard(props: { showProblems: boolean }): React.JSX.Element {
  const limits = useUi((s) => s.draft.limits);
  const keep = useUi((s) => s.draft.keep);
  const provider = useUi((s) => s.draft.provider);
  const patch = useUi((s) => s.patchDraft);
  const { data: settings } = useSettings();
  const d = settings?.defaults;
  const { problems } = limitsToPolicy(limits);
  const set = (key: keyof DraftLimits, value: string) =>
    patch({ limits: { ...limits, [key]: value } });
  const hours = (h: number | undefined) => (h ? formatDuration(h * 3_600_000) : 'none');
  const minutes = (m: number | undefined) => (m ? formatDuration(m * 60_000) : 'none');

  type TextKey = 'budgetUsd' | 'maxDuration' | 'idleTimeout' | 'unreachableGrace';
  const field = (key: TextKey, label: string, placeholder: string, hint: string) => (
    <div className="field">
      <label htmlFor={`limit-${key}`}>{label}</label>
      <input
        id={`limit-${key}`}
        className={`input ${props.showProblems && problems[key] ? 'invalid' : ''}`}
        data-testid={`limit-${key}`}
        placeholder={placeholder}
        value={limits[key]}
        onChange={(e) => set(key, e.target.value)}
      />
      {problems[key] && limits[key].trim() ? (
        <span className="field-error">{problems[key]}</span>
      ) : (
        <span className="hint">{hint}</span>
      )}
    </div>
  );

  return (
    <section className="card composer-card">
      <div className="card-head">
        Limits
        <span className="faint card-sub">
          {isMarketPool(provider) ? 'what stops the billing' : 'when nodes are torn down'}
        </span>
      </div>
      <div className="card-body stack">
        <div className="shape-grid">
          {field('budgetUsd', 'Budget ($, whole run)', 'none', 'Torn down at this spend')}
          {field(
            'maxDuration',
            'Max duration',
            d ? `${hours(d.maxDurationH)} (Settings)` : '',
            'Per node, from its rental',
          )}
          {field(
            'idleTimeout',
            'Idle timeout',
            d ? `${minutes(d.idleTimeoutMin)} (Settings)` : '',
            'No job, nobody on it',
          )}
          {field(
            'unreachableGrace',
            'Unreachable grace',
            d ? `${minutes(d.unreachableGraceMin)} (Settings)` : '',
            'Then a node destroys itself',
          )}
        </div>
        <GpuIdleField showProblems={props.showProblems} />
        <label className="check">
          <input
            type="checkbox"
            checked={keep}
            data-testid="keep-nodes"
            onChange={(e) => patch({ keep: e.target.checked })}
          />
          <span>
            Keep nodes after the job
            <span className="hint block">
              {keep
                ? `They stay up${isMarketPool(provider) ? ' and billed' : ''} until the idle timeout, or until you destroy them in the Ledger.`
                : 'Otherwise they are destroyed once the outputs are back.'}
            </span>
          </span>
        </label>
      </div>
    </section>
  );
}
