// Pulling outputs: the spec of `pack-outputs`, what the app already holds, and the manifest
// its stream ends with.
// Part of the agent's protocol (docs/agent-protocol.md), re-exported by protocol.ts; types
// and constants only.

/** The `--spec` of `pack-outputs`, before base64url. */
export interface OutputsSpec {
  paths: string[];
}

/** What the app holds from its last pull (`pack-outputs --have-stdin`, one JSON object on
 *  stdin): archive path → [size, the node's mtime in ms]. A file that still has both is
 *  not sent again but listed in `kept`. */
export type OutputsHave = Record<string, [number, number]>;

/** The last tar entry of `pack-outputs`: `.tender/manifest.json`. */
export interface OutputsManifest {
  /** Sent in this stream (`mtimeMs`: the node's, for the next pull's `have`). */
  files: { path: string; size: number; sha256: string; mtimeMs?: number }[];
  /** Files of `have` that are unchanged on the node, not sent: the app keeps its copy. */
  kept?: { path: string; size: number; mtimeMs: number }[];
  /** Declared paths that do not exist. */
  missing: string[];
  /** Declared paths refused because they leave the workspace. */
  refused: string[];
}
export const MANIFEST_PATH = '.tender/manifest.json';
export const OUTPUT_DIR_PREFIX = '_output/';

/** `outputs.glance`: what a pull of `OutputsSpec` would find, nothing sent. */
export interface OutputsGlance {
  files: number;
  bytes: number;
  /** Folders of the set (archive paths), at most a few hundred… */
  dirs: string[];
  /** …and whether there were more. */
  moreDirs: boolean;
  missing: string[];
  refused: string[];
}
