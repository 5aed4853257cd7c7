// The processes the sshd fixture has to find and end, read from /proc: who is whose child,
// whose user, and killing a set until the kernel has reaped it.
import { readdirSync, readFileSync, statSync } from 'node:fs';

interface ProcessInfo {
  ppid: number;
  comm: string;
  uid: number;
}

type ProcessTable = Map<number, ProcessInfo>;

export function processTable(): ProcessTable {
  const table: ProcessTable = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const open = stat.indexOf('(');
      const close = stat.lastIndexOf(')');
      const rest = stat.slice(close + 2).split(' '); // state ppid …
      const uid = statSync(`/proc/${name}`).uid;
      table.set(Number(name), { comm: stat.slice(open + 1, close), ppid: Number(rest[1]), uid });
    } catch {
      // exited while we looked
    }
  }
  return table;
}

export function descendantsOf(table: ProcessTable, root: number): number[] {
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [pid, p] of table)
      if (p.ppid === parent && !out.includes(pid)) {
        out.push(pid);
        queue.push(pid);
      }
  }
  return out;
}

export function pidsOfUser(table: ProcessTable, uid: number): number[] {
  return [...table].filter(([, p]) => p.uid === uid).map(([pid]) => pid);
}

/** SIGKILLs `pids` and waits until they have been reaped (gone from /proc). */
export async function killAndReap(pids: number[]): Promise<void> {
  for (const pid of pids) tryKill(pid, 'SIGKILL');
  const until = Date.now() + 5_000;
  while (Date.now() < until) {
    const table = processTable();
    if (!pids.some((pid) => table.has(pid))) return;
    await sleep(20);
  }
}

export function tryKill(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
