import { homedir } from 'node:os';
import { join } from 'node:path';

/** The data folder: `TENDER_HOME`, else the folder Electron's userData would be for
 *  "Tender", so the CLI and the desktop app share one ledger. */
export function defaultHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TENDER_HOME) return env.TENDER_HOME;
  switch (process.platform) {
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', 'Tender');
    case 'win32':
      return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Tender');
    default:
      return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Tender');
  }
}

export function homePaths(home: string) {
  return {
    home,
    datastream: join(home, 'datastream'),
    runs: join(home, 'runs'),
    keys: join(home, 'keys'),
  };
}

/** A run's own folder: its nodes' and cells' outputs and receipts. */
export function runDir(home: string, runId: string): string {
  return join(home, 'runs', runId);
}

/** A sweep cell's outputs (its receipt beside them). */
export function cellOutputsDir(home: string, runId: string, cellId: string): string {
  return join(home, 'runs', runId, 'jobs', cellId, 'outputs');
}

export function nodeOutputsDir(home: string, runId: string, logicalId: string): string {
  return join(home, 'runs', runId, logicalId, 'outputs');
}
