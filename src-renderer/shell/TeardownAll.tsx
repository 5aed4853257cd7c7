import { useQueryClient } from '@tanstack/react-query';
import { keys, useStatus } from '../api/queries';
import { isLive } from '../lib/billing';
import { PowerIcon, Spinner } from './icons';
import { ConfirmDialog, ProgressDialog } from './TeardownDialog';
import { teardownTargets } from './teardown-progress';
import { useTeardown } from './teardown-store';
import './teardown.css';

/** The top bar's emergency stop: destroys every live lease and every orphan, and shows each
 *  one until its provider confirms it gone. Quiet while nothing bills. */
export function TeardownAll(): React.JSX.Element {
  const { data, isError } = useStatus();
  const phase = useTeardown((s) => s.phase);
  const isOpen = useTeardown((s) => s.isOpen);
  const open = useTeardown((s) => s.open);
  const live = data?.leases.filter(isLive).length ?? 0;
  const orphans = data?.orphans.length ?? 0;
  // Without the ledger's view nobody can say nothing bills: the button stays armed.
  const isBilling = live + orphans > 0 || (isError && !data);

  let button: React.JSX.Element;
  if (phase === 'running' || (phase === 'done' && !isOpen)) {
    button = (
      <button className="btn btn-danger btn-sm td-btn" data-testid="teardown-all" onClick={open}>
        <Spinner />
        Tearing down…
      </button>
    );
  } else if (isBilling) {
    button = (
      <button
        className="btn btn-danger btn-sm td-btn"
        data-testid="teardown-all"
        onClick={open}
        title="Destroy every live lease and every orphan, and wait until each is confirmed gone"
      >
        <PowerIcon />
        Tear down all
        {live + orphans > 0 && <span className="td-count">{live + orphans}</span>}
      </button>
    );
  } else {
    button = (
      <button
        className="btn btn-ghost btn-sm td-btn td-quiet"
        data-testid="teardown-all"
        disabled
        title="Nothing bills: no live lease and no orphan"
      >
        <PowerIcon />
        Tear down all
      </button>
    );
  }
  return (
    <>
      {button}
      {isOpen && <TeardownDialog />}
    </>
  );
}

function TeardownDialog(): React.JSX.Element {
  const qc = useQueryClient();
  const { data, isError } = useStatus();
  const { phase, targets, report, error, close, start, startedAt, endedAt } = useTeardown();
  if (phase === 'confirm' || phase === 'idle') {
    const now = data ? teardownTargets(data) : [];
    return (
      <ConfirmDialog
        targets={now}
        isLoading={!data && !isError}
        isUnknown={!data && isError}
        onCancel={close}
        onConfirm={() =>
          void start(now, () => void qc.invalidateQueries({ queryKey: keys.status }))
        }
      />
    );
  }
  return (
    <ProgressDialog
      targets={targets}
      leases={data?.leases ?? []}
      report={report}
      error={error}
      isRunning={phase === 'running'}
      startedAt={startedAt}
      endedAt={endedAt}
      onClose={close}
    />
  );
}
