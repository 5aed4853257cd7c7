// Receives the tar entries of `recv-workspace` into a staging folder: a full archive as the
// whole next workspace, or a delta (first entry `.tender/delta.json`) as just the files that
// changed, each under a numbered name; the caller then applies it (recv-workspace.ts). Every
// received file is hashed as it is written and, in a delta, checked against its header.
import { posix } from 'node:path';
import type { NodePaths } from '../wire/paths';
import { DELTA_ENTRY, type DeltaHeader, type ManifestEntry } from '../wire/protocol';
import type { TarEntry } from '../wire/tar/reader';
import {
  filesOf,
  manifestDigest,
  type ManifestFiles,
  sameEntry,
  stringsOf,
} from '../wire/workspace-manifest';
import { type NodeManifest, readNodeManifest } from './node-manifest';
import { checkListedPaths, safeRelativePath, TarExtractor } from './tar-extractor';

/** A delta header lists every changed file; far more than any workspace needs. */
const MAX_DELTA_HEADER_BYTES = 256 * 1024 * 1024;

export interface ReceivedWorkspace {
  files: ManifestFiles;
  dirs: string[];
  mode: 'full' | 'delta';
  kept: number;
  deleted: number;
  /** The files that arrived in the stream (all of them for a full push). */
  received: ManifestFiles;
  /** Where a received file is in the staging folder, relative to it. */
  stagedName: (path: string) => string;
  /** `manifestDigest(files, dirs)` when already known (a delta's checked target). */
  digest?: string;
  /** A delta's base as checked: the files it keeps, and those it deletes. */
  base?: { manifest: NodeManifest; deletions: string[] };
}

interface Delta {
  /** Files still to arrive, with what each must hash to. */
  expected: ManifestFiles;
  files: ManifestFiles;
  dirs: string[];
  kept: number;
  deleted: number;
  base: { manifest: NodeManifest; deletions: string[] };
  /** The new manifest's digest, as announced and checked. */
  target: string;
}

export class WorkspaceReceiver {
  private mode: 'full' | 'delta' | undefined;
  private delta: Delta | undefined;
  private readonly received: ManifestFiles = new Map();
  private readonly extractor: TarExtractor;

  /** `checked`: the workspace's manifest as checked moments ago (`serve-workspace`'s
   *  `prepare`), used instead of checking it again when a delta arrives. */
  constructor(
    private readonly paths: NodePaths,
    staging: string,
    private readonly checked?: NodeManifest | null,
  ) {
    this.extractor = new TarExtractor(staging);
  }

  get totals(): { files: number; bytes: number; skipped: number } {
    return this.extractor.totals();
  }

  async onEntry(entry: TarEntry): Promise<void> {
    if (this.mode === undefined) {
      const isDelta =
        entry.header.type === 'file' && safeRelativePath(entry.header.path) === DELTA_ENTRY;
      this.mode = isDelta ? 'delta' : 'full';
      if (isDelta) {
        this.extractor.useFlatNames();
        this.delta = this.startDelta(await readHeader(entry));
        return;
      }
    }
    const delta = this.delta;
    const rel = safeRelativePath(entry.header.path);
    if (delta && entry.header.type === 'file' && !delta.expected.has(rel)) {
      throw coded('bad_delta', `the delta sent ${rel}, which its header did not announce`, rel);
    }
    const file = await this.extractor.extract(entry);
    if (!file) return;
    const want = delta?.expected.get(file.path);
    if (want && !sameEntry(want, file)) {
      throw coded(
        'hash_mismatch',
        `${file.path} arrived damaged: got ${describe(file)}, the app sent ${describe(want)}; push again`,
        file.path,
      );
    }
    delta?.expected.delete(file.path);
    this.received.set(file.path, file);
  }

