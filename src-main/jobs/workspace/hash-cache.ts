// sha256 of local workspace files, kept across pushes in `<TENDER_HOME>/cache/file-hashes.json`
// and trusted while a file's (size, mtime, inode) are what they were when it was hashed:
// a re-push after touching 10 files hashes about 10 files.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../base/private-files';

/** What must be unchanged for a cached hash to hold. */
export interface FileKey {
  size: number;
  mtimeMs: number;
  ino: number;
}

type Row = [size: number, mtimeMs: number, ino: number, sha256: string, usedAtMs: number];

interface CacheFile {
  version: 1;
  files: Record<string, Row>;
}

// A write in the same timestamp tick as our read leaves mtime unchanged, so a file modified
// this recently is hashed but not remembered (git's "racily clean" problem). 2 s covers the
// coarsest clocks in use (FAT); ext4, APFS and NTFS tick far finer.
const RACY_MS = 2_000;
// Enough for a few large workspaces; each row is ~150 bytes on disk.
const MAX_ROWS = 400_000;
// Rows unused this long belong to folders nobody pushes any more.
const MAX_IDLE_MS = 30 * 24 * 3600_000;

export class HashCache {
  hits = 0;
  misses = 0;
  private isDirty = false;
  private readonly inFlight = new Map<string, Promise<string | undefined>>();
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    /** undefined: this process only. */
    readonly file: string | undefined,
    private readonly rows: Map<string, Row>,
    private readonly now: () => number,
  ) {}

  /** A missing, unreadable or foreign cache file is an empty cache, never an error. */
  static async load(file: string | undefined, now: () => number = Date.now): Promise<HashCache> {
    const rows = new Map<string, Row>();
    if (file) {
      try {
        const data = JSON.parse(await readFile(file, 'utf8')) as CacheFile;
        if (data.version === 1 && typeof data.files === 'object' && data.files !== null) {
          for (const [path, row] of Object.entries(data.files)) if (isRow(row)) rows.set(path, row);
        }
      } catch {
        // start empty
      }
    }
    return new HashCache(file, rows, now);
  }

  get(absPath: string, key: FileKey): string | undefined {
    const hit = this.peek(absPath, key);
    if (hit === undefined) this.misses++;
    return hit;
  }

  /** `get`, counting only a hit: a miss is left to the `get` or `hashOnce` that follows. */
  peek(absPath: string, key: FileKey): string | undefined {
    const row = this.rows.get(absPath);
    if (row && row[0] === key.size && row[1] === key.mtimeMs && row[2] === key.ino) {
      this.hits++;
      row[4] = this.now();
      this.isDirty = true;
      return row[3];
    }
    return undefined;
  }

  /** `readStartedMs`: when reading the bytes that gave `sha256` began. */
  set(absPath: string, key: FileKey, sha256: string, readStartedMs: number): void {
    if (key.mtimeMs > readStartedMs - RACY_MS) return;
    this.rows.set(absPath, [key.size, key.mtimeMs, key.ino, sha256, this.now()]);
    this.isDirty = true;
  }

  /** The cached hash, else `hash()` (undefined: the file vanished), run once even when two
   *  pushes ask at the same time. */
  async hashOnce(
    absPath: string,
    key: FileKey,
    hash: () => Promise<{ sha256: string; key: FileKey; readStartedMs: number } | undefined>,
  ): Promise<string | undefined> {
    const cached = this.get(absPath, key);
    if (cached) return cached;
    const id = `${absPath}\0${key.size}\0${key.mtimeMs}\0${key.ino}`;
    let running = this.inFlight.get(id);
    if (!running) {
      running = hash().then((h) => {
        if (h) this.set(absPath, h.key, h.sha256, h.readStartedMs);
        return h?.sha256;
      });
      this.inFlight.set(id, running);
      void running.then(
        () => this.inFlight.delete(id),
        () => this.inFlight.delete(id),
      );
    }
    return running;
  }

  /** Writes the cache atomically (tmp + rename); failures are ignored: it is only a cache. */
  save(): Promise<void> {
    this.saving = this.saving.then(async () => {
      if (!this.file || !this.isDirty) return;
      this.isDirty = false;
      this.prune();
      const data: CacheFile = { version: 1, files: Object.fromEntries(this.rows) };
      const tmp = `${this.file}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
      try {
        await mkdir(dirname(this.file), { recursive: true, mode: PRIVATE_DIR_MODE });
        await writeFile(tmp, JSON.stringify(data), { mode: PRIVATE_FILE_MODE });
        await rename(tmp, this.file);
      } catch {
        await rm(tmp, { force: true });
      }
    });
    return this.saving;
  }

  get size(): number {
    return this.rows.size;
  }

  private prune(): void {
    const cutoff = this.now() - MAX_IDLE_MS;
    for (const [path, row] of this.rows) if (row[4] < cutoff) this.rows.delete(path);
    if (this.rows.size <= MAX_ROWS) return;
    const byUse = [...this.rows].sort((a, b) => b[1][4] - a[1][4]);
    for (const [path] of byUse.slice(MAX_ROWS)) this.rows.delete(path);
  }
}

/** Where the CLI and the app keep the cache. */
export function hashCacheFile(home: string): string {
  return join(home, 'cache', 'file-hashes.json');
}

const shared = new Map<
  string,
  { cache: Promise<HashCache>; users: number; linger?: ReturnType<typeof setTimeout> }
>();

/** How long a cache nobody holds stays loaded: pushes a minute apart (live sync, a re-run)
 *  then skip reading it back. The file stays the truth; another process's writes are lost
 *  to this copy, which costs re-hashing at worst. */
const LINGER_MS = 5 * 60_000;

/**
 * The process-wide cache for `file` (two nodes of a run share it, so each file is hashed
 * once). `release()` saves it; once its last user is done it stays loaded for a while.
 */
export async function acquireHashCache(
  file: string | undefined,
): Promise<{ cache: HashCache; release: () => Promise<void> }> {
  if (!file) return { cache: await HashCache.load(undefined), release: async () => {} };
  let entry = shared.get(file);
  if (!entry) {
    entry = { cache: HashCache.load(file), users: 0 };
    shared.set(file, entry);
  }
  clearTimeout(entry.linger);
  entry.users++;
  const held = entry;
  const cache = await held.cache;
  return {
    cache,
    release: async () => {
      held.users--;
      if (held.users === 0 && shared.get(file) === held) {
        held.linger = setTimeout(() => {
          if (held.users === 0 && shared.get(file) === held) shared.delete(file);
        }, LINGER_MS);
        held.linger.unref();
      }
      const saving = cache.save();
      pendingSaves.add(saving);
      await saving.finally(() => pendingSaves.delete(saving));
    },
  };
}

const pendingSaves = new Set<Promise<void>>();

/** Resolves once every hash cache save begun so far is on disk (before a process exits or
 *  its home is removed). */
export async function hashCacheSaves(): Promise<void> {
  while (pendingSaves.size > 0) await Promise.allSettled([...pendingSaves]);
}

function isRow(v: unknown): v is Row {
  return (
    Array.isArray(v) &&
    v.length === 5 &&
    typeof v[0] === 'number' &&
    typeof v[1] === 'number' &&
    typeof v[2] === 'number' &&
    typeof v[3] === 'string' &&
    typeof v[4] === 'number'
  );
}
