import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { AfterJob, type LeasePolicy, type PolicyInput } from '../../contract/policy';
import { writePrivateFile } from './secret-store';

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
    /** Minutes a node whose job ended with nobody attached keeps its outputs waiting for a
     *  Tender to collect them (billing the while on a marketplace). */
    collectGraceMin: z.number().min(1).max(10_080).default(60),
    afterJob: AfterJob.default('destroy'),
  })
  .strict();
export type Defaults = z.infer<typeof Defaults>;

/** Being told (services/notify/): the `notify` section of settings.json. */
export const NotifySettings = z
  .object({
    /** A desktop notification when a run ends while nobody is looking. */
    notifyDesktop: z.boolean().default(true),
    /** Slack-compatible webhook the ledger's writer POSTs to; null: none. */
    webhookUrl: z.string().nullable().default(null),
  })
  .strict();
export type NotifySettings = z.infer<typeof NotifySettings>;

export function readDefaults(home: string): Defaults {
  return readSection(home, 'defaults', Defaults);
}

export function writeDefaults(home: string, d: Defaults): void {
  writeSection(home, 'defaults', d);
}

export function readNotify(home: string): NotifySettings {
  return readSection(home, 'notify', NotifySettings);
}

export function writeNotify(home: string, n: NotifySettings): void {
  writeSection(home, 'notify', n);
}

type Section = 'defaults' | 'notify';

/** A section of `<home>/settings.json`; its defaults when the file, the section or a value
 *  in it is missing or malformed. */
function readSection<T>(home: string, name: Section, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(readFile(home)[name] ?? {});
  return parsed.success ? parsed.data : schema.parse({});
}

/** Replaces one section and keeps the others. Mode 0600: a webhook URL (Slack's carries its
 *  token in the path) is a credential. */
function writeSection(home: string, name: Section, value: unknown): void {
  const all = { ...readFile(home), [name]: value };
  writePrivateFile(join(home, 'settings.json'), JSON.stringify(all, null, 2) + '\n');
}

function readFile(home: string): Record<string, unknown> {
  const path = join(home, 'settings.json');
  if (!existsSync(path)) return {};
  try {
    const all: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof all === 'object' && all !== null ? (all as Record<string, unknown>) : {};
  } catch {
    return {};
  }
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
    collectGraceMs: input.collectGraceMs ?? Math.round(d.collectGraceMin * 60_000),
    // Per run only (off unless its job file asks): no Settings default.
    ...(input.idleGpuUtilBelow !== undefined ? { idleGpuUtilBelow: input.idleGpuUtilBelow } : {}),
    ...(input.gpuIdle !== undefined ? { gpuIdle: input.gpuIdle } : {}),
  };
}
