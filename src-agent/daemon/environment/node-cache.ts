// TENDER_CACHE: one folder per machine that every job's setup, run and host setup share
// and that outlives the lease (beside the persistent environments), so a model the first
// run downloaded is there for the second. Its size is measured by walking it.
import { mkdirSync } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CacheInfo } from '../../wire/protocol';

/** A walk of a large cache costs seconds of disk reads: at most one per this long. */
const MEASURE_EVERY_MS = 30_000;

/** The tools' own cache variables, each pointed at a subfolder of the cache unless the job
 *  sets it: Hugging Face (models, datasets), torch hub, pip's wheels. */
export const CACHE_DEFAULTS: readonly (readonly [string, string])[] = [
  ['HF_HOME', 'huggingface'],
  ['TORCH_HOME', 'torch'],
  ['PIP_CACHE_DIR', 'pip'],
];

/** `TENDER_CACHE`, and each default the job's own env (`userEnv`) leaves unset. */
export function cacheEnv(
  cacheDir: string,
  userEnv: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = { TENDER_CACHE: cacheDir };
  for (const [key, sub] of CACHE_DEFAULTS) if (!(key in userEnv)) env[key] = join(cacheDir, sub);
  return env;
}

/** Makes the cache folder inside the node's cache folder (`…/cache/shared`), which
 *  bootstrap made for the agent bundle. Where that is missing (a node folder outside
 *  Tender's layout, as in tests) nothing is made above it. */
export function ensureCacheDir(path: string): void {
  try {
    mkdirSync(path);
  } catch {
    // EEXIST: there already; ENOENT: no cache folder to hold it
  }
}

/** The cache's size, measured at most every MEASURE_EVERY_MS, and again once something
 *  that may have written to it (a phase, a host-setup entry) has ended; callers in between
 *  get the last measure, and concurrent callers share one walk. */
export class NodeCache {
  private last: CacheInfo | undefined;
  private walking: Promise<CacheInfo> | undefined;
  private isStale = false;

  constructor(
    readonly path: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The measure, unless a walk takes longer than `ms`: then the last one (undefined
   *  before the first), and the walk goes on for the next caller. */
  async infoWithin(ms: number): Promise<CacheInfo | undefined> {
    return (await this.measuredWithin(ms)) ?? this.last;
  }

  /** A walk begun now (a writer just ended), if it ends within `ms`; undefined otherwise,
   *  and the walk goes on for the next caller. */
  walkWithin(ms: number): Promise<CacheInfo | undefined> {
    this.isStale = true;
    return this.measuredWithin(ms);
  }

  /** `info()`, or undefined once `ms` have passed first. */
  private async measuredWithin(ms: number): Promise<CacheInfo | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), ms)));
    try {
      return await Promise.race([this.info(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A writer ended: the next `info` walks again (what the app journals after a run). */
  markStale(): void {
    this.isStale = true;
  }

  async info(): Promise<CacheInfo> {
    const isFresh = this.last && this.now() - this.last.measuredAt < MEASURE_EVERY_MS;
    if (isFresh && !this.isStale && !this.walking) return this.last!;
    this.isStale = false;
    this.walking ??= treeBytes(this.path)
      .then((bytes) => (this.last = { path: this.path, bytes, measuredAt: this.now() }))
      .finally(() => (this.walking = undefined));
    return this.walking;
  }
}

/** Sum of the sizes of the regular files under `dir`; links are not followed (a Hugging
 *  Face snapshot links to its blobs, which are counted once where they are). A file that
 *  vanishes mid-walk counts as nothing; a missing folder is 0. */
export async function treeBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += await treeBytes(p);
    else if (e.isFile())
      total += await lstat(p).then(
        (s) => s.size,
        () => 0,
      );
  }
  return total;
}
