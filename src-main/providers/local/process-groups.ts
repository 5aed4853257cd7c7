import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const TERM_GRACE_MS = 3_000; // the agent's own cancel grace is longer; this is the last resort
const POLL_MS = 25;

/** Kills every process group named by a file in `pidsDir` (the agent's registry): SIGTERM,
 *  then SIGKILL for groups still alive after the grace period. */
export async function killProcessGroups(pidsDir: string): Promise<void> {
  if (!existsSync(pidsDir)) return;
  const groups = readdirSync(pidsDir)
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 1);
  for (const g of groups) signal(g, 'SIGTERM');
  const deadline = Date.now() + TERM_GRACE_MS;
  while (groups.some(isGroupAlive) && Date.now() < deadline) await sleep(POLL_MS);
  for (const g of groups.filter(isGroupAlive)) signal(g, 'SIGKILL');
  while (groups.some(isGroupAlive) && Date.now() < deadline + TERM_GRACE_MS) await sleep(POLL_MS);
}

function signal(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // already gone
  }
}

/** Whether any process of the group still runs. A zombie (exited, not yet reaped by a slow
 *  init) does not count: it holds no resources and cannot be killed any further. */
export function isGroupAlive(pgid: number): boolean {
  if (existsSync('/proc/self/stat')) return livingMembers(pgid) > 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function livingMembers(pgid: number): number {
  let n = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parens, so parse from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') n++;
  }
  return n;
}
