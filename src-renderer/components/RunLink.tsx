import { useUi } from '../store/ui';

/** A run id that opens that run (the run a warm node came from, or went to). */
export function RunLink({ runId }: { runId: string }): React.JSX.Element {
  const openRun = useUi((s) => s.openRun);
  return (
    <button
      type="button"
      className="run-link mono"
      title={`Open run ${runId}`}
      onClick={(e) => {
        // Inside a ledger row, a click elsewhere opens the row's details.
        e.stopPropagation();
        openRun(runId);
      }}
    >
      {runId}
    </button>
  );
}
