// Incremental workspace push: ask the node for its manifest, send only what differs as one
// tar stream, fall back to a full push when the node has no manifest or a different one
// than it reported (`stale_base`). When the app remembers no push to the node (a fresh
// one, most likely), the full push is offered straight away instead: the node declines it,
// with its manifest, if it holds a workspace after all (`FullPushDeclined`). Either way
// the node swaps the result in atomically: a partially pushed workspace is never what
// `run` sees. With `inPlace` (live sync into a running job) the node instead moves each
// file into the live folder, keeping the job's cwd and the files it made; each file is
// replaced atomically, the whole is not.
import type { WorkspaceManifest } from '../../../src-agent/wire/protocol';
import { agentCommand, type AgentAddress } from '../../nodes/node-layout';
import { execCapture, parseAfterMarker } from '../../transport/exec-helpers';
import type { NodeShell } from '../../transport/node-shell';
import { pushDelta } from './delta-push';
import { acquireHashCache, type HashCache } from './hash-cache';
import type { NodeManifestMemory, RememberedManifest } from './node-manifest-memory';
import { buildManifest, diffManifests, type ManifestSource, statFiles } from './manifest';
import { type FullPushResult, pushFull, type PushProgress } from './push';
import type { CompressionPlan } from './compression-plan';
import type { LinkMeasure } from './link-meter';
import { LinkRates } from './link-rates';
import { type CompressionSetting, pushLink, type PushLink } from './push-compression';
import {
  FullPushDeclined,
  LocalChangeError,
  type NodeManifest,
  nodeManifestOf,
  type RecvVia,
  WorkspaceRefusedError,
} from './recv-channel';

export interface SyncOptions {
  /** The persistent hash cache (`hashCacheFile(home)`); without one, hashes last this call. */
  hashCacheFile?: string;
  /** A job runs in the workspace: update it in place (`recv-workspace --in-place`), the
   *  delta and, on a stale base, the full push alike; never swap the folder. */
  inPlace?: boolean;
  onProgress?: (p: PushProgress) => void;
  /** Files hashed at once when the cache misses. */
  hashConcurrency?: number;
  /** What was last pushed to this node (`key` names its workspace): diff against that
   *  instead of asking the node first; the node's base check keeps this honest. */
  memory?: { store: NodeManifestMemory; key: string };
  /** A session with the node (`WorkspaceSession`): every request goes over it instead of
   *  an exec each. */
  via?: RecvVia;
  /** The node is a lease made for this push (a fresh node's first push): it holds no
   *  workspace, so none is asked for (a round trip); the full push replaces whatever a
   *  surprise left there all the same. */
  isFreshNode?: boolean;
  now?: () => number;
  /** `auto` (default): compressed where that pays (push-compression.ts); `off`: never. */
  compression?: CompressionSetting;
  /** Where the link rate each endpoint's pushes achieved is kept (`linkRatesFile(home)`):
   *  the next push to it starts with the right choice. Without one, this process's memory. */
  linkRatesFile?: string;
  /** Resolve once the node has answered, and save the hash cache after (a job's push: the
   *  file is only a head start for the next process; `hashCacheSaves()` waits for it). */
  saveCacheBehind?: boolean;
}

/** The options as the pushes take them, with the link to the node. */
type PushOptions = SyncOptions & { link: PushLink };

export interface SyncResult {
  mode: 'full' | 'delta';
  filesSent: number;
  /** File bytes sent (tar headers not counted; see `streamBytes`). */
  bytesSent: number;
  deleted: number;
  /** Files the node already had and kept where they were (0 for a full push). */
  unchanged: number;
  elapsedMs: number;
  /** Bytes written to the node: the tar, or what it was compressed to. */
  streamBytes: number;
  /** A compressed push: the bytes of tar that `streamBytes` carried, and its segments
   *  worth trying by the brotli quality they were sent at (`raw`: as they were). */
  tarBytes?: number;
  segments?: Record<string, number>;
  /** Whether the push was compressed, and why. */
  compression?: CompressionPlan;
  /** What the link did during this push (remembered for the endpoint's next push). */
  link?: LinkMeasure;
  /** Local files read to hash them before sending (cache misses of a delta). */
  hashed: number;
  /** Why a full push was made: `first` (no manifest on the node) or `stale_base`. */
  fullReason?: 'first' | 'stale_base';
}

export type { NodeManifest } from './recv-channel';

/** What the node holds, or null when it holds no workspace it can vouch for (or its agent
 *  predates `workspace-manifest`): either way, a full push. */
export async function fetchNodeManifest(
  shell: NodeShell,
  address: AgentAddress,
  via?: RecvVia,
): Promise<NodeManifest | null> {
  if (via) return via.manifest();
  const res = await execCapture(shell, agentCommand(address, 'workspace-manifest'));
  if (res.code !== 0) return null;
  return nodeManifestOf(parseAfterMarker<WorkspaceManifest>(res.stdout));
}

