import { useState } from 'react';
import { call, describeError } from '../../api/backend';
import { Dialog } from '../../components/Dialog';
import { toast } from '../../components/toasts';
import { perHour } from '../../lib/format';
import { shortLeaseId } from '../../shell/teardown-progress';
import type { NodeRow } from './ledger-model';

/** Confirms destroying one node, naming it and what it bills. */
export function DestroyNodeDialog(props: {
  row: NodeRow;
  runName: string;
  onClose: () => void;
}): React.JSX.Element {
  const { node, lease } = props.row;
  const [isBusy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const name = node.logicalId;
  const destroy = async () => {
    setBusy(true);
    setError(null);
    try {
      await call('node.destroy', { nodeId: node.id });
      toast(`Destroying ${name}: the ledger shows when ${node.provider} confirms it gone`);
      props.onClose();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };
  return (
    <Dialog
      title={`Destroy ${name}?`}
      onClose={props.onClose}
      busy={isBusy}
      testId="destroy-node-dialog"
      actions={
        <>
          <button className="btn" onClick={props.onClose} disabled={isBusy}>
            Cancel
          </button>
          <button
            className="btn btn-danger"
            data-testid="destroy-node-confirm"
            onClick={() => void destroy()}
            disabled={isBusy}
          >
            {isBusy ? 'Destroying…' : `Destroy ${name}`}
          </button>
        </>
      }
    >
      <dl className="lg-confirm-facts">
        <dt>Node</dt>
        <dd>
          <strong>{name}</strong> of <span className="mono">{node.runId}</span> ({props.runName})
        </dd>
        <dt>Lease</dt>
        <dd>
          {node.provider}{' '}
          <span className="mono">{shortLeaseId(lease?.leaseId ?? null, node.provider)}</span>
        </dd>
        <dt>Bills</dt>
        <dd className="lg-amber">
          {lease?.pricePerHour != null ? perHour(lease.pricePerHour) : 'nothing known (no price)'}
        </dd>
      </dl>
      <p>
        Its job stops now and outputs not yet collected are lost. Tender destroys the lease and
        checks with {node.provider} that it is gone.
      </p>
      {error && (
        <div className="alert" role="alert">
          {error}
        </div>
      )}
    </Dialog>
  );
}
