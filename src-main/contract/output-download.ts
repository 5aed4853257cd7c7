// Web mode's download of a run's output file (runtime-free: the renderer builds the address,
// api/output-download.ts answers it). The session token travels in the Authorization header.

export const OUTPUT_DOWNLOAD_PATH = '/outputs/file';

/** The address of one output file: a node's (`nodeName`) or a sweep cell's (`cellId`). */
export function outputDownloadUrl(q: {
  runId: string;
  nodeName?: string;
  cellId?: string;
  path: string;
}): string {
  const params = new URLSearchParams({ run: q.runId });
  if (q.cellId !== undefined) params.set('cell', q.cellId);
  else if (q.nodeName !== undefined) params.set('node', q.nodeName);
  params.set('path', q.path);
  return `${OUTPUT_DOWNLOAD_PATH}?${params.toString()}`;
}
