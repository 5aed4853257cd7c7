// Pushing a workspace: what `recv-workspace` and `serve-workspace` take and answer, the
// workspace manifest, and the sealed and delta layouts of a push.
// Part of the agent's protocol (docs/agent-protocol.md), re-exported by protocol.ts; types
// and constants only.
import type { PushEncodingName } from './push-encoding';

export interface RecvWorkspaceOutput {
  /** Files received in the stream (a delta: the changed and new ones only). */
  files: number;
  bytes: number;
  /** Entries that are neither files nor folders (symlinks, devices): not extracted. */
  skipped: number;
  /** `delta` when the stream began with `.tender/delta.json`. */
  mode: 'full' | 'delta';
  /** Unchanged files a delta left in place (0 for full). */
  kept: number;
  /** Files of the previous workspace left out of the new one (0 for full). */
  deleted: number;
  /** `manifestDigest()` of the new `D/workspace.manifest.json`. */
  manifest: string;
  /** A sealed push: who extracted it, the node's GNU `tar` or the agent itself. */
  extractor?: 'tar' | 'agent';
}

/** `recv-workspace --unless-manifest` when D holds a workspace it can vouch for: nothing
 *  was read or changed; `manifest` is what `workspace-manifest` would print. */
export interface RecvDeclinedOutput {
  declined: 'has_workspace';
  manifest: WorkspaceManifest;
}

/** A request frame of `serve-workspace`: `recv` is `recv-workspace [--in-place]
 *  [--sealed]`, its tar stream following as frames up to an empty one (`encoding`: the
 *  stream is compressed, push-encoding.ts); `manifest` is `workspace-manifest`; `prepare`
 *  (answer `{}`) checks the workspace ahead of the `recv` that follows. */
export type ServeRequest =
  | { op: 'recv'; inPlace: boolean; sealed?: boolean; encoding?: PushEncodingName }
  | { op: 'manifest' }
  | { op: 'prepare' };

/** `serve-workspace`'s answer to `manifest` (null: what `workspace-manifest` leaves empty). */
export interface ServeManifestAnswer {
  manifest: WorkspaceManifest | null;
}

/** One file of a workspace manifest. `mode` is the permission bits (`0o644` → 420). */
export interface ManifestEntry {
  size: number;
  mode: number;
  sha256: string;
}

/** What `D/workspace` holds (`workspace-manifest` prints it; the app builds its own). */
export interface WorkspaceManifest {
  version: 1;
  /** POSIX paths relative to the workspace. */
  files: Record<string, ManifestEntry>;
  /** Every folder, the root excluded, empty ones included. */
  dirs: string[];
}

/** A sealed full push (`recv-workspace --sealed`): the workspace under this folder, then
 *  `SEALED_MANIFEST`, the manifest of what was sent. */
export const SEALED_TREE = 'w';
export const SEALED_MANIFEST = 'manifest.json';

/** The first entry of a delta push (`DELTA_ENTRY`); the changed files follow it. */
export interface DeltaHeader {
  version: 1;
  /** `manifestDigest()` of the node manifest the app diffed against. */
  base: string;
  /** `manifestDigest()` of the workspace once the delta is applied. */
  target: string;
  /** Paths of the base manifest that the new workspace no longer has. */
  deletions: string[];
  /** The changed and new files, each sent after this entry and checked against its entry. */
  files: Record<string, ManifestEntry>;
  /** Every folder of the new workspace. */
  dirs: string[];
}
export const DELTA_ENTRY = '.tender/delta.json';
