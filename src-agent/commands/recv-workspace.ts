// `recv-workspace --dir D`: a tar on stdin becomes D/workspace, all or nothing. Entries go
// to a staging folder beside it, which then replaces the old workspace by rename.
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { commandError, printResult } from '../output';
import { nodePaths } from '../paths';
import type { RecvWorkspaceOutput } from '../protocol';
import { createTarReader } from '../tar/reader';
import { TarExtractor } from './tar-extractor';

export async function runRecvWorkspace(dir: string): Promise<number> {
  const paths = nodePaths(dir);
  mkdirSync(paths.dir, { recursive: true });
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const staging = join(paths.dir, `.workspace-staging-${tag}`);
  const extractor = new TarExtractor(staging);
  try {
    mkdirSync(staging);
    await pipeline(
      process.stdin,
      createTarReader((entry) => extractor.extract(entry)),
    );
    extractor.finishDirectories();
    swapIn(staging, paths.workspace, join(paths.dir, `.workspace-old-${tag}`));
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    const e = err as NodeJS.ErrnoException & { entryPath?: string };
    const code = e.code ?? (e.entryPath !== undefined ? 'bad_entry' : 'bad_tar');
    await printResult(commandError(code, e.message, e.path ?? e.entryPath ?? staging));
    return 1;
  }
  const out: RecvWorkspaceOutput = extractor.totals();
  await printResult(out);
  return 0;
}

/** Old workspace aside, staging in, old removed; if the second rename fails the old one
 *  goes back, so D/workspace is never missing for longer than two renames. */
function swapIn(staging: string, workspace: string, aside: string): void {
  let hasOld = true;
  try {
    renameSync(workspace, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    hasOld = false;
  }
  try {
    renameSync(staging, workspace);
  } catch (err) {
    if (hasOld) renameSync(aside, workspace);
    throw err;
  }
  if (hasOld) rmSync(aside, { recursive: true, force: true });
}
