import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';

/** Defaults a person can change in Settings (non-secret; `<home>/settings.json`). */
export const Defaults = z
  .object({
    /** Minutes to wait for SSH on a new node before giving up on it. */
    connectDeadlineMin: z.number().min(1).max(60).default(5),
    /** Minutes a rented node may stay provisioning before it counts as a boot failure. */
    endpointDeadlineMin: z.number().min(1).max(120).default(15),
    /** Leases one node may go through when boots fail (marketplaces). */
    maxBootAttempts: z.number().int().min(1).max(10).default(3),
    /** Seconds a cancelled job gets between SIGTERM and SIGKILL. */
    cancelGraceSec: z.number().int().min(0).max(600).default(10),
    /** Disk for rented nodes, GB. */
    diskGb: z.number().int().min(8).max(8192).default(32),
  })
  .strict();
export type Defaults = z.infer<typeof Defaults>;

export function readDefaults(home: string): Defaults {
  const path = join(home, 'settings.json');
  if (!existsSync(path)) return Defaults.parse({});
  try {
    const parsed = Defaults.safeParse(JSON.parse(readFileSync(path, 'utf8')).defaults ?? {});
    return parsed.success ? parsed.data : Defaults.parse({});
  } catch {
    return Defaults.parse({});
  }
}

export function writeDefaults(home: string, d: Defaults): void {
  const path = join(home, 'settings.json');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, JSON.stringify({ defaults: d }, null, 2) + '\n');
  renameSync(`${path}.tmp`, path);
}
