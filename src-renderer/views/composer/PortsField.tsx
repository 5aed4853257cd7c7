import { useUi } from '../../store/ui';
import { parsePortsField } from './job-ports';

/** Node ports reached from this machine while the job runs (`ports`, docs/forwards.md),
 *  checked as typed; a loaded file's reverse forwards (`remote_ports`) are named, carried,
 *  and can be left out. */
export function PortsField(): React.JSX.Element {
  const typed = useUi((s) => s.draft.ports);
  const remotePorts = useUi((s) => s.draft.remotePorts);
  const patch = useUi((s) => s.patchDraft);
  const { problem } = parsePortsField(typed);
  return (
    <div className="field">
      <label htmlFor="job-ports">
        Ports{' '}
        <span className="faint">
          (optional: node ports opened here while the job runs, e.g. 6006, 8888:18888)
        </span>
      </label>
      <input
        id="job-ports"
        className={`input mono ${problem ? 'invalid' : ''}`}
        data-testid="job-ports"
        spellCheck={false}
        placeholder="6006, 8888:18888"
        value={typed}
        onChange={(e) => patch({ ports: e.target.value })}
      />
      {problem ? (
        <div className="field-error" data-testid="ports-problem">
          {problem}
        </div>
      ) : (
        <span className="hint">
          NODE_PORT, or NODE_PORT:LOCAL_PORT; each listens on 127.0.0.1 only and shows as a link in
          the run view.
        </span>
      )}
      {remotePorts.length > 0 && (
        <div className="hint" data-testid="remote-ports">
          Plus the job file&apos;s reverse forward{remotePorts.length === 1 ? '' : 's'}{' '}
          <span className="mono">{remotePorts.join(', ')}</span> (the node reaching a service here).{' '}
          <button className="btn btn-sm btn-ghost" onClick={() => patch({ remotePorts: [] })}>
            Leave {remotePorts.length === 1 ? 'it' : 'them'} out
          </button>
        </div>
      )}
    </div>
  );
}
