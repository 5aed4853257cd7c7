import { existsSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const TERM_GRACE_MS = 3_000; // the agent's own cancel grace is longer; this is the last resort
const POLL_MS = 50;

/** Kills every process group named by a file in `pidsDir` (the agent's registry): SIGTERM,
 *  then SIGKILL for groups still alive after the grace period. */
export async function killProcessGroups(pidsDir: string): Promise<void> {
  if (!existsSync(pidsDir)) return;
  const groups = readdirSync(pidsDir)
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 1);
  const alive = (pgid: number) => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  };
  const signal = (pgid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(-pgid, sig);
    } catch {
      // already gone
    }
  };
  for (const g of groups) signal(g, 'SIGTERM');
  const deadline = Date.now() + TERM_GRACE_MS;
  while (groups.some(alive) && Date.now() < deadline) await sleep(POLL_MS);
  for (const g of groups.filter(alive)) signal(g, 'SIGKILL');
  while (groups.some(alive) && Date.now() < deadline + TERM_GRACE_MS) await sleep(POLL_MS);
}
