import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { nodeNameOf, type Handlers, type OutputFile } from '../../contract';
import { cellOutputsDir, nodeOutputsDir } from '../../base/paths';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import { outputsDirOf, walkFiles } from './output-files';

export interface OutputDeps {
  home: string;
  ledger: Pick<Ledger, 'getRun' | 'nodesOfRun' | 'listCells'>;
  /** The desktop shell opens folders itself; elsewhere the system's opener is used. */
  openPath?: (path: string) => Promise<void>;
}

/** The outputs a run brought back, as files on this machine: each node's, and each sweep
 *  cell's (`runs/<run>/jobs/<cell>/outputs`, named by `cellId`). */
export function outputHandlers(core: OutputDeps): Pick<Handlers, 'outputs.list' | 'outputs.open'> {
  return {
    'outputs.list': async ({ runId }) => {
      const run = core.ledger.getRun(runId);
      if (!run) throw new TenderError('not_found', `no run ${runId}`);
      const files: OutputFile[] = [];
      for (const n of core.ledger.nodesOfRun(runId)) {
        const dir = nodeOutputsDir(core.home, runId, n.logicalId);
        for (const f of walkFiles(dir)) files.push({ nodeId: n.id, path: f.path, size: f.size });
      }
      for (const c of core.ledger.listCells(runId)) {
        const dir = cellOutputsDir(core.home, runId, c.id);
        for (const f of walkFiles(dir))
          files.push({ nodeId: c.nodeId ?? '', cellId: c.id, path: f.path, size: f.size });
      }
      return files;
    },
    'outputs.open': async ({ runId, nodeName, cellId }) => {
      // Only a folder of a run and node (or cell) the ledger knows is opened: the names come
      // from the client and become a path handed to the system's opener.
      const of = cellId !== undefined ? { cellId } : { nodeName };
      const dir = outputsDirOf(core.home, core.ledger, runId, of);
      if (!existsSync(dir))
        throw new TenderError(
          'not_found',
          `no outputs for ${cellId ?? nodeNameOf(nodeName)} of ${runId} yet`,
          'they arrive when its job ends (`tender logs` shows how far it is)',
        );
      await (core.openPath ?? openWithSystem)(dir);
      return { path: dir };
    },
  };
}

function openWithSystem(path: string): Promise<void> {
  const cmd =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, [path], { detached: true, stdio: 'ignore' });
    child.once('error', () =>
      reject(
        new TenderError(
          'conflict',
          `could not open ${path}: no ${cmd} here`,
          'open the folder yourself',
        ),
      ),
    );
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}
