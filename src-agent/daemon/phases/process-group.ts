// Process groups the agent leads or started, and the `D/pids/<pgid>` files that let
// anything outside the agent (the local provider's destroy) kill them all.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Whether any process of group `pgid` is alive. EPERM means alive but not ours. */
export function isGroupAlive(pgid: number): boolean {
  return probe(-pgid);
}

export function isProcessAlive(pid: number): boolean {
  return probe(pid);
}

function probe(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sends `signal` to every process of the group; a group already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

export function recordGroup(pidsDir: string, pgid: number): void {
  mkdirSync(pidsDir, { recursive: true });
  writeFileSync(join(pidsDir, String(pgid)), '');
}

export function forgetGroup(pidsDir: string, pgid: number): void {
  rmSync(join(pidsDir, String(pgid)), { force: true });
}
