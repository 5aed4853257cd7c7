// The GPU idle rule (`[policy] gpu_idle`, docs/agent-protocol.md, "The GPU idle rule"): what
// the app gives the agent in `configure`, and the record the agent logs when the rule
// fires. Runtime-free: the app imports this file.

/** What the agent does when every GPU of the node sat below the threshold for the window
 *  while the job's run phase ran: `notify` records it only; `stop` stops the job as a
 *  cancel would (its outputs are collected, the run fails with the rule as its reason);
 *  `teardown` fires the dead-man switch (the node destroys itself with its own credential). */
export type GpuIdleAction = 'notify' | 'stop' | 'teardown';
export const GPU_IDLE_ACTIONS: readonly GpuIdleAction[] = ['notify', 'stop', 'teardown'];

export interface GpuIdleRule {
  /** Percent, 0 < x ≤ 100: a GPU reading below it is idle. */
  belowPct: number;
  /** How long every GPU must stay below it, ms. */
  forMs: number;
  then: GpuIdleAction;
}

/** The log source of a firing: one JSON line (`encodeGpuIdleFiring`), data, never job output. */
export const GPU_IDLE_LOG_SOURCE = 'gpu_idle';

/** What the agent did: `stopped_job` also where a teardown was asked for but the node's
 *  dead-man switch was not armed (no Tender ever renewed it), so it could not. */
export type GpuIdleOutcome = 'notified' | 'stopped_job' | 'tearing_down';

/** The `line` of a `gpu_idle` record. */
export interface GpuIdleFiring {
  /** Epoch ms on the node's clock. */
  at: number;
  rule: GpuIdleRule;
  /** How long every GPU had read below the threshold when it fired, ms. */
  idleForMs: number;
  did: GpuIdleOutcome;
  /** For a person: "every GPU under 10% for 30m while the job ran; stopped the job". */
  reason: string;
}

export function encodeGpuIdleFiring(f: GpuIdleFiring): string {
  return JSON.stringify({
    at: f.at,
    rule: { belowPct: f.rule.belowPct, forMs: f.rule.forMs, then: f.rule.then },
    idleForMs: f.idleForMs,
    did: f.did,
    reason: f.reason,
  });
}

/** The firing a `gpu_idle` record's line holds; null for anything else (never throws). */
export function decodeGpuIdleFiring(line: string): GpuIdleFiring | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const f = v as Record<string, unknown>;
  const rule = isGpuIdleRule(f.rule) ? f.rule : null;
  const isDid = f.did === 'notified' || f.did === 'stopped_job' || f.did === 'tearing_down';
  if (!rule || !isDid || typeof f.at !== 'number' || typeof f.idleForMs !== 'number') return null;
  if (typeof f.reason !== 'string') return null;
  return {
    at: f.at,
    rule,
    idleForMs: f.idleForMs,
    did: f.did as GpuIdleOutcome,
    reason: f.reason,
  };
}

/** A well-formed rule (the agent checks `configure`'s with it too). */
export function isGpuIdleRule(v: unknown): v is GpuIdleRule {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.belowPct === 'number' &&
    r.belowPct > 0 &&
    r.belowPct <= 100 &&
    typeof r.forMs === 'number' &&
    Number.isFinite(r.forMs) &&
    r.forMs > 0 &&
    GPU_IDLE_ACTIONS.includes(r.then as GpuIdleAction)
  );
}
