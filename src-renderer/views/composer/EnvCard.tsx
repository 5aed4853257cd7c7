import type { EnvRow, ParamRow } from '../../store/ui';
import { useUi } from '../../store/ui';
import { CloseIcon, LockIcon, PlusIcon } from '../run/icons';
import { paramVariable } from './env-rules';
import { SweepField } from './SweepField';

/** Environment variables (plain or secret), task parameters (TENDER_PARAM_<KEY>) and a
 *  sweep over them. */
export function EnvCard(props: { envProblem?: string; paramsProblem?: string }): React.JSX.Element {
  const env = useUi((s) => s.draft.env);
  const params = useUi((s) => s.draft.params);
  const patch = useUi((s) => s.patchDraft);
  const setEnv = (i: number, row: Partial<EnvRow>) =>
    patch({ env: env.map((r, j) => (j === i ? { ...r, ...row } : r)) });
  const setParam = (i: number, row: Partial<ParamRow>) =>
    patch({ params: params.map((r, j) => (j === i ? { ...r, ...row } : r)) });

  return (
    <section className="card composer-card">
      <div className="card-head">
        Environment
        <span className="faint card-sub">what the job reads on the node</span>
      </div>
      <div className="card-body stack">
        <div className="field">
          <div className="label">Variables</div>
          {env.length === 0 && (
            <div className="hint">
              None. Secrets (API tokens) go here, not in the workspace: they travel to the node over
              the agent link only and are never stored or shown.
            </div>
          )}
          {env.map((row, i) => (
            <div className="kv-row" key={i} data-testid="env-row">
              <input
                className="input mono kv-key"
                aria-label="Variable name"
                placeholder="NAME"
                value={row.key}
                onChange={(e) => setEnv(i, { key: e.target.value })}
              />
              {row.fromEnv ? (
                <div
                  className="from-env"
                  title="Read when the run starts, where Tender runs; never shown here"
                >
                  <LockIcon /> from <span className="mono">${row.fromEnv}</span>
                  <span className="faint">(value never shown)</span>
                </div>
              ) : (
                <input
                  className="input mono kv-value"
                  aria-label={`Value of ${row.key || 'the variable'}`}
                  type={row.secret ? 'password' : 'text'}
                  autoComplete="off"
                  placeholder={row.secret ? 'secret value' : 'value'}
                  value={row.value}
                  onChange={(e) => setEnv(i, { value: e.target.value })}
                />
              )}
              <label
                className={`secret-toggle ${row.secret ? 'on' : ''}`}
                title="A secret is masked, never stored in the ledger or printed"
              >
                <input
                  type="checkbox"
                  checked={row.secret}
                  disabled={row.fromEnv !== undefined}
                  onChange={(e) => setEnv(i, { secret: e.target.checked })}
                />
                <LockIcon /> Secret
              </label>
              <button
                className="icon-btn"
                title="Remove"
                aria-label={`Remove ${row.key || 'variable'}`}
                onClick={() => patch({ env: env.filter((_, j) => j !== i) })}
              >
                <CloseIcon />
              </button>
            </div>
          ))}
          {props.envProblem && <div className="field-error">{props.envProblem}</div>}
          <div>
            <button
              className="btn btn-sm"
              onClick={() => patch({ env: [...env, { key: '', value: '', secret: false }] })}
            >
              <PlusIcon /> Variable
            </button>
          </div>
        </div>
        <div className="field">
          <div className="label">Parameters</div>
          {params.length === 0 && (
            <div className="hint">None. A parameter KEY reaches the job as TENDER_PARAM_KEY.</div>
          )}
          {params.map((row, i) => (
            <div className="kv-row" key={i} data-testid="param-row">
              <input
                className="input mono kv-key"
                aria-label="Parameter name"
                placeholder="STEPS"
                value={row.key}
                onChange={(e) => setParam(i, { key: e.target.value })}
              />
              <input
                className="input mono kv-value"
                aria-label={`Value of ${row.key || 'the parameter'}`}
                placeholder="value"
                value={row.value}
                onChange={(e) => setParam(i, { value: e.target.value })}
              />
              <span className="kv-as mono faint">
                {row.key.trim() ? paramVariable(row.key.trim()) : ''}
              </span>
              <button
                className="icon-btn"
                title="Remove"
                aria-label={`Remove ${row.key || 'parameter'}`}
                onClick={() => patch({ params: params.filter((_, j) => j !== i) })}
              >
                <CloseIcon />
              </button>
            </div>
          ))}
          {props.paramsProblem && <div className="field-error">{props.paramsProblem}</div>}
          <div>
            <button
              className="btn btn-sm"
              onClick={() => patch({ params: [...params, { key: '', value: '' }] })}
            >
              <PlusIcon /> Parameter
            </button>
          </div>
        </div>
        <SweepField />
      </div>
    </section>
  );
}
