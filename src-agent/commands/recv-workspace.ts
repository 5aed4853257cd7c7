// `recv-workspace --dir D`: a tar on stdin becomes D/workspace, all or nothing. A full
// archive is built in a staging folder beside it (workspace-receiver.ts), its manifest
// written beside the manifest, and then both are renamed into place. A delta stages only
// the files that arrived and applies itself where the workspace stands, behind a redo
// journal (delta-apply.ts). `--in-place` (for a workspace a job is running in) moves what
// arrived into the live folder file by file and keeps what the job made (in-place.ts).
// `--unless-manifest` (a full push offered to a node that is probably fresh) declines when
// D holds a workspace it can vouch for: it prints that workspace's manifest, reads nothing
// and changes nothing, so the app's first push costs one exec, not a manifest request and
// then the push. With `TENDER_PUSH_ENCODING=sb1` in its environment (a session's `recv`:
// `encoding`) the stream is compressed (src-agent/wire/push-encoding.ts) and decoded on the
// way in (push-decoder.ts).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline as streamPipeline, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { commandError, printResult } from '../output';
import { PUSH_ENCODING_ENV } from '../wire/push-encoding';
import { nodePaths, type NodePaths } from '../wire/paths';
import {
  type CommandError,
  type RecvDeclinedOutput,
  type RecvWorkspaceOutput,
  SEALED_TREE,
} from '../wire/protocol';
import { createTarReader } from '../wire/tar/reader';
import { manifestDigest, type ManifestFiles, toManifest } from '../wire/workspace-manifest';
import { applyDelta, finishPendingApply, journalFile, type PreparedWorkspace } from './delta-apply';
import { applyInPlace } from './in-place';
import {
  commitNodeManifest,
  lstatOrNull,
  readNodeManifest,
  type Signature,
  stageNodeManifest,
} from './node-manifest';
import { createPushDecoder, unknownEncoding } from './push-decoder';
import { receiveSealed, type SealedWorkspace } from './sealed-receive';
import { type ReceivedWorkspace, WorkspaceReceiver } from './workspace-receiver';

export async function runRecvWorkspace(
  dir: string,
  opts: { isInPlace?: boolean; isSealed?: boolean; isUnlessManifest?: boolean } = {},
): Promise<number> {
  // The stream stays our fd 0 until something must read it here: a sealed push hands the
  // descriptor itself to tar, so no byte of it passes through this process (unless it is
  // compressed: then it passes through the decoder on its way to tar).
  const encoding = process.env[PUSH_ENCODING_ENV];
  const result = await receiveWorkspace(nodePaths(dir), STDIN, { ...opts, encoding });
  await printResult(result);
  return 'error' in result ? 1 : 0;
}

/** Receives one tar stream from `input` into D/workspace (see the top of this file); the
 *  answer is what `recv-workspace` prints. `serve-workspace` calls it once per request. */
