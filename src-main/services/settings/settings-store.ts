import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AfterJob, type LeasePolicy, type PolicyInput } from '../../contract/policy';

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
    // The lease policy a run gets unless its job file or the composer says otherwise.
    /** Hours a lease may live at most (0: no limit). */
    maxDurationH: z.number().min(0).max(720).default(24),
    /** Minutes with no job running and nobody using a node before it is destroyed (0: never). */
    idleTimeoutMin: z.number().min(0).max(10_080).default(20),
    /** Minutes a node waits for an unreachable app before destroying itself. */
    unreachableGraceMin: z.number().min(1).max(10_080).default(30),
    afterJob: AfterJob.default('destroy'),
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

/** A run's policy: what it asked for, the rest from the defaults. */
export function resolvePolicy(input: PolicyInput, d: Defaults): LeasePolicy {
  const orNull = (v: number) => (v > 0 ? Math.round(v) : null);
  return {
    maxDurationMs:
      input.maxDurationMs !== undefined ? input.maxDurationMs : orNull(d.maxDurationH * 3_600_000),
    idleTimeoutMs:
      input.idleTimeoutMs !== undefined ? input.idleTimeoutMs : orNull(d.idleTimeoutMin * 60_000),
    budgetUsd: input.budgetUsd ?? null,
    afterJob: input.afterJob ?? d.afterJob,
    unreachableGraceMs: input.unreachableGraceMs ?? Math.round(d.unreachableGraceMin * 60_000),
  };
}
