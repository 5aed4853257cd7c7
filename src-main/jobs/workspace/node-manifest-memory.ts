import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { manifestDigest, type ManifestFiles } from '../../../src-agent/wire/workspace-manifest';
import { mkdirPrivate, writePrivateFile } from '../../base/private-files';

/** A manifest the app believes a node holds. */
export interface RememberedManifest {
  files: ManifestFiles;
  dirs: string[];
  digest: string;
}

type Stored = { files: [string, number, number, string][]; dirs: string[]; digest: string };

/**
 * What this app last pushed to each node, so the next push can diff against it without
 * first asking the node for its manifest (a round trip and a node process). The node still
 * checks the delta's base against what it really holds: a wrong memory costs one extra
 * round trip (ask, then diff again), never correctness. Kept in memory and, with a folder,
 * on disk (`<home>/cache/node-manifests/`), keyed by whatever names the node's workspace.
 */
export class NodeManifestMemory {
  private readonly known = new Map<string, RememberedManifest>();

  constructor(private readonly dir: string | null) {}

  get(key: string): RememberedManifest | null {
    const hit = this.known.get(key);
    if (hit) return hit;
    if (!this.dir) return null;
    try {
      const s = JSON.parse(readFileSync(this.file(key), 'utf8')) as Stored;
      const files: ManifestFiles = new Map(
        s.files.map(([p, size, mode, sha256]) => [p, { size, mode, sha256 }]),
      );
      // A file that does not add up to its own digest is not trusted.
      if (manifestDigest(files, s.dirs) !== s.digest) return null;
      const m = { files, dirs: s.dirs, digest: s.digest };
      this.known.set(key, m);
      return m;
    } catch {
      return null;
    }
  }

  set(key: string, m: RememberedManifest): void {
    this.known.set(key, m);
    if (!this.dir) return;
    const stored: Stored = {
      files: [...m.files].map(([p, e]) => [p, e.size, e.mode, e.sha256]),
      dirs: m.dirs,
      digest: m.digest,
    };
    try {
      mkdirPrivate(this.dir);
      const tmp = `${this.file(key)}.tmp-${process.pid}`;
      writePrivateFile(tmp, JSON.stringify(stored));
      renameSync(tmp, this.file(key));
    } catch {
      // Only an optimisation: the next push asks the node instead.
    }
  }

  forget(key: string): void {
    this.known.delete(key);
    if (this.dir) rmSync(this.file(key), { force: true });
  }

  private file(key: string): string {
    return join(this.dir!, `${createHash('sha256').update(key).digest('hex').slice(0, 24)}.json`);
  }
}

export const nodeManifestDir = (home: string): string => join(home, 'cache', 'node-manifests');
