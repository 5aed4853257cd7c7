import { useEffect, useMemo, useState } from 'react';
import { call, describeError } from '../api/backend';
import { useRun, useStatus } from '../api/queries';
import { useUi } from '../store/ui';
import type { RunView } from '../../src-main/contract';
import { ForwardsCard } from './run/ForwardsCard';
import { PlayIcon, PlusIcon } from './run/icons';
import { LogRouter } from './run/log-router';
import { NodePane } from './run/NodePane';
import { MetricsPanel } from './run/metrics/MetricsPanel';
import { useRunMetrics } from './run/metrics/use-run-metrics';
import { OutputsCard } from './run/OutputsCard';
import { rankOf } from './run/ranks';
import { RunHeader } from './run/RunHeader';
import { RunList } from './run/RunList';
import { SweepPanel } from './run/sweep/SweepPanel';
import './run/run.css';

/** Runs on the left; the chosen one on the right: header, forwards, then tabs (a sweep's
 *  cells, the metrics, one log pane per node — by rank in a distributed run), outputs. */
export function RunPage(): React.JSX.Element {
  const runId = useUi((s) => s.runId);
  const openRun = useUi((s) => s.openRun);
  const setView = useUi((s) => s.setView);
  const { data: status, error } = useStatus();
  const runs = useMemo(
    () => [...(status?.runs ?? [])].sort((a, b) => b.createdAt - a.createdAt),
    [status?.runs],
  );

  if (!status) {
    return (
      <div className="page" data-testid="run-view">
        <div className="empty">{error ? describeError(error) : 'Loading runs…'}</div>
      </div>
    );
  }
  if (runs.length === 0) {
    return (
      <div className="page" data-testid="run-view">
        <div className="empty run-empty">
          <strong>No runs yet</strong>
          Compose a job, pick where it runs, and its logs stream here.
          <div>
            <button className="btn btn-primary" onClick={() => setView('composer')}>
              <PlusIcon /> New run
            </button>
          </div>
        </div>
      </div>
    );
  }
  return (
    <div className="run-layout" data-testid="run-view">
      <RunList runs={runs} selected={runId} onSelect={openRun} />
      <div className="run-main">
        {runId ? (
          <RunDetail key={runId} runId={runId} />
        ) : (
          <div className="empty run-empty">
            <strong>Pick a run</strong>
            Its logs, one pane per node, and its outputs show here.
            <div className="run-picks">
              {pickable(runs).map((r) => (
                <button key={r.id} className="btn" onClick={() => openRun(r.id)}>
                  <PlayIcon /> {r.jobName}
                  <span className="faint">
                    {r.status} · {r.count} node{r.count === 1 ? '' : 's'}
                  </span>
                </button>
              ))}
            </div>
          </div>
        )}
      </div>
    </div>
  );
}

function RunDetail({ runId }: { runId: string }): React.JSX.Element {
  const { data: run, error, dataUpdatedAt } = useRun(runId);
  const [router, setRouter] = useState<LogRouter | null>(null);
  useEffect(() => {
    const r = new LogRouter();
    setRouter(r);
    return () => r.close();
  }, [runId]);
  // A detached run's agent holds what nobody was attached to receive: fetched once as the
  // run opens, it reaches the panes as log.lines, as live records do.
  const isDetached = run?.detached === true;
  useEffect(() => {
    if (isDetached) call('logs.backfill', { runId }).catch(() => {}); // panes show what is stored
  }, [runId, isDetached]);

  if (error) return <div className="alert">{describeError(error)}</div>;
  if (!run || !router) return <div className="empty">Loading {runId}…</div>;
  return <RunBody run={run} router={router} asOf={dataUpdatedAt} />;
}

type Tab = 'cells' | 'metrics' | 'logs';

/** A run's tabs: a sweep opens on its cells, any other run on its logs. The log panes and
 *  the cells stay mounted behind another tab (the feeds keep up, the picks stay); metrics
 *  are read only while a tab that shows them is open. */
function RunBody(props: { run: RunView; router: LogRouter; asOf: number }): React.JSX.Element {
  const { run, router } = props;
  const [picked, setTab] = useState<Tab | null>(null);
  const tab: Tab =
    picked === 'cells' && !run.sweep ? 'logs' : (picked ?? (run.sweep ? 'cells' : 'logs'));
  const metrics = useRunMetrics(run, tab !== 'logs');
  const isDistributed = run.distributed;
  // The tab a run opens on comes first.
  const logs = {
    id: 'logs' as const,
    label: run.nodes.length === 1 ? 'Log' : `Logs (${run.nodes.length})`,
  };
  const metricsTab = { id: 'metrics' as const, label: 'Metrics' };
  const tabs: { id: Tab; label: string }[] = run.sweep
    ? [{ id: 'cells', label: `Cells (${run.sweep.total})` }, metricsTab, logs]
    : [logs, metricsTab];
  return (
    <div className="run-detail">
      <RunHeader run={run} asOf={props.asOf} />
      <ForwardsCard run={run} isDistributed={isDistributed} />
      <div className="run-tabs" role="tablist" aria-label="Run">
        {tabs.map((t) => (
          <button
            key={t.id}
            role="tab"
            className="run-tab"
            aria-selected={tab === t.id}
            data-testid={`run-tab-${t.id}`}
            onClick={() => setTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      {run.sweep && (
        // Kept behind the other tabs: the metric, sort and colour picked stay as they were.
        <div hidden={tab !== 'cells'}>
          <SweepPanel run={run} counts={run.sweep} metrics={metrics.data} />
        </div>
      )}
      {tab === 'metrics' && <MetricsPanel metrics={metrics.data} error={metrics.error} />}
      <div className={`node-panes n${Math.min(run.nodes.length, 2)}`} hidden={tab !== 'logs'}>
        {run.nodes.map((n) => (
          <NodePane
            key={n.id}
            runId={run.id}
            node={n}
            router={router}
            rank={isDistributed ? rankOf(n) : null}
            {...(run.policy?.gpuIdle ? { gpuIdle: run.policy.gpuIdle } : {})}
          />
        ))}
      </div>
      <OutputsCard run={run} />
    </div>
  );
}

/** The runs worth a button when none is open: those still running, else the newest. */
function pickable(runs: RunView[]): RunView[] {
  const active = runs.filter((r) => r.status === 'pending' || r.status === 'running');
  return (active.length > 0 ? active : runs).slice(0, 3);
}
