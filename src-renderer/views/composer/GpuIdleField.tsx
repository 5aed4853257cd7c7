import { useUi } from '../../store/ui';
import { GPU_IDLE_DEFAULT_BELOW, GPU_IDLE_DEFAULT_FOR, limitsToGpuIdle } from './draft-gpu-idle';

const ACTIONS = [
  ['', 'Off'],
  ['notify', 'Notify'],
  ['stop', 'Stop the job'],
  ['teardown', 'Tear down the node'],
] as const;

/** `[policy] gpu_idle` in the composer: what the node does when the job leaves every GPU
 *  below a utilisation for a while (docs/money-safety.md, "GPU idle rule"). */
export function GpuIdleField(props: { showProblems: boolean }): React.JSX.Element {
  const limits = useUi((s) => s.draft.limits);
  const patch = useUi((s) => s.patchDraft);
  const { problems } = limitsToGpuIdle(limits);
  const then = limits.gpuIdleThen ?? '';
  const bad = (key: keyof typeof problems) =>
    props.showProblems && problems[key] ? 'invalid' : '';
  const problem = problems.gpuIdleBelow ?? problems.gpuIdleFor;
  return (
    <div className="field" data-testid="gpu-idle-field">
      <label htmlFor="gpu-idle-then">GPU idle rule</label>
      <select
        id="gpu-idle-then"
        className="select"
        data-testid="gpu-idle-then"
        value={then}
        onChange={(e) =>
          patch({ limits: { ...limits, gpuIdleThen: e.target.value as typeof then } })
        }
      >
        {ACTIONS.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      {then !== '' && (
        <div className="row gpu-idle-row">
          <span className="faint">every GPU under</span>
          <input
            className={`input gpu-idle-input ${bad('gpuIdleBelow')}`}
            data-testid="gpu-idle-below"
            aria-label="GPU idle threshold (percent)"
            placeholder={`${GPU_IDLE_DEFAULT_BELOW}`}
            value={limits.gpuIdleBelow ?? ''}
            onChange={(e) => patch({ limits: { ...limits, gpuIdleBelow: e.target.value } })}
          />
          <span className="faint">% for</span>
          <input
            className={`input gpu-idle-input ${bad('gpuIdleFor')}`}
            data-testid="gpu-idle-for"
            aria-label="GPU idle window"
            placeholder={GPU_IDLE_DEFAULT_FOR}
            value={limits.gpuIdleFor ?? ''}
            onChange={(e) => patch({ limits: { ...limits, gpuIdleFor: e.target.value } })}
          />
        </div>
      )}
      {problem && then !== '' ? (
        <span className="field-error">{problem}</span>
      ) : (
        <span className="hint">
          Judged by each node while its job runs, whether or not Tender is connected
        </span>
      )}
    </div>
  );
}
