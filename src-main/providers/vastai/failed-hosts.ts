import { readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mkdirPrivate, writePrivateFile } from '../../base/private-files';

/** Machines that failed to boot a lease for this user (image never started, SSH never came
 *  up). Searches skip them unless asked: a marketplace host that failed once tends to fail
 *  again, and each try bills. The file is small JSON, written whole and renamed into place:
 *
 *    { "version": 1, "hosts": { "<machine_id>": { "at": <ms epoch>, "reason": "…" } } }
 */
export interface FailedHost {
  machineId: string;
  /** When it was recorded, ms since the epoch. */
  at: number;
  reason: string;
}

const FILE_NAME = 'vastai-failed-hosts.json';
const MAX_REASON = 300;

/** `<TENDER_HOME>/vastai-failed-hosts.json`. */
export function failedHostsPath(home: string): string {
  return join(home, FILE_NAME);
}

/** Every recorded host, newest first. A missing file is an empty list; so is a damaged one
 *  (it only ever hides hosts, so losing it costs a retry on a bad host, nothing more). */
export function readFailedHosts(path: string): FailedHost[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return [];
  }
  const hosts = (json as { hosts?: unknown } | null)?.hosts;
  if (typeof hosts !== 'object' || hosts === null) return [];
  const out: FailedHost[] = [];
  for (const [machineId, v] of Object.entries(hosts)) {
    const rec = v as { at?: unknown; reason?: unknown } | null;
    if (!/^\d+$/.test(machineId) || typeof rec?.at !== 'number') continue;
    out.push({ machineId, at: rec.at, reason: typeof rec.reason === 'string' ? rec.reason : '' });
  }
  return out.sort((a, b) => b.at - a.at || a.machineId.localeCompare(b.machineId));
}

/** The machine ids to leave out of a search. */
export function failedMachineIds(path: string): Set<string> {
  return new Set(readFailedHosts(path).map((h) => h.machineId));
}

/** Records (or refreshes) one failed host. */
export function recordFailedHost(
  path: string,
  machineId: string,
  reason: string,
  now: number = Date.now(),
): void {
  if (!/^\d+$/.test(machineId)) throw new Error(`bad Vast.ai machine id "${machineId}"`);
  const hosts: Record<string, { at: number; reason: string }> = {};
  for (const h of readFailedHosts(path)) hosts[h.machineId] = { at: h.at, reason: h.reason };
  const flat = reason.replace(/\s+/g, ' ').trim();
  hosts[machineId] = { at: now, reason: flat.slice(0, MAX_REASON) };
  mkdirPrivate(dirname(path));
  const tmp = `${path}.${process.pid}.tmp`;
  writePrivateFile(tmp, `${JSON.stringify({ version: 1, hosts }, null, 2)}\n`);
  renameSync(tmp, path);
}
