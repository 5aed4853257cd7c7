import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ErrorData } from '../../src-main/contract';
import { call, errorData } from '../api/backend';
import { keys } from '../api/queries';
import { toast } from '../components/toasts';
import { useUi } from '../store/ui';
import { draftProblems, draftToStartInput } from './composer/draft-to-run';
import { EnvCard } from './composer/EnvCard';
import { JobCard } from './composer/JobCard';
import { LimitsCard } from './composer/LimitsCard';
import { isMarketPool, poolProviderOf } from './composer/market-pool';
import { PoolCard } from './composer/PoolCard';
import { RunCard } from './composer/RunCard';
import { useCheapestMatch } from './composer/use-cheapest-match';
import { useRunPlan } from './composer/use-run-plan';
import { WorkspaceCard } from './composer/WorkspaceCard';
import './composer/composer.css';

/** Compose a run: the workspace, the job, its environment, and where it runs. A dropped or
 *  found tender.toml fills it; Run maps it to run.start exactly and opens the run. */
export function ComposerView(): React.JSX.Element {
  const draft = useUi((s) => s.draft);
  const resetDraft = useUi((s) => s.resetDraft);
  const openRun = useUi((s) => s.openRun);
  const qc = useQueryClient();
  const [showProblems, setShowProblems] = useState(false);
  const [error, setError] = useState<ErrorData | null>(null);
  const problems = draftProblems(draft);
  const shown = showProblems ? problems : {};
  const needsCheapest = isMarketPool(draft.provider) && draft.count > draft.offers.length;
  const cheapest = useCheapestMatch(poolProviderOf(draft), draft.offerFilter, needsCheapest);
  const plan = useRunPlan(draft);

  const start = useMutation({
    mutationFn: async () => ({
      run: await call('run.start', draftToStartInput(useUi.getState().draft)),
    }),
    onSuccess: ({ run }) => {
      setError(null);
      qc.setQueryData(keys.run(run.id), run);
      void qc.invalidateQueries({ queryKey: keys.status });
      toast(`Started ${run.jobName} (${run.id})`);
      openRun(run.id);
    },
    onError: (err) => setError(errorData(err)),
  });

  const run = () => {
    setShowProblems(true);
    setError(null);
    if (Object.keys(problems).length > 0) return;
    start.mutate();
  };

  return (
    <div className="page composer" data-testid="composer">
      <div className="composer-grid">
        <div className="composer-main">
          <div className="page-head">
            <div>
              <h1>New run</h1>
              <div className="sub">
                {draft.source ? (
                  <>
                    From <span className="mono">{draft.source}</span>
                  </>
                ) : (
                  'Drop a project folder or its tender.toml, or fill the form.'
                )}
              </div>
            </div>
            <div className="actions">
              <button
                className="btn btn-ghost"
                onClick={() => {
                  resetDraft();
                  setError(null);
                  setShowProblems(false);
                }}
              >
                Clear form
              </button>
            </div>
          </div>
          <WorkspaceCard />
          <JobCard problems={shown} />
          <EnvCard envProblem={shown.env} paramsProblem={shown.params} />
        </div>
        <aside className="composer-side">
          <PoolCard problem={shown.pool} cheapest={cheapest} />
          <LimitsCard showProblems={showProblems} />
          <RunCard
            cheapest={cheapest}
            plan={plan}
            problemCount={Object.keys(shown).length}
            isStarting={start.isPending}
            error={error}
            onRun={run}
          />
        </aside>
      </div>
    </div>
  );
}
