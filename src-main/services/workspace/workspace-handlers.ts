import type { Handlers } from '../../contract';
import { previewWorkspace } from '../../jobs/workspace/preview';
import { scanWorkspace } from '../../jobs/workspace/scan';
import { syncRunWorkspace, type RunSyncDeps } from './run-sync';

/** What a push would send, and live sync into running jobs. */
export function workspaceHandlers(
  d: RunSyncDeps,
): Pick<Handlers, 'workspace.preview' | 'workspace.sync'> {
  return {
    'workspace.preview': async ({ workdir, exclude }) => {
      const scan = await scanWorkspace(workdir, exclude);
      return { root: scan.root, ...previewWorkspace(scan) };
    },
    'workspace.sync': ({ runId }) => syncRunWorkspace(d, runId),
  };
}
