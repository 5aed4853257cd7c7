import { useEffect } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type {
  LeaseView,
  NodeView,
  OfferFilterInput,
  RunView,
  StatusView,
} from '../../src-main/contract';
import { call, subscribe } from './backend';
import { keepGpu } from './keep-gpu';
import { mergeLease } from './lease-merge';

/** Warm facts (which leases are warm, which runs a lease served, what `run.plan` says) are
 *  read, not pushed: re-read them shortly after a run starts or changes status, once for a
 *  burst of events. */
const WARM_REFRESH_MS = 300;

/** Query keys: one place, so event handlers and views agree. */
export const keys = {
  status: ['status'] as const,
  runs: ['runs'] as const,
  run: (runId: string) => ['run', runId] as const,
  settings: ['settings'] as const,
  hosts: ['hosts'] as const,
  clusters: ['clusters'] as const,
  /** The offers table: the marketplaces ticked (`configured`: every one with a key). */
  offers: (providers: readonly string[] | 'configured', filter: OfferFilterInput) =>
    ['offers', providers, filter] as const,
  outputs: (runId: string) => ['outputs', runId] as const,
  /** A run's port forwards in the process serving this UI (replaced by `forward.changed`). */
  forwards: (runId: string) => ['forward.list', runId] as const,
  /** A run's metrics as the Metrics tab holds them (grown by incremental polls). */
  metrics: (runId: string) => ['run.metrics', runId] as const,
  /** A sweep's cells, and one cell's log. */
  cells: (runId: string) => ['run.cells', runId] as const,
  cellLog: (runId: string, jobId: string) => ['cell-log', runId, jobId] as const,
  /** Every `run.plan` answer (the composer's placement line), by its input. */
  plans: ['run-plan'] as const,
  plan: (input: string) => ['run-plan', input] as const,
};

/** The ledger: runs, leases, orphans. Live events patch it; a slow poll catches orphans
 *  (which only a provider call finds). */
export function useStatus() {
  return useQuery({
    queryKey: keys.status,
    queryFn: () => call('status.get', {}),
    refetchInterval: 30_000,
  });
}

export function useRun(runId: string | null) {
  const qc = useQueryClient();
  return useQuery({
    queryKey: keys.run(runId ?? ''),
    queryFn: async () =>
      keepGpu(qc.getQueryData<RunView>(keys.run(runId!)), await call('run.get', { runId: runId! })),
    enabled: runId !== null,
  });
}

export function useSettings() {
  return useQuery({ queryKey: keys.settings, queryFn: () => call('settings.get', {}) });
}

export function useHosts() {
  return useQuery({ queryKey: keys.hosts, queryFn: () => call('hosts.list', {}) });
}

/** Slurm clusters (clusters.toml), for Settings and the composer's Slurm pool. */
export function useClusters() {
  return useQuery({ queryKey: keys.clusters, queryFn: () => call('clusters.list', {}) });
}

export function useOutputs(runId: string | null, enabled = true) {
  return useQuery({
    queryKey: keys.outputs(runId ?? ''),
    queryFn: () => call('outputs.list', { runId: runId! }),
    enabled: runId !== null && enabled,
  });
}

/** A run's port forwards (docs/forwards.md): listed once, then kept by `forward.changed`. */
export function useForwards(runId: string, enabled = true) {
  return useQuery({
    queryKey: keys.forwards(runId),
    queryFn: () => call('forward.list', { runId }),
    enabled,
  });
}

/** Patches server state in the react-query cache from live events (no second copy of it). */
export function applyEvents(qc: QueryClient): () => void {
  let refresh: ReturnType<typeof setTimeout> | null = null;
  const refreshWarm = () => {
    refresh ??= setTimeout(() => {
      refresh = null;
      void qc.invalidateQueries({ queryKey: keys.status });
      void qc.invalidateQueries({ queryKey: keys.plans });
    }, WARM_REFRESH_MS);
  };
  const patchRun = (run: RunView) => {
    qc.setQueryData<RunView>(keys.run(run.id), (prev) => keepGpu(prev, run));
    qc.setQueryData<StatusView>(keys.status, (s) =>
      s
        ? {
            ...s,
            runs: upsert(
              s.runs,
              keepGpu(
                s.runs.find((r) => r.id === run.id),
                run,
              ),
              (r) => r.id === run.id,
              true,
            ),
          }
        : s,
    );
  };
  const patchNode = (node: NodeView) => {
    // A node left idle after its job, or handed to a later run, changes what is warm.
    const run =
      qc.getQueryData<RunView>(keys.run(node.runId)) ??
      qc.getQueryData<StatusView>(keys.status)?.runs.find((r) => r.id === node.runId);
    const before = run?.nodes.find((n) => n.id === node.id);
    const isIdleNow = node.stage === 'dormant' && node.jobPhase === 'done';
    const wasIdle = before?.stage === 'dormant' && before.jobPhase === 'done';
    if ((isIdleNow && !wasIdle) || (node.stage === 'released' && before?.stage !== 'released'))
      refreshWarm();
    const withNode = (r: RunView): RunView =>
      r.id !== node.runId
        ? r
        : { ...r, nodes: upsert(r.nodes, node, (n) => n.id === node.id, false) };
    qc.setQueryData<RunView>(keys.run(node.runId), (r) => (r ? withNode(r) : r));
    qc.setQueryData<StatusView>(keys.status, (s) => (s ? { ...s, runs: s.runs.map(withNode) } : s));
  };
  const patchLease = (lease: LeaseView) => {
    qc.setQueryData<StatusView>(keys.status, (s) => {
      if (!s) return s;
      const prev = s.leases.find((l) => l.label === lease.label);
      const next = mergeLease(prev, lease);
      return { ...s, leases: upsert(s.leases, next, (l) => l.label === lease.label, true) };
    });
  };
  const offs = [
    subscribe('run.changed', (run) => {
      // A run that starts may claim a warm node; one that ends may leave one.
      const before = qc.getQueryData<StatusView>(keys.status)?.runs.find((r) => r.id === run.id);
      if (before?.status !== run.status) refreshWarm();
      patchRun(run);
      if (run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled') {
        void qc.invalidateQueries({ queryKey: keys.outputs(run.id) });
        // Its forwards closed at teardown (forward.changed says so; this catches a miss).
        void qc.invalidateQueries({ queryKey: keys.forwards(run.id) });
      }
    }),
    subscribe('node.changed', patchNode),
    subscribe('lease.changed', patchLease),
    // Every forward of the run, each time: the list as it now is.
    subscribe('forward.changed', ({ runId, forwards }) =>
      qc.setQueryData(keys.forwards(runId), forwards),
    ),
  ];
  return () => {
    offs.forEach((off) => off());
    if (refresh) clearTimeout(refresh);
  };
}

export function useLiveEvents(): void {
  const qc = useQueryClient();
  useEffect(() => applyEvents(qc), [qc]);
}

function upsert<T>(list: T[], item: T, same: (x: T) => boolean, prepend: boolean): T[] {
  const i = list.findIndex(same);
  if (i === -1) return prepend ? [item, ...list] : [...list, item];
  const next = list.slice();
  next[i] = item;
  return next;
}
