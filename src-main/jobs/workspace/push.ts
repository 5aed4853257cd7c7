// The full push: every file of the plan as one tar stream into `recv-workspace`, which swaps
// it in atomically. Each file is read once: hashed as it is sent (unless the hash cache
// already knows it), so the manifest of what was sent costs no second pass. Over a link, a
// push whose files compress is compressed (push-compression.ts), each file as its kind says
// (compress-policy.ts), and its large text-like files compressed ahead while raw bytes
// drain (precompress.ts).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import {
  type RecvWorkspaceOutput,
  SEALED_MANIFEST,
  SEALED_TREE,
} from '../../../src-agent/wire/protocol';
import type { TarWriter } from '../../../src-agent/wire/tar';
import {
  workspaceMode,
  manifestDigest,
  type ManifestFiles,
  toManifest,
} from '../../../src-agent/wire/workspace-manifest';
import { TenderError } from '../../base/tender-error';
import type { AgentAddress } from '../../nodes/node-layout';
import type { NodeShell } from '../../transport/node-shell';
import { fileKind, isAlreadyCompressed } from './compress-policy';
import { HashCache } from './hash-cache';
import { localFile } from './manifest';
import { AHEAD_MIN_FILE_BYTES, Precompressor } from './precompress';
import type { CompressionPlan } from './compression-plan';
import type { LinkMeasure } from './link-meter';
import { planPush, type PushLink, readHeadOf } from './push-compression';
import { type PushEncoder, SEGMENT_BYTES } from './push-encoder';
import { type OpenedFile, readAhead } from './read-ahead';
import { type RecvVia, sendToRecv } from './recv-channel';

export interface PushFile {
  path: string;
  size: number;
  mode: number;
  mtimeMs: number;
}

export interface PushPlan {
  root: string;
  dirs: string[];
  files: PushFile[];
}

export interface PushProgress {
  files: number;
  bytes: number;
  totalFiles: number;
  totalBytes: number;
  /** `hashing`: reading files the hash cache does not know, before a delta is sent. */
  stage?: 'hashing' | 'sending';
}

export interface FullPushResult {
  output: RecvWorkspaceOutput;
  streamBytes: number;
  /** A compressed push: the bytes of tar that `streamBytes` carried, and its segments
   *  worth trying by the quality they were sent at. */
  tarBytes?: number;
  segments?: Record<string, number>;
  /** Whether it was compressed, and why (compression-plan.ts). */
  compression: CompressionPlan;
  /** What the link did, measured as it went (link-meter.ts); undefined for a small push. */
  link?: LinkMeasure;
  filesSent: number;
  bytesSent: number;
  /** The manifest of what was sent, which the node now holds. */
  manifest: { files: ManifestFiles; dirs: string[]; digest: string };
}

/** The source of a full push: a plan (or scan), any file list with a root and folders. */
export interface FullPushSource {
  root: string;
  dirs: string[];
  files: { path: string; size: number }[];
}

/**
 * Sends every file; returns once the node has swapped the new workspace in. The node's
 * manifest must then equal the one built from what was read, or the transfer was damaged.
 */
