import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RunView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { keys } from '../../api/queries';
import { toast } from '../../components/toasts';
import { logicalOf } from '../../lib/format';
import { forwardText } from './forward-text';
import { readOpenPort } from './port-input';
import { nodeName } from './ranks';

/** "Open a port…": a node, its port, and optionally the local port (`forward.open`). The
 *  list shows the new forward when `forward.changed` says so. */
export function OpenForwardForm(props: {
  run: RunView;
  isDistributed: boolean;
  onClose(): void;
}): React.JSX.Element {
  const { run, isDistributed } = props;
  const qc = useQueryClient();
  const [nodeId, setNodeId] = useState(run.nodes[0]?.id ?? '');
  const [nodePort, setNodePort] = useState('');
  const [localPort, setLocalPort] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const open = useMutation({
    mutationFn: (input: { remotePort: number; localPort: number | undefined }) =>
      call('forward.open', {
        runId: run.id,
        nodeName: logicalOf(nodeId),
        remotePort: input.remotePort,
        ...(input.localPort !== undefined ? { localPort: input.localPort } : {}),
      }),
    onSuccess: (f) => {
      void qc.invalidateQueries({ queryKey: keys.forwards(run.id) });
      toast(`Forwarding ${forwardText(f)}`);
      props.onClose();
    },
    onError: (err) => setProblem(describeError(err)),
  });
  return (
    <form
      className="forward-form"
      data-testid="forward-form"
      onSubmit={(e) => {
        e.preventDefault();
        const read = readOpenPort(nodePort, localPort);
        if (!read.ok) return setProblem(read.problem);
        setProblem(null);
        open.mutate(read);
      }}
    >
      <select
        className="select"
        aria-label="Node"
        data-testid="forward-node"
        value={nodeId}
        onChange={(e) => setNodeId(e.target.value)}
      >
        {run.nodes.map((n) => (
          <option key={n.id} value={n.id}>
            {nodeName(n, isDistributed)}
          </option>
        ))}
      </select>
      <input
        className="input tabular forward-port"
        aria-label="Node port"
        data-testid="forward-node-port"
        inputMode="numeric"
        placeholder="node port"
        autoFocus
        value={nodePort}
        onChange={(e) => setNodePort(e.target.value)}
      />
      <span className="faint">→ localhost:</span>
      <input
        className="input tabular forward-port"
        aria-label="Local port (optional)"
        data-testid="forward-local-port"
        inputMode="numeric"
        placeholder="same"
        title="Empty: the same port, or a free one when it is taken here; 0: a free one"
        value={localPort}
        onChange={(e) => setLocalPort(e.target.value)}
      />
      <button
        type="submit"
        className="btn btn-sm btn-primary"
        data-testid="forward-open"
        disabled={open.isPending}
      >
        {open.isPending ? 'Opening…' : 'Open'}
      </button>
      <button type="button" className="btn btn-sm btn-ghost" onClick={props.onClose}>
        Cancel
      </button>
      {problem && (
        <span className="field-error forward-problem" role="alert" data-testid="forward-problem">
          {problem}
        </span>
      )}
    </form>
  );
}
