import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDuration, type RunView } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { keys } from '../../api/queries';
import { CostChart } from '../../components/CostChart';
import { Dialog } from '../../components/Dialog';
import { JobBadge } from '../../components/StageBadge';
import { toast } from '../../components/toasts';
import { clockTime, duration, money, perHour } from '../../lib/format';
import { useNow } from '../../lib/use-now';
import { RunEditors } from '../ssh/RunEditors';
import { PlayIcon, StopIcon } from './icons';
import { canRerun } from './rerun';
import { RerunError, useRerun } from './Rerun';

export function isActive(run: RunView): boolean {
  return run.status === 'pending' || run.status === 'running';
}

/** The run at a glance: what, where, since when, what it costs, and the way to stop it. */
export function RunHeader({ run, asOf }: { run: RunView; asOf: number }): React.JSX.Element {
  const now = useNow(1000);
  const qc = useQueryClient();
  const [isConfirming, setIsConfirming] = useState(false);
  const patch = (next: RunView) => qc.setQueryData(keys.run(next.id), next);
  const cancel = useMutation({
    mutationFn: () => call('run.cancel', { runId: run.id }),
    onSuccess: (next) => {
      patch(next);
      setIsConfirming(false);
      toast(`Cancelling ${run.jobName}: outputs are collected, then the nodes torn down`);
    },
    onError: (err) => toast(describeError(err), 'error'),
  });
  const attach = useMutation({
    mutationFn: () => call('run.attach', { runId: run.id }),
    onSuccess: patch,
    onError: (err) => toast(describeError(err), 'error'),
  });
  const rerun = useRerun(run);
  const { cost, policy } = run;
  // The view was computed at `asOf`; what bills keeps billing between updates.
  const accrued = cost.accruedUsd + (cost.burnUsdPerHour * Math.max(0, now - asOf)) / 3_600_000;
  const bills = run.provider !== 'local' && run.provider !== 'ssh';
  const ended = run.endedAt ?? (isActive(run) ? now : run.createdAt);

  return (
    <div className="run-head card" data-testid="run-header">
      <div className="run-title">
        <h1>{run.jobName}</h1>
        <JobBadge status={run.status} />
        {run.detached && isActive(run) && <span className="badge amber">detached</span>}
        <span className="mono faint" data-testid="run-id">
          {run.id}
        </span>
        <div className="grow" />
        {run.detached && isActive(run) && (
          <button
            className="btn"
            disabled={attach.isPending}
            title="Drive this run from here again: follow its logs and finish its lifecycle"
            onClick={() => attach.mutate()}
          >
            Reattach
          </button>
        )}
        {canRerun(run) && (
          <button
            className="btn"
            data-testid="rerun"
            disabled={rerun.isPending}
            title="The same job and pool again, on a warm node when one has the same host key"
            onClick={rerun.start}
          >
            <PlayIcon /> {rerun.isPending ? 'Starting…' : 'Rerun'}
          </button>
        )}
        {isActive(run) && (
          <button
            className="btn btn-danger"
            data-testid="cancel-run"
            disabled={cancel.isPending}
            onClick={() => setIsConfirming(true)}
          >
            <StopIcon /> Cancel run
          </button>
        )}
      </div>
      <dl className="run-facts">
        <Fact label="Provider">
          {run.provider} · {run.count} node{run.count === 1 ? '' : 's'}
        </Fact>
        <Fact label="Started">
          <span className="tabular">
            {new Date(run.createdAt).toLocaleDateString('en-CA')} {clockTime(run.createdAt)}
          </span>
        </Fact>
        {run.origin && (
          <Fact label="Started by">
            <span className="mono" data-testid="run-origin">
              {run.origin}
            </span>
          </Fact>
        )}
        <Fact label={run.endedAt ? 'Took' : 'Running for'}>
          <span className="tabular">{elapsed(ended - run.createdAt)}</span>
        </Fact>
        {(bills || accrued > 0) && (
          <Fact label="Cost">
            <span className="tabular" data-testid="run-cost">
              {money(accrued)}
              {cost.burnUsdPerHour > 0 && (
                <span className="faint"> · {perHour(cost.burnUsdPerHour)} now</span>
              )}
            </span>
          </Fact>
        )}
        {cost.budgetUsd !== null && (
          <Fact label="Budget">
            <span className={`tabular ${cost.budgetWarning ? 'budget-warn' : ''}`}>
              {Math.round((cost.budgetFraction ?? 0) * 100)}% of {money(cost.budgetUsd)}
            </span>
            <span className="budget-bar" aria-hidden="true">
              <span
                className={cost.budgetWarning ? 'warn' : ''}
                style={{ width: `${Math.min(100, (cost.budgetFraction ?? 0) * 100)}%` }}
              />
            </span>
          </Fact>
        )}
        {policy && (
          <Fact label="Limits">
            <span className="dim">{limitsText(policy)}</span>
          </Fact>
        )}
      </dl>
      <RunEditors run={run} />
      <RerunError rerun={rerun} />
      {cost.budgetWarning && isActive(run) && (
        <div className="alert warn run-budget-warning" role="status" data-testid="budget-warning">
          This run has spent {Math.round((cost.budgetFraction ?? 0) * 100)}% of its{' '}
          {money(cost.budgetUsd)} budget. It is torn down when the budget is reached (outputs are
          collected first when it is already collecting).
        </div>
      )}
      {(bills || accrued > 0) && (
        <CostChart runId={run.id} live={isActive(run)} burnUsdPerHour={cost.burnUsdPerHour} />
      )}
      {run.failedReason && (
        <div className="alert run-failed" role="alert">
          <strong>
            {run.status === 'failed' ? 'Failed: ' : run.status === 'cancelled' ? 'Cancelled: ' : ''}
          </strong>
          {run.failedReason}
        </div>
      )}
      {isConfirming && (
        <Dialog
          title={`Cancel ${run.jobName}?`}
          busy={cancel.isPending}
          onClose={() => setIsConfirming(false)}
          actions={
            <>
              <button className="btn" onClick={() => setIsConfirming(false)}>
                Keep running
              </button>
              <button
                className="btn btn-danger"
                data-testid="confirm-cancel"
                disabled={cancel.isPending}
                onClick={() => cancel.mutate()}
              >
                {cancel.isPending ? 'Cancelling…' : 'Cancel the run'}
              </button>
            </>
          }
        >
          The job gets SIGTERM (then SIGKILL after the grace period), outputs are collected as far
          as they exist, and every node is torn down. The run ends as failed, “cancelled”.
        </Dialog>
      )}
    </div>
  );
}

/** Under ten seconds with a tenth: a run that took 0.8 s did not take "0 s". */
function elapsed(ms: number): string {
  return ms < 10_000 ? `${(Math.max(0, ms) / 1000).toFixed(1)} s` : duration(ms);
}

/** "max 24h · idle 30m · destroy after the job" */
function limitsText(p: NonNullable<RunView['policy']>): string {
  return [
    p.maxDurationMs ? `max ${formatDuration(p.maxDurationMs)}` : 'no max duration',
    p.idleTimeoutMs ? `idle ${formatDuration(p.idleTimeoutMs)}` : null,
    p.gpuIdle
      ? `GPUs idle: ${p.gpuIdle.then} after ${formatDuration(p.gpuIdle.forMs)} under ${p.gpuIdle.belowPct}%`
      : null,
    p.afterJob === 'keep_warm' ? 'kept warm after the job' : 'destroyed after the job',
  ]
    .filter(Boolean)
    .join(' · ');
}

function Fact({
  label,
  children,
}: {
  label: string;
  children: React.ReactNode;
}): React.JSX.Element {
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}
