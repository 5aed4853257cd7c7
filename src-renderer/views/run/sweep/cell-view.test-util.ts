import type { CellView } from '../../../../src-main/contract';

/** A cell of run `r-1` for tests: `j<index>`, queued unless told otherwise. */
export function cellView(index: number, patch: Partial<CellView> = {}): CellView {
  return {
    runId: 'r-1',
    id: `j${index}`,
    index,
    values: {},
    status: 'queued',
    node: null,
    tries: 0,
    exitCode: null,
    reason: null,
    startedAt: null,
    endedAt: null,
    seq: null,
    cacheHit: null,
    outputsDir: `/home/runs/r-1/jobs/j${index}/outputs`,
    ...patch,
  };
}