export async function syncWorkspace(
  shell: NodeShell,
  address: AgentAddress,
  source: ManifestSource & { files: { path: string; size: number }[] },
  opts: SyncOptions = {},
): Promise<SyncResult> {
  const now = opts.now ?? Date.now;
  const started = now();
  const rates = new LinkRates(opts.linkRatesFile);
  const pushOpts: PushOptions = {
    ...opts,
    link: pushLink(shell, address, opts.compression, rates),
  };
  const { cache, release } = await acquireHashCache(opts.hashCacheFile);
  const done = (r: Omit<FullPushResult, 'manifest'>, extra: Partial<SyncResult>): SyncResult => {
    if (r.link !== undefined) rates.set(shell.description, r.link);
    return summary(r, extra);
  };
  const summary = (
    r: Omit<FullPushResult, 'manifest'>,
    extra: Partial<SyncResult>,
  ): SyncResult => ({
    mode: r.output.mode ?? 'full',
    filesSent: r.filesSent,
    bytesSent: r.bytesSent,
    deleted: r.output.deleted ?? 0,
    unchanged: r.output.kept ?? 0,
    streamBytes: r.streamBytes,
    ...(r.tarBytes === undefined ? {} : { tarBytes: r.tarBytes, segments: r.segments }),
    compression: r.compression,
    ...(r.link === undefined ? {} : { link: r.link }),
    hashed: 0,
    ...extra,
    elapsedMs: now() - started,
  });
  try {
    // A file that changes between hashing and sending makes one more attempt worthwhile.
    for (let attempt = 1; ; attempt++) {
      try {
        const delta = await tryDelta(shell, address, source, cache, pushOpts);
        if (delta.kind === 'sent') {
          remember(opts, delta.manifest);
          return done(delta.result, { hashed: delta.hashed });
        }
        if (delta.kind === 'pushed') {
          remember(opts, delta.result.manifest);
          return done(delta.result, { fullReason: 'first' });
        }
        const full = await pushFull(shell, address, source, {
          cache,
          onProgress: opts.onProgress,
          now,
          isInPlace: opts.inPlace,
          via: opts.via,
          link: pushOpts.link,
        });
        remember(opts, full.manifest);
        return done(full, { fullReason: delta.why });
      } catch (err) {
        if (!(err instanceof LocalChangeError) || attempt >= 2) throw err;
      }
    }
  } finally {
    if (opts.saveCacheBehind) void release();
    else await release();
  }
}

function remember(opts: SyncOptions, m: RememberedManifest): void {
  // In place, files a job made stay beside ours: what the node holds is not just this.
  if (opts.memory && !opts.inPlace) opts.memory.store.set(opts.memory.key, m);
  else opts.memory?.store.forget(opts.memory.key);
}

type DeltaOutcome =
  | {
      kind: 'sent';
      result: Omit<FullPushResult, 'manifest'>;
      hashed: number;
      manifest: RememberedManifest;
    }
  | { kind: 'pushed'; result: FullPushResult }
  | { kind: 'full'; why: 'first' | 'stale_base' };

/** The delta push, or why a full one is needed instead. Diffs against the remembered
 *  manifest when there is one (no round trip); without one, outside a session and not in
 *  place, makes the full push, unless the node declines it with its manifest; if the node
 *  says its base is stale, asks it for its manifest and diffs once more. */
async function tryDelta(
  shell: NodeShell,
  address: AgentAddress,
  source: ManifestSource & { files: { path: string; size: number }[] },
  cache: HashCache,
  opts: PushOptions,
): Promise<DeltaOutcome> {
  const remembered = opts.memory?.store.get(opts.memory.key) ?? null;
  if (!remembered && opts.isFreshNode && opts.inPlace !== true)
    return { kind: 'full', why: 'first' };
  let declined: NodeManifest | undefined;
  if (!remembered && !opts.via && opts.inPlace !== true) {
    try {
      const result = await pushFull(shell, address, source, {
        cache,
        onProgress: opts.onProgress,
        now: opts.now,
        isUnlessManifest: true,
        link: opts.link,
      });
      return { kind: 'pushed', result };
    } catch (err) {
      if (!(err instanceof FullPushDeclined)) throw err;
      if (err.reason === 'has_workspace') {
        if (!err.manifest) return { kind: 'full', why: 'first' }; // unreadable: replace it
        declined = err.manifest;
      }
    }
  }
  // Stats (and cache look-ups) run while the node answers; hashing waits for its answer,
  // since a first push hashes as it sends instead.
  const [first, stats] = await Promise.all([
    remembered ?? declined ?? fetchNodeManifest(shell, address, opts.via),
    statFiles(source),
  ]);
  if (!first) return { kind: 'full', why: 'first' };
  const local = await buildManifest(
    source,
    {
      cache,
      concurrency: opts.hashConcurrency,
      now: opts.now,
      onHashed: (n, total) =>
        opts.onProgress?.({
          files: n,
          bytes: 0,
          totalFiles: total,
          totalBytes: 0,
          stage: 'hashing',
        }),
    },
    stats,
  );
  for (let remote: NodeManifest | null = first, asked = !remembered; remote;) {
    // Sent even when nothing differs: the node then removes whatever a job added to the
    // workspace and restores what it changed, so the result is exactly the local folder (in
    // place, it only re-checks its manifest and leaves the job's files).
    const diff = diffManifests(local.files, remote.files);
    try {
      const result = await pushDelta(shell, address, source.root, local, remote.digest, diff, {
        ...opts,
        isInPlace: opts.inPlace,
      });
      return { kind: 'sent', result, hashed: local.hashed, manifest: local };
    } catch (err) {
      if (!(err instanceof WorkspaceRefusedError && err.nodeCode === 'stale_base')) throw err;
      if (asked) return { kind: 'full', why: 'stale_base' };
      opts.memory?.store.forget(opts.memory.key);
      remote = await fetchNodeManifest(shell, address, opts.via);
      asked = true;
    }
  }
  return { kind: 'full', why: 'first' };
}
