// The workspace manifest's digest and shape checks (docs/agent-protocol.md). The app
// imports this file too, so both sides hash the same bytes: node:crypto only.
import { createHash } from 'node:crypto';
import type { ManifestEntry, WorkspaceManifest } from './protocol';

/** Files by path. A Map, not an object: a file may be called `__proto__`. */
export type ManifestFiles = Map<string, ManifestEntry>;

/** The mode a workspace file has on a node, and in every manifest: the owner's bits only
 *  (an executable stays executable). The copy on the node is the user's alone. */
export const workspaceMode = (mode: number): number => mode & 0o700;

/** Code-unit order: the same on every machine and locale. */
export const comparePaths = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * sha256 (hex) of the manifest's canonical text: a version line, then one line per file
 * (`f <size> <mode> <sha256> <JSON path>`) and per folder (`d <JSON path>`), each in path
 * order. Independent of key order and of JSON formatting, so any reader can recompute it.
 */
export function manifestDigest(files: ManifestFiles, dirs: readonly string[]): string {
  const hash = createHash('sha256').update('tender-workspace-manifest/1\n');
  for (const path of [...files.keys()].sort(comparePaths)) {
    const e = files.get(path)!;
    hash.update(`f ${e.size} ${e.mode} ${e.sha256} ${JSON.stringify(path)}\n`);
  }
  for (const dir of [...dirs].sort(comparePaths)) hash.update(`d ${JSON.stringify(dir)}\n`);
  return hash.digest('hex');
}

export function toManifest(files: ManifestFiles, dirs: readonly string[]): WorkspaceManifest {
  const sorted = [...files.keys()].sort(comparePaths);
  return {
    version: 1,
    // fromEntries defines own properties, so `__proto__` stays a file name.
    files: Object.fromEntries(sorted.map((p) => [p, entryOf(files.get(p)!)])),
    dirs: [...dirs].sort(comparePaths),
  };
}

/** Reads `files` of a parsed manifest or delta header; throws on anything malformed. */
export function filesOf(value: unknown, what: string): ManifestFiles {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${what}: files must be an object`);
  const files: ManifestFiles = new Map();
  for (const [path, entry] of Object.entries(value)) {
    if (!isEntry(entry)) throw new Error(`${what}: bad entry for ${JSON.stringify(path)}`);
    files.set(path, entryOf(entry));
  }
  return files;
}

export function stringsOf(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    throw new Error(`${what} must be a list of paths`);
  return value as string[];
}

export function sameEntry(a: ManifestEntry, b: ManifestEntry): boolean {
  return a.size === b.size && a.mode === b.mode && a.sha256 === b.sha256;
}

function isEntry(v: unknown): v is ManifestEntry {
  const e = v as ManifestEntry;
  return (
    typeof v === 'object' &&
    v !== null &&
    Number.isSafeInteger(e.size) &&
    e.size >= 0 &&
    Number.isInteger(e.mode) &&
    e.mode >= 0 &&
    e.mode <= 0o777 &&
    typeof e.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(e.sha256)
  );
}

const entryOf = (e: ManifestEntry): ManifestEntry => ({
  size: e.size,
  mode: e.mode,
  sha256: e.sha256,
});