export async function receiveWorkspace(
  paths: NodePaths,
  source: PushInput,
  opts: {
    isInPlace?: boolean;
    isSealed?: boolean;
    isUnlessManifest?: boolean;
    prepared?: PreparedWorkspace;
    /** How the app encoded the stream (`sb1`), if it did. */
    encoding?: string;
  } = {},
): Promise<RecvWorkspaceOutput | RecvDeclinedOutput | CommandError> {
  const input = (): Readable => readableOf(source);
  const refused = unknownEncoding(opts.encoding);
  if (refused !== null) {
    input().resume();
    return commandError('bad_encoding', refused);
  }
  const isEncoded = opts.encoding !== undefined && opts.encoding !== '';
  mkdirSync(paths.dir, { recursive: true });
  try {
    finishPendingApply(paths); // before removeLeftovers: it needs its staging folder
  } catch (err) {
    input().resume();
    return describeFailure(err, paths.dir, paths.workspace);
  }
  removeLeftovers(paths.dir);
  if (opts.isUnlessManifest === true) {
    const current = readNodeManifest(paths);
    if (current) {
      return { declined: 'has_workspace', manifest: toManifest(current.files, current.dirs) };
    }
  }
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const staging = join(paths.dir, `.workspace-staging-${tag}`);
  // In place only into a workspace that exists: the first one is swapped in as usual.
  const isInPlace = opts.isInPlace === true && lstatOrNull(paths.workspace)?.isDirectory() === true;
  // A job may run in an in-place workspace: only what is checked now counts there.
  const prepared = isInPlace ? undefined : opts.prepared;
  if (opts.isSealed === true && !isInPlace) {
    return receiveSealedPush(paths, isEncoded ? decoded(input()) : source, staging, tag);
  }
  const receiver = new WorkspaceReceiver(paths, staging, prepared?.manifest);
  let received: ReceivedWorkspace;
  let deleted: number;
  try {
    mkdirSync(staging);
    const reader = createTarReader((entry) => receiver.onEntry(entry));
    await (isEncoded ? pipeline(input(), createPushDecoder(), reader) : pipeline(input(), reader));
    received = receiver.finish();
    if (isInPlace) {
      deleted = applyInPlace(paths, staging, received, tag);
      try {
        rmSync(staging, { recursive: true, force: true }); // only empty folders are left
      } catch {
        // Applied all the same; the next recv-workspace removes it.
      }
    } else if (received.mode === 'delta') {
      deleted = applyDelta(paths, staging, received, tag, prepared?.listing);
    } else {
      swapIn(paths, staging, received.files, received.dirs, tag);
      deleted = received.deleted;
    }
  } catch (err) {
    // A committed delta still needs what it staged: the next command finishes it.
    const isCommitted = existsSync(journalFile(paths));
    if (!isCommitted) rmSync(staging, { recursive: true, force: true });
    return describeFailure(Object.assign(err as Error, { isCommitted }), paths.dir, staging);
  }
  return {
    ...receiver.totals,
    mode: received.mode,
    kept: received.kept,
    deleted,
    manifest: received.digest ?? manifestDigest(received.files, received.dirs),
  };
}

/**
 * The new manifest is written first (a full disk fails here, before anything moved), then
 * the old workspace goes aside, staging comes in and the manifest is renamed over the old
 * one. A crash between those renames leaves a manifest whose recorded folder inode is not
 * D/workspace's, which readers ignore. If staging cannot come in, the old one goes back.
 */
function swapIn(
  paths: NodePaths,
  staging: string,
  files: ManifestFiles,
  dirs: string[],
  tag: string,
  known?: ReadonlyMap<string, Signature>,
): void {
  const manifest = stageNodeManifest(paths, staging, files, dirs, tag, { known });
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

/** A sealed full push (sealed-receive.ts): extracted and checked, then `staging/w` is
 *  swapped in. */
async function receiveSealedPush(
  paths: NodePaths,
  input: PushInput,
  staging: string,
  tag: string,
): Promise<RecvWorkspaceOutput | CommandError> {
  let ws: SealedWorkspace;
  try {
    mkdirSync(staging);
    ws = await receiveSealed(input, staging);
    swapIn(paths, join(staging, SEALED_TREE), ws.files, ws.dirs, tag, ws.signatures);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    return describeFailure(err, paths.dir, staging);
  }
  rmSync(staging, { recursive: true, force: true }); // only the manifest is left in it
  return {
    ...ws.totals,
    mode: 'full',
    kept: 0,
    deleted: 0,
    manifest: manifestDigest(ws.files, ws.dirs),
    extractor: ws.extractor,
  };
}

/** This process's stdin, as a file descriptor not yet read from. */
const STDIN = { fd: 0 } as const;

/** What a push arrives on: a stream, or a descriptor (our stdin) that has not been read. */
export type PushInput = Readable | { fd: number };

export function readableOf(source: PushInput): Readable {
  return 'fd' in source ? process.stdin : source;
}

/** The tar inside an encoded `input`; a damaged stream fails it with `bad_encoding`. */
function decoded(input: Readable): Readable {
  return streamPipeline(input, createPushDecoder(), () => {
    /* the reader of the result sees the error */
  });
}

const LEFTOVER =
  /^(?:\.workspace-(?:staging|old)-|workspace\.(?:manifest|apply)\.json\.tmp-)(\d+)-/;

/** Staging folders, old workspaces, manifests and journals left by a recv-workspace that
 *  died (a committed journal was finished just before, so none of this is needed). */
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

type Failure = NodeJS.ErrnoException & {
  entryPath?: string;
  isPartial?: boolean;
  isCommitted?: boolean;
};

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
  if (e.isCommitted === true) {
    message +=
      '; the new workspace was already committed on the node, and the next push or job ' +
      'start completes it';
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
