import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef } from 'react';
import type { RunView } from '../../../../src-main/contract';
import { call } from '../../../api/backend';
import { keys } from '../../../api/queries';
import { isActive } from '../RunHeader';
import { NO_METRICS, pollMetrics, type HeldMetrics } from './metrics-poll';

/** How often a live run's metrics are polled. */
export const METRICS_POLL_MS = 1_000;

/**
 * A run's metrics, held in react-query and grown by incremental polls: every second while
 * the run is unfinished, each node read from the seq after the last one read; once more
 * when it ends (its last lines). `enabled` false: nothing is read (the tab is not shown);
 * what is held stays for when it is.
 */
export function useRunMetrics(run: RunView, enabled: boolean) {
  const qc = useQueryClient();
  const live = isActive(run);
  const nodeList = [...new Set(run.nodes.map((n) => n.logicalId))].join(' ');
  const nodes = useMemo(() => (nodeList ? nodeList.split(' ') : []), [nodeList]);
  const key = keys.metrics(run.id);
  const q = useQuery({
    queryKey: key,
    queryFn: () =>
      pollMetrics(qc.getQueryData<HeldMetrics>(key) ?? NO_METRICS, nodes, (nodeName, fromSeq) =>
        call('run.metrics', { runId: run.id, nodeName, fromSeq }),
      ),
    enabled,
    refetchInterval: live ? METRICS_POLL_MS : false,
    // Each answer builds on the one held: compare nothing deeply (a long series is big).
    structuralSharing: false,
    staleTime: live ? 0 : Infinity,
  });
  // The run has just ended: read its last lines once (now, or when the tab shows).
  const wasLive = useRef(live);
  useEffect(() => {
    if (wasLive.current && !live) void qc.invalidateQueries({ queryKey: keys.metrics(run.id) });
    wasLive.current = live;
  }, [live, qc, run.id]);
  return q;
}
