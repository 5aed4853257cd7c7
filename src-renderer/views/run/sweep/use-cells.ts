import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { CellView, RunView } from '../../../../src-main/contract';
import { call, describeError } from '../../../api/backend';
import { keys } from '../../../api/queries';
import { toast } from '../../../components/toasts';
import { isActive } from '../RunHeader';

/** A live sweep's cells are read again this often even when no event says they changed. */
const CELLS_POLL_MS = 3_000;

/** A sweep's cells (`run.cells`): read again whenever `run.changed` brings other counts
 *  or another status, and every few seconds while the run goes on. */
export function useCells(run: RunView) {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: keys.cells(run.id),
    queryFn: () => call('run.cells', { runId: run.id }),
    refetchInterval: isActive(run) ? CELLS_POLL_MS : false,
  });
  const counts = `${run.status} ${JSON.stringify(run.sweep)}`;
  const seen = useRef(counts);
  useEffect(() => {
    if (seen.current === counts) return;
    seen.current = counts;
    void qc.invalidateQueries({ queryKey: keys.cells(run.id) });
  }, [counts, qc, run.id]);
  return q;
}

/** `run.cancelCell`: the answer replaces the cell in the table at once. */
export function useCancelCell(runId: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (cellId: string) => call('run.cancelCell', { runId, cellId }),
    onSuccess: (cell) => {
      qc.setQueryData<CellView[]>(keys.cells(runId), (cells) =>
        cells?.map((c) => (c.id === cell.id ? cell : c)),
      );
      toast(
        cell.status === 'cancelled'
          ? `Cancelled ${cell.id}: it never starts`
          : `Stopping ${cell.id}: its node goes on to the next cell`,
      );
    },
    onError: (err) => toast(describeError(err), 'error'),
  });
}