export async function pushFull(
  shell: NodeShell,
  address: AgentAddress,
  plan: FullPushSource,
  opts: {
    cache: HashCache;
    onProgress?: (p: PushProgress) => void;
    now?: () => number;
    /** Into the live workspace, file by file (`recv-workspace --in-place`). */
    isInPlace?: boolean;
    /** Offered to a node that is probably fresh: if it holds a workspace after all, it
     *  declines, and this throws `FullPushDeclined` with that workspace's manifest. */
    isUnlessManifest?: boolean;
    via?: RecvVia;
    /** The link to the node (`pushLink`): the push is compressed where that pays. */
    link?: PushLink;
  },
): Promise<FullPushResult> {
  const now = opts.now ?? Date.now;
  const progress: PushProgress = {
    files: 0,
    bytes: 0,
    totalFiles: plan.files.length,
    totalBytes: plan.files.reduce((n, f) => n + f.size, 0),
    stage: 'sending',
  };
  const sent: ManifestFiles = new Map();
  // Sealed (not in place): the tree under `w/`, then the manifest of what was sent, so the
  // node can hand the stream to its own tar and still check the result (sealed-receive.ts).
  const isSealed = opts.isInPlace !== true;
  const prefix = isSealed ? `${SEALED_TREE}/` : '';
  const compression = planPush(plan.root, plan.files, opts.link);
  const isEncoded = compression.isEncoded;
  const ahead = isEncoded ? precompressorFor(plan, opts.link?.link?.bytesPerS) : undefined;
  const answer = await sendToRecv(
    shell,
    address,
    async (tar, encoder) => {
      if (isSealed) await tar.addDirectory(SEALED_TREE, { mode: 0o755 });
      for (const d of plan.dirs) await tar.addDirectory(prefix + d, { mode: 0o755 });
      const paths = plan.files.map((f) => f.path);
      for await (const file of readAhead(plan.root, paths, now)) {
        const abs = join(plan.root, file.path);
        const key = localFile(file.path, file.st);
        const cached = opts.cache.get(abs, key);
        const sha256 = await addFile(
          tar,
          file,
          cached === undefined,
          prefix + file.path,
          encoder,
          ahead?.has(file.path) === true,
        );
        const sha = cached ?? sha256!;
        if (cached === undefined) opts.cache.set(abs, key, sha, file.openedAtMs);
        sent.set(file.path, { size: key.size, mode: key.mode, sha256: sha });
        progress.files++;
        progress.bytes += key.size;
        opts.onProgress?.(progress);
      }
      if (isSealed) {
        encoder?.mark(tar.offset, 'try');
        const body = Buffer.from(JSON.stringify(toManifest(sent, plan.dirs)));
        await tar.addFile(SEALED_MANIFEST, { size: body.length, mode: 0o600 }, body);
      }
    },
    {
      isInPlace: opts.isInPlace,
      via: opts.via,
      isSealed,
      isUnlessManifest: opts.isUnlessManifest,
      isEncoded,
      ahead,
    },
  ).finally(() => ahead?.close());
  const expected = manifestDigest(sent, plan.dirs);
  if (answer.output.manifest !== undefined && answer.output.manifest !== expected) {
    throw new TenderError(
      'infrastructure',
      `the node's copy of the workspace differs from what was sent (manifest ${answer.output.manifest.slice(0, 12)}, expected ${expected.slice(0, 12)})`,
      'The transfer was damaged; run again.',
    );
  }
  return {
    manifest: { files: sent, dirs: plan.dirs, digest: expected },
    output: answer.output,
    streamBytes: answer.streamBytes,
    tarBytes: answer.tarBytes,
    segments: answer.segments,
    compression,
    link: answer.link,
    filesSent: sent.size,
    bytesSent: progress.bytes,
  };
}

/**
 * Adds one opened file to the tar (closing it) as `name`, hashing the bytes sent when
 * `isHashing`. Reads no more than the size in the header, even if the file grows meanwhile.
 * With an `encoder` (a compressed push), first tells it whether the file's bytes are worth
 * trying: a large one is judged by its head.
 */
export async function addFile(
  tar: TarWriter,
  file: OpenedFile,
  isHashing: boolean,
  name = file.path,
  encoder?: PushEncoder,
  isAhead = false,
): Promise<string | undefined> {
  const kind = encoder && fileKind(file.path, file.data ? undefined : readHeadOf(file.fd!));
  encoder?.mark(tar.offset, kind!);
  const meta = {
    size: file.st.size,
    mode: workspaceMode(file.st.mode),
    mtime: file.st.mtime,
    // Its data in the chunks the precompressor made of it.
    ...(isAhead && kind === 'try'
      ? { onData: (at: number) => encoder!.mark(at, 'try', file.path) }
      : {}),
  };
  if (file.data) {
    await tar.addFile(name, meta, file.data);
    return isHashing ? createHash('sha256').update(file.data).digest('hex') : undefined;
  }
  // Large files stream in 1 MiB reads (fewer round trips than the default 64 KiB); the
  // stream owns the descriptor from here and closes it however it ends.
  const raw = createReadStream('', {
    fd: file.fd!,
    start: 0,
    end: file.st.size - 1,
    highWaterMark: 1 << 20,
  });
  file.fd = undefined;
  try {
    const hash = createHash('sha256');
    let source: Readable = raw;
    if (isHashing) {
      source = raw.pipe(
        new Transform({
          transform(chunk: Buffer, _enc, done) {
            hash.update(chunk);
            done(null, chunk);
          },
        }),
      );
      raw.on('error', (err) => source.destroy(err));
    }
    await tar.addFile(name, meta, source);
    return isHashing ? hash.digest('hex') : undefined;
  } finally {
    raw.destroy(); // a no-op once read to the end; releases a read cut short
  }
}

/** The large files worth compressing ahead, in push order; none if there are none.
 *  `knownRate`: what earlier pushes to the endpoint measured of its link (bytes/s). */
function precompressorFor(plan: FullPushSource, knownRate?: number): Precompressor | undefined {
  const files = plan.files.filter(
    (f) => f.size >= AHEAD_MIN_FILE_BYTES && !isAlreadyCompressed(f.path),
  );
  if (files.length === 0) return undefined;
  return new Precompressor(plan.root, files, SEGMENT_BYTES, undefined, knownRate);
}

/** Sends the whole workspace (no manifest exchange, no hash cache): the push of old. */
export async function pushWorkspace(
  shell: NodeShell,
  address: AgentAddress,
  plan: PushPlan,
  onProgress: (p: PushProgress) => void = () => {},
): Promise<RecvWorkspaceOutput> {
  const cache = await HashCache.load(undefined);
  return (await pushFull(shell, address, plan, { cache, onProgress })).output;
}
