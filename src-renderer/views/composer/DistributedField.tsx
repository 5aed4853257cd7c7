import { useUi } from '../../store/ui';
import { distributedProblem, masterPortProblem, MIN_RANKS } from './distributed-rules';
import { nodeCount } from './draft-to-run';

/** A distributed job (docs/distributed.md): one rank per node, `run` started on all of them
 *  together once each reaches rank 0's master port; its stop rule and that port. Checked as
 *  it is set: too few nodes, a sweep beside it, a port that is none. */
export function DistributedField(): React.JSX.Element {
  const draft = useUi((s) => s.draft);
  const patch = useUi((s) => s.patchDraft);
  const nodes = nodeCount(draft);
  const hasRanks = nodes >= MIN_RANKS;
  const problem = distributedProblem(draft, nodes);
  const portProblem = draft.distributed ? masterPortProblem(draft.masterPort) : null;
  return (
    <div className="field distributed-field" data-testid="distributed-field">
      <label className="check">
        <input
          type="checkbox"
          data-testid="distributed"
          checked={draft.distributed}
          // Left on with too few nodes (the count went down), it can still be turned off.
          disabled={!hasRanks && !draft.distributed}
          onChange={(e) => patch({ distributed: e.target.checked })}
        />
        <span>
          Distributed{' '}
          <span className="faint">
            (one rank per node: run starts on all of them together, with TENDER_NODE_RANK,
            MASTER_ADDR and MASTER_PORT)
          </span>
        </span>
      </label>
      {!hasRanks && !draft.distributed && (
        <span className="hint" data-testid="distributed-hint">
          needs {MIN_RANKS} nodes or more
        </span>
      )}
      {draft.distributed && (
        <div className="distributed-options">
          <div className="field">
            <label htmlFor="distributed-stop">Stop</label>
            <select
              id="distributed-stop"
              className="select"
              data-testid="distributed-stop"
              value={draft.stop}
              onChange={(e) => patch({ stop: e.target.value === 'rank0' ? 'rank0' : 'all' })}
            >
              <option value="all">every rank</option>
              <option value="rank0">when rank 0 ends</option>
            </select>
            <span className="hint">
              {draft.stop === 'rank0'
                ? "The run ends with rank 0's outcome; the others are stopped then."
                : 'It succeeds when every rank exits 0; one failing stops the others.'}
            </span>
          </div>
          <div className="field">
            <label htmlFor="distributed-master-port">Master port</label>
            <input
              id="distributed-master-port"
              className={`input tabular master-port-input ${portProblem ? 'invalid' : ''}`}
              data-testid="distributed-master-port"
              inputMode="numeric"
              placeholder="29500"
              value={draft.masterPort}
              onChange={(e) => patch({ masterPort: e.target.value })}
            />
          </div>
        </div>
      )}
      {problem && (
        <div className="field-error" data-testid="distributed-problem">
          {problem}
        </div>
      )}
    </div>
  );
}
