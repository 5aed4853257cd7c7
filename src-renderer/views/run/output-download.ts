import { outputDownloadUrl } from '../../../src-main/contract/output-download';
import { backend } from '../../api/backend';
import { WsTenderApi } from '../../transport/ws-client';

/** Downloads are web mode's: the browser may be on another machine than the files. */
export function canDownloadOutputs(): boolean {
  return backend() instanceof WsTenderApi;
}

/** Fetches one output file from `tender serve` (the token in a header) and hands it to the
 *  browser as a download named like the file. */
export async function downloadOutput(q: {
  runId: string;
  nodeName: string;
  cellId: string | null;
  path: string;
}): Promise<void> {
  const api = backend();
  if (!(api instanceof WsTenderApi)) throw new Error('downloads are for web mode');
  const url = outputDownloadUrl({
    runId: q.runId,
    path: q.path,
    ...(q.cellId !== null ? { cellId: q.cellId } : { nodeName: q.nodeName }),
  });
  const res = await api.fetchWithToken(url);
  if (!res.ok) throw new Error(`could not download ${q.path}: ${(await res.text()) || res.status}`);
  const blob = await res.blob();
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = q.path.slice(q.path.lastIndexOf('/') + 1);
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 60_000);
}
