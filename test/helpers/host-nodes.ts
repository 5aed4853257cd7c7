// What a BYO host's `~/.tender/nodes` holds after a destroy: the lease's folder is renamed
// out of its place at once (`.removing-<nonce>`) and its files removed behind the
// destroy's answer (providers/ssh/remote-scripts.ts).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { until } from './wait';

const REMOVING = /^\.removing-/;

/** The lease folders on the host whose home is `home` (removals in progress left out). */
export function leaseFolders(home: string): string[] {
  return readdirSync(join(home, '.tender', 'nodes')).filter((n) => !REMOVING.test(n));
}

/** Resolves once nothing is left under the host's nodes folder, removals included. */
export function untilNodesFolderEmpty(home: string): Promise<true> {
  return until(
    () => readdirSync(join(home, '.tender', 'nodes')).length === 0,
    10_000,
    20,
    `${home}/.tender/nodes emptied by the removal behind the destroy`,
  );
}
