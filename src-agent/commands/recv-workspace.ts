// `recv-workspace --dir D`: a tar on stdin becomes D/workspace, all or nothing. The next
// workspace is built in a staging folder beside it (workspace-receiver.ts), its manifest
// written beside the manifest, and then both are renamed into place. `--in-place` (for a
// workspace a job is running in) stages only what arrived and moves it into the live
// folder file by file instead (in-place.ts).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { commandError, printResult } from '../output';
import { nodePaths, type NodePaths } from '../paths';
import type { CommandError, RecvWorkspaceOutput } from '../protocol';
import { createTarReader } from '../tar/reader';
import { manifestDigest } from '../workspace-manifest';
import { applyInPlace } from './in-place';
import { commitNodeManifest, stageNodeManifest } from './node-manifest';
import { type ReceivedWorkspace, WorkspaceReceiver } from './workspace-receiver';

export async function runRecvWorkspace(
  dir: string,
  opts: { isInPlace?: boolean } = {},
): Promise<number> {
  const paths = nodePaths(dir);
  mkdirSync(paths.dir, { recursive: true });
  removeLeftovers(paths.dir);
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const staging = join(paths.dir, `.workspace-staging-${tag}`);
  // In place only into a workspace that exists: the first one is swapped in as usual.
  const isInPlace = opts.isInPlace === true && isFolder(paths.workspace);
  const receiver = new WorkspaceReceiver(paths, staging, isInPlace);
  let received: ReceivedWorkspace;
  let deleted: number;
  try {
    mkdirSync(staging);
    await pipeline(
      process.stdin,
      createTarReader((entry) => receiver.onEntry(entry)),
    );
    received = receiver.finish();
    if (isInPlace) {
      deleted = applyInPlace(paths, staging, received, tag);
      try {
        rmSync(staging, { recursive: true, force: true }); // only empty folders are left
      } catch {
        // Applied all the same; the next recv-workspace removes it.
      }
    } else {
      swapIn(paths, staging, received, tag);
      deleted = received.deleted;
    }
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    await printResult(describeFailure(err, paths.dir, staging));
    return 1;
  }
  const out: RecvWorkspaceOutput = {
    ...receiver.totals,
    mode: received.mode,
    kept: received.kept,
    deleted,
    manifest: manifestDigest(received.files, received.dirs),
  };
  await printResult(out);
  return 0;
}

/**
 * The new manifest is written first (a full disk fails here, before anything moved), then
 * the old workspace goes aside, staging comes in and the manifest is renamed over the old
 * one. A crash between those renames leaves a manifest whose recorded folder inode is not
 * D/workspace's, which readers ignore. If staging cannot come in, the old one goes back.
 */
function swapIn(paths: NodePaths, staging: string, ws: ReceivedWorkspace, tag: string): void {
  const manifest = stageNodeManifest(paths, staging, ws.files, ws.dirs, tag);
  const aside = join(paths.dir, `.workspace-old-${tag}`);
  let hasOld = true;
  try {
    try {
      renameSync(paths.workspace, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      hasOld = false;
    }
    try {
      renameSync(staging, paths.workspace);
    } catch (err) {
      if (hasOld) renameSync(aside, paths.workspace);
      throw err;
    }
  } catch (err) {
    rmSync(manifest, { force: true });
    throw err;
  }
  commitNodeManifest(paths, manifest);
  if (hasOld) removeInBackground(aside);
}

const LEFTOVER = /^(?:\.workspace-(?:staging|old)-|workspace\.manifest\.json\.tmp-)(\d+)-/;

/** Staging folders, old workspaces and manifests left by a recv-workspace that died. */
function removeLeftovers(dir: string): void {
  try {
    for (const name of readdirSync(dir)) {
      const pid = LEFTOVER.exec(name)?.[1];
      if (pid !== undefined && !isAlive(Number(pid))) {
        rmSync(join(dir, name), { recursive: true, force: true });
      }
    }
  } catch {
    // Best effort: an unreadable D fails the push itself, with a proper error, just after.
  }
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

type Failure = NodeJS.ErrnoException & { entryPath?: string; isPartial?: boolean };

/** `code`: the errno code for I/O errors, else the receiver's own; the message names the
 *  workspace path it happened to and, for a full disk, what is free and what to do. */
function describeFailure(err: unknown, dir: string, staging: string): CommandError {
  const e = err as Failure;
  const code = e.code ?? (e.entryPath !== undefined ? 'bad_entry' : 'bad_tar');
  let message = e.message;
  if (e.syscall !== undefined && e.entryPath !== undefined) {
    message = `${e.message} (while writing ${e.entryPath} of the new workspace)`;
  }
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    const free = freeBytes(dir);
    message +=
      `; ${free === undefined ? 'unknown space' : `${free} bytes`} free under ${dir} once the ` +
      'partial copy was removed. Free space on the node, or leave large files out with ' +
      '[job.workspace] exclude';
  }
  if (e.isPartial === true) {
    message +=
      '; the workspace was partly updated in place (each file is either its old or its new ' +
      'version) and the next push is a full one';
  }
  return commandError(code, message, e.path ?? e.entryPath ?? staging);
}

function freeBytes(dir: string): number | undefined {
  // fs.statfsSync exists from Node 18.15.
  const statfs = (fs as { statfsSync?: (p: string) => { bavail: number; bsize: number } })
    .statfsSync;
  try {
    const s = statfs?.(dir);
    return s && s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

/** The old workspace is already out of the way: delete it after answering, in a detached
 *  `rm`, so the app does not wait for thousands of unlinks. A crash leaves the folder to
 *  `removeLeftovers` of the next push. */
function removeInBackground(dir: string): void {
  try {
    spawn('rm', ['-rf', '--', dir], { detached: true, stdio: 'ignore' }).unref();
  } catch {
    rmSync(dir, { recursive: true, force: true });
  }
}