  /** Checks that everything arrived; sets folder modes. */
  finish(): ReceivedWorkspace {
    this.extractor.finishDirectories();
    const delta = this.delta;
    if (!delta) {
      return {
        files: this.received,
        dirs: foldersOf(this.received, this.extractor.directoryPaths()),
        mode: 'full',
        kept: 0,
        deleted: 0,
        received: this.received,
        stagedName: (path) => path,
      };
    }
    const missing = [...delta.expected.keys()];
    if (missing.length > 0) {
      throw coded(
        'bad_delta',
        `the delta ended without ${missing.length} announced file(s): ${missing.slice(0, 5).join(', ')}`,
        missing[0],
      );
    }
    const { files, dirs, kept, deleted, base } = delta;
    const { placed } = this.extractor;
    return {
      files,
      dirs,
      kept,
      deleted,
      base,
      mode: 'delta',
      received: this.received,
      stagedName: (path) => placed.get(path) ?? path,
      digest: delta.target,
    };
  }

  /** Checks the header against the current manifest: what the delta keeps must be there,
   *  as it was written. */
  private startDelta(header: DeltaHeader): Delta {
    const current = this.checked !== undefined ? this.checked : readNodeManifest(this.paths);
    if (!current) {
      throw coded('stale_base', 'the node has no workspace manifest to apply a delta to');
    }
    const now = current.digest ?? manifestDigest(current.files, current.dirs);
    if (now !== header.base) {
      throw coded(
        'stale_base',
        `the node's workspace is ${now.slice(0, 12)}, the delta was made against ${header.base.slice(0, 12)}`,
      );
    }
    const changed = filesOf(header.files, 'delta header');
    const files = new Map(current.files);
    for (const path of header.deletions) files.delete(path);
    for (const [path, entry] of changed) files.set(path, entry);
    if (manifestDigest(files, header.dirs) !== header.target) {
      throw coded('bad_delta', 'the delta does not add up to the workspace it announces');
    }
    let kept = 0;
    for (const path of files.keys()) if (!changed.has(path)) kept++;
    // Only files of the checked base: a path the job made is never deleted here.
    const deletions = [...current.files.keys()].filter((p) => !files.has(p));
    return {
      expected: changed,
      files,
      dirs: header.dirs,
      kept,
      deleted: deletions.length,
      base: { manifest: current, deletions },
      target: header.target,
    };
  }
}

async function readHeader({ header, body }: TarEntry): Promise<DeltaHeader> {
  if (header.size > MAX_DELTA_HEADER_BYTES) {
    throw coded('bad_delta', `${DELTA_ENTRY} is ${header.size} bytes; too large`);
  }
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(chunk as Buffer);
  let raw: Partial<DeltaHeader>;
  try {
    raw = JSON.parse(Buffer.concat(parts).toString('utf8')) as Partial<DeltaHeader>;
    if (raw.version !== 1) throw new Error(`version ${String(raw.version)} is not 1`);
    if (typeof raw.base !== 'string' || typeof raw.target !== 'string')
      throw new Error('base and target must be manifest digests');
    const files = filesOf(raw.files, DELTA_ENTRY);
    checkListedPaths([
      ...files.keys(),
      ...stringsOf(raw.deletions, 'deletions'),
      ...stringsOf(raw.dirs, 'dirs'),
    ]);
  } catch (err) {
    if ((err as { code?: string }).code === 'unsafe_path') throw err;
    throw coded('bad_delta', `unreadable ${DELTA_ENTRY}: ${(err as Error).message}`);
  }
  return raw as DeltaHeader;
}

/** Folders of a full archive: its folder entries and every file's parents. */
function foldersOf(files: ManifestFiles, entries: string[]): string[] {
  const dirs = new Set<string>();
  // Every folder in the set has its parents in it too, so a walk up can stop at one.
  const add = (dir: string) => {
    for (let d = dir; d !== '.' && d !== '' && !dirs.has(d); d = posix.dirname(d)) dirs.add(d);
  };
  for (const dir of entries) add(dir);
  for (const path of files.keys()) add(posix.dirname(path));
  return [...dirs];
}

function describe(e: ManifestEntry): string {
  return `${e.size} bytes, mode ${e.mode.toString(8)}, sha256 ${e.sha256.slice(0, 12)}`;
}

/** An error `recv-workspace` reports with `code` (and the workspace path it concerns). */
export function coded(code: string, message: string, entryPath?: string): Error {
  return Object.assign(new Error(message), { code, entryPath });
}
