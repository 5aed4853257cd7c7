// Writes tar entries under one root folder. Only files and folders are created: links
// could point a later entry outside the root, so they are counted as skipped instead.
import { chmodSync, createWriteStream, mkdirSync, utimesSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { TarEntry } from '../tar/reader';

export class TarExtractor {
  private files = 0;
  private bytes = 0;
  private skipped = 0;
  private readonly dirs: { path: string; mode: number; mtime: Date }[] = [];

  constructor(private readonly root: string) {}

  async extract({ header, body }: TarEntry): Promise<void> {
    const rel = safeRelativePath(header.path);
    if (rel === '' || (header.type !== 'file' && header.type !== 'directory')) {
      if (rel !== '') this.skipped++;
      body.resume();
      return;
    }
    const target = join(this.root, rel);
    if (header.type === 'directory') {
      mkdirSync(target, { recursive: true });
      this.dirs.push({ path: target, mode: header.mode, mtime: header.mtime });
      return;
    }
    mkdirSync(dirname(target), { recursive: true });
    await pipeline(body, createWriteStream(target));
    chmodSync(target, header.mode & 0o777); // no setuid/setgid from a pushed archive
    utimesSync(target, header.mtime, header.mtime);
    this.files++;
    this.bytes += header.size;
  }

  /** Folder modes and times last (writing into a folder changes its mtime), deepest first.
   *  The owner keeps rwx so the workspace can always be replaced. */
  finishDirectories(): void {
    for (const d of [...this.dirs].reverse()) {
      chmodSync(d.path, (d.mode & 0o777) | 0o700);
      utimesSync(d.path, d.mtime, d.mtime);
    }
  }

  totals(): { files: number; bytes: number; skipped: number } {
    return { files: this.files, bytes: this.bytes, skipped: this.skipped };
  }
}

/** The entry's path relative to the root ('' for the root itself). Absolute paths and
 *  paths that climb out with `..` are refused: the whole archive is then rejected. */
export function safeRelativePath(path: string): string {
  const norm = posix.normalize(path).replace(/\/+$/, '');
  if (path.startsWith('/') || path.includes('\0') || norm === '..' || norm.startsWith('../')) {
    const err = new Error(
      `refusing tar entry ${JSON.stringify(path)}: it would land outside the workspace`,
    );
    throw Object.assign(err, { code: 'unsafe_path', entryPath: path });
  }
  return norm === '.' ? '' : norm;
}
