// What `pack-outputs` sends for one declared path: the file, or the folder and everything
// under it. Symlinks are followed only to files inside the root; a symlinked folder is
// not entered (no loops, no escape).
import { type Stats, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, posix, relative, sep } from 'node:path';

export interface FoundEntry {
  kind: 'file' | 'directory';
  /** Path inside the archive (posix, no trailing slash). */
  archivePath: string;
  diskPath: string;
  size: number;
  mode: number;
  mtime: Date;
}

/** `target` lies under `root`; archive paths are `prefix/` + its path relative to `root`. */
export function walkOutputs(
  root: string,
  target: string,
  prefix: string,
): FoundEntry[] | 'missing' | 'outside' {
  let disk: string;
  try {
    disk = realpathSync(target); // resolves symlinks anywhere along the path
  } catch {
    return 'missing';
  }
  if (!isInside(root, disk)) return 'outside';
  const st = statSync(disk);
  const rel = relative(root, target).split(sep).join('/');
  const archivePath = posix.join(prefix, rel).replace(/^\.$/, '');
  const out: FoundEntry[] = [];
  collect(root, disk, archivePath, st, out);
  return out;
}

function collect(
  root: string,
  disk: string,
  archivePath: string,
  st: Stats,
  out: FoundEntry[],
): void {
  const base = { archivePath, diskPath: disk, size: 0, mode: st.mode & 0o777, mtime: st.mtime };
  if (st.isFile()) {
    out.push({ ...base, kind: 'file', size: st.size });
    return;
  }
  if (!st.isDirectory()) return; // fifos, sockets, devices: not outputs
  if (archivePath !== '') out.push({ ...base, kind: 'directory' });
  for (const name of readdirSync(disk).sort()) {
    const child = join(disk, name);
    const childPath = archivePath === '' ? name : `${archivePath}/${name}`;
    let cst = lstatSync(child);
    let childDisk = child;
    if (cst.isSymbolicLink()) {
      try {
        childDisk = realpathSync(child);
        cst = statSync(childDisk);
      } catch {
        continue;
      }
      if (!cst.isFile() || !isInside(root, childDisk)) continue;
    }
    collect(root, childDisk, childPath, cst, out);
  }
}

export function isInside(root: string | undefined, path: string): boolean {
  if (root === undefined) return false;
  const rel = relative(root, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
