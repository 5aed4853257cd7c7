// Local and node workspace folders for the push tests: write a tree, take its snapshot.
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { workspaceMode } from '../../src-agent/wire/workspace-manifest';

/** Files by path: text, or bytes with a mode (text files get 0644). */
export type Tree = Record<string, string | { content: string | Buffer; mode: number }>;

/** Older than the hash cache's racy window, as files usually are when first pushed. */
export const PAST = new Date('2025-01-01T00:00:00Z');

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Writes `files` under `root`. `isOld` (the default) dates them at PAST; an edit that must
 *  be seen as one keeps a fresh mtime (`isOld: false`), or the hash cache rightly takes it
 *  for unchanged. */
export async function writeTree(root: string, files: Tree, { isOld = true } = {}): Promise<void> {
  for (const [path, spec] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    const isText = typeof spec === 'string';
    await writeFile(join(root, path), isText ? spec : spec.content);
    await chmod(join(root, path), isText ? 0o644 : spec.mode);
    if (isOld) await utimes(join(root, path), PAST, PAST);
  }
}

/** Every entry under `root`: folders as `dir`, files as `mode sha256`, the mode as a node
 *  keeps it (the owner's bits: `workspaceMode`), so a source and its copy compare equal. */
export async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(rel: string): Promise<void> {
    for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out[`${path}/`] = 'dir';
        await walk(path);
      } else {
        const st = await lstat(join(root, path));
        out[path] =
          `${workspaceMode(st.mode).toString(8)} ${sha256(await readFile(join(root, path)))}`;
      }
    }
  }
  await walk('');
  return out;
}
