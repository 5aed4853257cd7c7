// `D/agent.lock`: one daemon per node folder. The lock file appears with the owner's pid
// already in it (written to a temp file, then hard-linked into place: atomic and
// exclusive), so a concurrent reader never sees an empty lock and mistakes it for stale.
import { linkSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { isProcessAlive } from './phases/process-group';

export type LockResult =
  { isAcquired: true; release: () => void } | { isAcquired: false; pid: number };

/** Takeover attempts before giving up (each one lost to a concurrent starter). */
const MAX_ATTEMPTS = 5;

export function acquireLock(lockPath: string, dir: string): LockResult {
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    if (tryCreate(lockPath)) return { isAcquired: true, release: () => releaseLock(lockPath) };
    const holder = readPid(lockPath);
    if (holder !== undefined && isLiveAgent(holder, dir)) return { isAcquired: false, pid: holder };
    takeOverStale(lockPath, holder, dir);
  }
  throw new Error(
    `could not take ${lockPath}: other agents keep racing for it; remove it if no agent runs`,
  );
}

function tryCreate(path: string): boolean {
  const tmp = `${path}.${process.pid}`;
  writeFileSync(tmp, `${process.pid}\n`);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Removes a stale lock under a short-lived second lock, so two takers cannot each remove
 *  the other's fresh lock. A taker that died mid-takeover leaves a stale guard: same rule. */
function takeOverStale(lockPath: string, stalePid: number | undefined, dir: string): void {
  const guard = `${lockPath}.takeover`;
  if (!tryCreate(guard)) {
    const guardPid = readPid(guard);
    if (guardPid === undefined || !isProcessAlive(guardPid)) rmSync(guard, { force: true });
    return;
  }
  try {
    const now = readPid(lockPath);
    if (now === stalePid && !(now !== undefined && isLiveAgent(now, dir)))
      rmSync(lockPath, { force: true });
  } finally {
    rmSync(guard, { force: true });
  }
}

function releaseLock(path: string): void {
  if (readPid(path) === process.pid) unlinkSync(path);
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Alive, and (where /proc tells) really an agent for this folder: after a reboot the pid
 *  of a stale lock may belong to an unrelated process. */
function isLiveAgent(pid: number, dir: string): boolean {
  if (pid === process.pid) return false; // our own leftover from a crash cannot be alive
  if (!isProcessAlive(pid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes(dir) || cmdline.includes('daemon');
  } catch {
    return true;
  }
}
