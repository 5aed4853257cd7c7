import { useState } from 'react';
import { createPortal } from 'react-dom';
import type { LeaseView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { Dialog } from '../../components/Dialog';
import { toast } from '../../components/toasts';
import { perHour } from '../../lib/format';
import { parseBid, suggestedBid } from './bid-model';

/** The "Raise bid" button of an outbid lease, and its dialog (a portal: the button sits in a
 *  table row, where a dialog may not). The provider refuses a bid above on-demand or below
 *  the minimum; its words are shown as they come. */
export function RaiseBidButton({ lease }: { lease: LeaseView }): React.JSX.Element {
  const [isOpen, setOpen] = useState(false);
  return (
    <>
      <button
        className="btn btn-sm"
        data-testid="lease-raise-bid"
        onClick={() => setOpen(true)}
        title="Outbid: raise the bid so the machine runs this lease again"
      >
        Raise bid
      </button>
      {isOpen &&
        createPortal(
          <RaiseBidDialog lease={lease} onClose={() => setOpen(false)} />,
          document.body,
        )}
    </>
  );
}

function RaiseBidDialog(props: { lease: LeaseView; onClose: () => void }): React.JSX.Element {
  const { lease } = props;
  const [text, setText] = useState(() => suggestedBid(lease));
  const [isBusy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = lease.leaseId ?? lease.label;
  const raise = async () => {
    const parsed = parseBid(text);
    if ('error' in parsed) return setError(parsed.error);
    setBusy(true);
    setError(null);
    try {
      const after = await call('lease.bid', { leaseId: id, bid: parsed.bid });
      toast(
        after.interruption
          ? `Bid on ${id} is ${perHour(parsed.bid)}; the ledger shows when it runs again`
          : `Bid on ${id} is ${perHour(parsed.bid)}; it runs again`,
      );
      props.onClose();
    } catch (err) {
      setError(describeError(err));
      setBusy(false);
    }
  };
  return (
    <Dialog
      title={`Raise the bid of ${id}?`}
      onClose={props.onClose}
      busy={isBusy}
      testId="raise-bid-dialog"
      actions={
        <>
          <button className="btn" onClick={props.onClose} disabled={isBusy}>
            Cancel
          </button>
          <button
            className="btn btn-primary"
            data-testid="raise-bid-confirm"
            onClick={() => void raise()}
            disabled={isBusy}
          >
            {isBusy ? 'Raising…' : 'Raise bid'}
          </button>
        </>
      }
    >
      <dl className="lg-confirm-facts">
        <dt>Bid now</dt>
        <dd>{perHour(lease.bid)}</dd>
        <dt>Minimum</dt>
        <dd className="lg-amber">{perHour(lease.minBid)}</dd>
      </dl>
      <div className="field">
        <label htmlFor="raise-bid">New bid, $/h for the machine (storage not included)</label>
        <input
          id="raise-bid"
          className="input mono"
          inputMode="decimal"
          value={text}
          onChange={(e) => setText(e.target.value)}
          data-testid="raise-bid-input"
          autoFocus
        />
      </div>
      <p className="dim">
        It is stopped with its disk kept until its bid wins again. A bid above the on-demand price
        is refused: renting on-demand would cost less.
      </p>
      {error && (
        <div className="alert" role="alert">
          {error}
        </div>
      )}
    </Dialog>
  );
}
