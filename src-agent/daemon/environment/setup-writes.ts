// A cached setup must leave what it builds in $TENDER_ENV (or TENDER_CACHE): the next job on
// the node starts from a clean slate of the pushed workspace (job/clean-slate.ts), so files
// setup wrote into the workspace (a dataset it downloaded, a file it generated) are gone
// when a later run skips setup. Such an environment is not marked ready: setup runs again
// next time (slow, never wrong), and the log names the files and the fix.
import type { NodePaths } from '../../wire/paths';
import { strayPaths } from '../job/clean-slate';

/** What building a package leaves in its source folder: no run needs it back. */
const BUILD_RESIDUE = [/(^|\/)__pycache__$/, /\.egg-info$/, /(^|\/)\.eggs$/, /^build$/];

/** Workspace paths setup wrote that a new job would not find (the top-most of each). */
export function setupWorkspaceWrites(paths: NodePaths): string[] {
  return strayPaths(paths).filter((p) => !BUILD_RESIDUE.some((re) => re.test(p)));
}

/** The log line for an environment left unready because setup wrote into the workspace. */
export function workspaceWritesNotice(key: string, writes: readonly string[]): string {
  const shown = writes.slice(0, 3).join(', ') + (writes.length > 3 ? `, … (${writes.length})` : '');
  return (
    `environment ${key} not kept: setup wrote ${shown} into the workspace, which a later run ` +
    `starts without; setup runs again next time. To have it skipped, write those under ` +
    `$TENDER_ENV or $TENDER_CACHE (or in run_setup, which runs every run), or set ` +
    `setup_cache = false to say it runs every time`
  );
}
