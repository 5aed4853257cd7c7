import { useUi } from '../../store/ui';
import { nodeCount } from './draft-to-run';
import { parseSweepAxes, sweepHint } from './sweep-axes';
import { estimateText } from './sweep-estimate';
import { useRunPlan } from './use-run-plan';

/** A sweep: one axis a line (`[sweep]` of a job file); each cell of the grid is one job
 *  with its own TENDER_PARAM_<NAME>s, queued over the pool's nodes. Checked as it is typed. */
export function SweepField(): React.JSX.Element {
  const draft = useUi((s) => s.draft);
  const patch = useUi((s) => s.patchDraft);
  const { axes, problems } = parseSweepAxes(draft.sweep);
  const nodes = Math.max(1, nodeCount(draft));
  const hint = sweepHint(axes, draft.sweepCells.length, nodes);
  const isSweep = Object.keys(axes).length > 0 || draft.sweepCells.length > 0;
  // The same query as the placement line's (react-query asks once): its sweep estimate.
  const plan = useRunPlan(draft);
  const estimate = plan.state === 'ready' && isSweep ? estimateText(plan.plan.sweep) : null;
  return (
    <div className="field">
      <label htmlFor="job-sweep">
        Sweep{' '}
        <span className="faint">
          (optional, one axis per line: each combination is a cell, run as its own job)
        </span>
      </label>
      <textarea
        id="job-sweep"
        className={`textarea ${problems.length > 0 || hint?.problem ? 'invalid' : ''}`}
        data-testid="sweep-axes"
        rows={2}
        spellCheck={false}
        placeholder={'LR = 1e-4, 3e-4\nSEED = 1, 2, 3'}
        value={draft.sweep}
        onChange={(e) => patch({ sweep: e.target.value })}
      />
      {problems.map((p) => (
        <div className="field-error" key={p.line} data-testid="sweep-problem">
          Line {p.line}: {p.message}
        </div>
      ))}
      {draft.sweepCells.length > 0 && (
        <div className="hint" data-testid="sweep-cells">
          Plus {draft.sweepCells.length} cell{draft.sweepCells.length === 1 ? '' : 's'} listed in
          the job file ({draft.sweepCells.map(cellText).join('; ')}).{' '}
          <button className="btn btn-sm btn-ghost" onClick={() => patch({ sweepCells: [] })}>
            Leave them out
          </button>
        </div>
      )}
      {hint && (
        <div className={hint.problem ? 'field-error' : 'hint'} data-testid="sweep-hint">
          {hint.text}. A cell reads its values as TENDER_PARAM_NAME (over the parameters above).
        </div>
      )}
      {estimate && !hint?.problem && (
        <div className="hint" data-testid="sweep-estimate">
          Expected: {estimate}.
        </div>
      )}
      {(isSweep || draft.cache) && (
        <label className="check">
          <input
            type="checkbox"
            data-testid="sweep-cache"
            checked={draft.cache}
            onChange={(e) => patch({ cache: e.target.checked })}
          />{' '}
          Reuse a completed cell&apos;s outputs when everything it ran from is the same
        </label>
      )}
    </div>
  );
}

function cellText(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ');
}
