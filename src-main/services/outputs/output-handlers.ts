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
      const logical = nodeName.includes('/') ? nodeName.slice(nodeName.indexOf('/') + 1) : nodeName;
      const dir = nodeOutputsDir(core.home, runId, logical);
      if (!existsSync(dir))
        throw new TenderError('not_found', `no outputs for ${logical} of ${runId} yet`);
      await (core.openPath ?? openWithSystem)(dir);
      return { path: dir };
    },
  };
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
