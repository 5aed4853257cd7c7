import { useState } from 'react';
import type { NodeView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';

/** Appends a command to a live node's host setup (`tender node setup`): it runs after what
 *  is already queued there, its output goes to the node's log, and the result shows here. */
export function HostSetupField(props: { node: NodeView }): React.JSX.Element {
  const { node } = props;
  const [script, setScript] = useState('');
  const [isRunning, setRunning] = useState(false);
  const [result, setResult] = useState<{ text: string; isOk: boolean } | null>(null);

  async function append(): Promise<void> {
    setRunning(true);
    setResult(null);
    try {
      const r = await call('node.setup', { target: node.id, script: script.trim(), wait: true });
      const how =
        r.code === 0
          ? 'exited 0'
          : r.signal
            ? `was killed by ${r.signal}`
            : `exited with code ${r.code ?? 'unknown'}`;
      setResult({ text: `host_setup[${r.id}] ${how}`, isOk: r.code === 0 });
      if (r.code === 0) setScript('');
    } catch (err) {
      setResult({ text: describeError(err), isOk: false });
    } finally {
      setRunning(false);
    }
  }

  return (
    <form
      className="host-setup-field"
      data-testid="host-setup-field"
      onSubmit={(e) => {
        e.preventDefault();
        if (script.trim() && !isRunning) void append();
      }}
    >
      <input
        className="input mono"
        aria-label={`Host setup command for ${node.logicalId}`}
        placeholder="apt-get install -y ffmpeg"
        value={script}
        disabled={isRunning}
        onChange={(e) => setScript(e.target.value)}
      />
      <button
        type="submit"
        className="btn btn-sm"
        disabled={!script.trim() || isRunning}
        title="Runs on this node after its queued host setup; the next job's phases wait for it"
      >
        {isRunning ? 'Running…' : 'Append host setup'}
      </button>
      {result && (
        <span
          className={`host-setup-result ${result.isOk ? 'green' : 'red'}`}
          data-testid="host-setup-result"
          role="status"
        >
          {result.text}
        </span>
      )}
    </form>
  );
}
