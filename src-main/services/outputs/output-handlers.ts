import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Handlers, OutputFile } from '../../contract';
import { nodeOutputsDir } from '../../base/paths';
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';

export interface OutputDeps {
  home: string;
  ledger: Pick<Ledger, 'getRun' | 'nodesOfRun'>;
  /** The desktop shell opens folders itself; elsewhere the system's opener is used. */
  openPath?: (path: string) => Promise<void>;
}

/** The outputs a run brought back, as files on this machine. */
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
      return files;
    },
    'outputs.open': async ({ runId, nodeName }) => {
      // Only a folder of a run and node the ledger knows is opened: the names come from the
      // client and become a path handed to the system's opener.
      const logical = knownNode(core.ledger, runId, nodeName);
      const dir = nodeOutputsDir(core.home, runId, logical);
      if (!existsSync(dir))
        throw new TenderError(
          'not_found',
          `no outputs for ${logical} of ${runId} yet`,
          'they arrive when its job ends (`tender logs` shows how far it is)',
        );
      await (core.openPath ?? openWithSystem)(dir);
      return { path: dir };
    },
  };
}

/** The logical name (`node-0`) of a node of the run, given as `node-0` or its key
 *  `r-…/node-0`; an unknown run or node is an error naming what exists. */
function knownNode(ledger: OutputDeps['ledger'], runId: string, nodeName: string): string {
  if (!ledger.getRun(runId))
    throw new TenderError('not_found', `no run ${runId}`, '`tender status` lists the runs');
  const slash = nodeName.lastIndexOf('/');
  const logical = slash < 0 ? nodeName : nodeName.slice(slash + 1);
  const names = [...new Set(ledger.nodesOfRun(runId).map((n) => n.logicalId))];
  if ((slash >= 0 && nodeName.slice(0, slash) !== runId) || !names.includes(logical))
    throw new TenderError(
      'not_found',
      `run ${runId} has no node ${nodeName}`,
      names.length > 0 ? `its nodes: ${names.join(', ')}` : 'it has no nodes yet',
    );
  return logical;
}

function walkFiles(root: string, rel = ''): { path: string; size: number }[] {
  const dir = join(root, rel);
  if (!existsSync(dir)) return [];
  const out: { path: string; size: number }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...walkFiles(root, p));
    else if (e.isFile()) out.push({ path: p, size: statSync(join(root, p)).size });
  }
  return out;
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
