// What the last pull of a landing folder brought, beside it (`<dest>.pull.json`), so the
// next pull asks only for what changed (`pack-outputs --have-stdin`). An entry counts only
// while the local file is still the one the pull wrote (size, mtime and inode): a file
// edited or replaced here is asked for again.
import { lstatSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { OutputsHave } from '../../../src-agent/wire/protocol';
import { writePrivateFile } from '../../base/private-files';

export interface PulledFile {
  size: number;
  sha256: string;
  /** The node's mtime when it was read. */
  nodeMtimeMs: number;
}

interface IndexEntry extends PulledFile {
  local: [mtimeMs: number, ino: number];
}

interface IndexFile {
  version: 1;
  files: Record<string, IndexEntry>;
}

export const pullIndexFile = (destDir: string): string => `${destDir}.pull.json`;

/** The files of `destDir` the last pull wrote and nobody has changed since. */
export function readPullIndex(destDir: string): Map<string, PulledFile> {
  const held = new Map<string, PulledFile>();
  let index: IndexFile;
  try {
    index = JSON.parse(readFileSync(pullIndexFile(destDir), 'utf8')) as IndexFile;
    if (index.version !== 1 || typeof index.files !== 'object') return held;
  } catch {
    return held;
  }
  for (const [path, e] of Object.entries(index.files)) {
    try {
      const st = lstatSync(join(destDir, path));
      if (st.isFile() && st.size === e.size && st.mtimeMs === e.local[0] && st.ino === e.local[1])
        held.set(path, { size: e.size, sha256: e.sha256, nodeMtimeMs: e.nodeMtimeMs });
    } catch {
      /* gone here: asked for again */
    }
  }
  return held;
}

/** `have` as `pack-outputs` reads it. */
export function haveOf(held: Map<string, PulledFile>): OutputsHave {
  const have: OutputsHave = {};
  for (const [path, f] of held) have[path] = [f.size, f.nodeMtimeMs];
  return have;
}

/** Records what `destDir` now holds (after the pull landed there). */
export function writePullIndex(destDir: string, files: Map<string, PulledFile>): void {
  const index: IndexFile = { version: 1, files: {} };
  for (const [path, f] of files) {
    try {
      const st = lstatSync(join(destDir, path));
      index.files[path] = { ...f, local: [st.mtimeMs, st.ino] };
    } catch {
      /* not indexed: pulled again next time */
    }
  }
  const file = pullIndexFile(destDir);
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    writePrivateFile(tmp, JSON.stringify(index));
    renameSync(tmp, file);
  } catch {
    // Only a head start: the next pull then fetches everything.
  }
}
