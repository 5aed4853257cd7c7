// Persistent setup environments: a folder in the node's cache (it survives leases on your
// own machines and the folder of a local node) keyed by a fingerprint of the setup command
// and the contents of the files the job names. Same key and a ready folder: setup is
// skipped. A build is ready only once setup exited 0; a lock keeps two builds of one key
// apart; old environments are pruned by age and count.
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Written into an environment once its setup exited 0; its mtime is the last use. */
export const READY_FILE = '.tender-env-ready';
/** A lock older than this, or held by a process that is gone, is broken. */
export const STALE_LOCK_MS = 10 * 60_000;
/** Environments unused this long are pruned. */
export const ENV_MAX_AGE_MS = 7 * 24 * 3_600_000;
/** At most this many are kept, the most recently used first. */
export const ENV_MAX_COUNT = 20;

/** Sixteen hex characters of sha256 over the command, each named file's path and content
 *  hash, in the order given, and the node's image when it has one (an environment built
 *  before images were keyed keeps its key). Throws naming a file not in the workspace. */
export function envFingerprint(
  command: string,
  files: readonly string[],
  workspace: string,
  image?: string,
): string {
  const h = createHash('sha256').update('tender-env/1\0').update(command).update('\0');
  for (const file of files) {
    const abs = resolve(workspace, file);
    const rel = relative(workspace, abs);
    if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
      throw new Error(`setup_fingerprint entry ${file} is outside the workspace`);
    let content: Buffer;
    try {
      content = readFileSync(abs);
    } catch {
      throw new Error(`setup_fingerprint file ${file} is not in the workspace on the node`);
    }
    h.update(rel).update('\0').update(createHash('sha256').update(content).digest('hex'));
    h.update('\0');
  }
  if (image) h.update('image\0').update(image).update('\0');
  return h.digest('hex').slice(0, 16);
}

export function isEnvReady(envDir: string): boolean {
  return existsSync(join(envDir, READY_FILE));
}

export function markEnvReady(envDir: string, facts: { command: string; builtAt: number }): void {
  writeFileSync(join(envDir, READY_FILE), `${JSON.stringify(facts)}\n`);
}

/** Records a use: pruning keeps the most recently used. */
export function touchEnv(envDir: string, now: number): void {
  const t = new Date(now);
  utimesSync(join(envDir, READY_FILE), t, t);
}

export type LockResult = { release: () => void } | { heldBy: number };

/** Takes the build lock of one environment (`<envs>/<key>.lock`, created exclusively). */
export function lockEnv(
  envsDir: string,
  key: string,
  now: number,
  isAlive: (pid: number) => boolean,
): LockResult {
  mkdirSync(envsDir, { recursive: true });
  const path = join(envsDir, `${key}.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, JSON.stringify({ pid: process.pid, at: now }));
      closeSync(fd);
      return { release: () => rmSync(path, { force: true }) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readLock(path);
      if (holder && isAlive(holder.pid) && now - holder.at < STALE_LOCK_MS) {
        return { heldBy: holder.pid };
      }
      rmSync(path, { force: true }); // stale: its builder is gone or stuck
    }
  }
  return { heldBy: readLock(path)?.pid ?? 0 };
}

function readLock(path: string): { pid: number; at: number } | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as { pid?: unknown; at?: unknown };
    return typeof v.pid === 'number' && typeof v.at === 'number' ? { pid: v.pid, at: v.at } : null;
  } catch {
    return null; // being written, or damaged: treated as stale
  }
}

/** Removes environments unused for `maxAgeMs`, then the least recently used beyond
 *  `maxCount`, and unfinished builds nobody holds a lock on. Never `keep`, never one being
 *  built. Returns the keys removed. */
export function pruneEnvs(
  envsDir: string,
  keep: string,
  now: number,
  limits: { maxAgeMs: number; maxCount: number } = {
    maxAgeMs: ENV_MAX_AGE_MS,
    maxCount: ENV_MAX_COUNT,
  },
): string[] {
  if (!existsSync(envsDir)) return [];
  const names = readdirSync(envsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== keep)
    .map((e) => e.name)
    .filter((name) => !existsSync(join(envsDir, `${name}.lock`)));
  const ready: { name: string; usedAt: number }[] = [];
  const removed: string[] = [];
  for (const name of names) {
    const marker = join(envsDir, name, READY_FILE);
    if (existsSync(marker)) ready.push({ name, usedAt: statSync(marker).mtimeMs });
    else removed.push(name); // a build that failed or was interrupted: never usable
  }
  ready.sort((a, b) => b.usedAt - a.usedAt);
  ready.forEach((e, i) => {
    // `keep` counts as one of the kept.
    if (now - e.usedAt > limits.maxAgeMs || i + 1 >= limits.maxCount) removed.push(e.name);
  });
  for (const name of removed) rmSync(join(envsDir, name), { recursive: true, force: true });
  return removed.sort();
}
