// `D/host-setup/`: one JSON file per FIFO entry, rewritten atomically at each state
// change, so the queue outlives the daemon and a reader never sees half an entry.
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../atomic-file';
import type { HostSetupEntry } from '../../wire/protocol';

const ENTRY_FILE = /^(\d+)\.json$/;

/** Every entry recorded in `dir`, by id. A torn or foreign file is skipped (and said so on
 *  stderr): it cannot be run, and a guess could run a command twice. */
export function readEntries(dir: string): HostSetupEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: HostSetupEntry[] = [];
  for (const name of names) {
    if (!ENTRY_FILE.test(name)) continue;
    try {
      const entry = JSON.parse(readFileSync(join(dir, name), 'utf8')) as HostSetupEntry;
      if (typeof entry.id === 'number' && typeof entry.script === 'string') out.push(entry);
    } catch (err) {
      process.stderr.write(`skipping ${join(dir, name)}: ${(err as Error).message}\n`);
    }
  }
  return out.sort((a, b) => a.id - b.id);
}

export function writeEntry(dir: string, entry: HostSetupEntry): void {
  mkdirSync(dir, { recursive: true });
  // Zero-padded, so a listing sorts in FIFO order for a person too.
  writeFileAtomic(
    join(dir, `${String(entry.id).padStart(6, '0')}.json`),
    `${JSON.stringify(entry)}\n`,
  );
}
