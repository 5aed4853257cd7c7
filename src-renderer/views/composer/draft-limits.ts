import { formatDuration, parseDuration, type PolicyInput } from '../../../src-main/contract';
import type { DraftLimits } from '../../store/ui';
import { gpuIdleToLimits, limitsToGpuIdle } from './draft-gpu-idle';

type DurationKey = 'maxDuration' | 'idleTimeout' | 'unreachableGrace';
const DURATION_FIELDS: [DurationKey, 'maxDurationMs' | 'idleTimeoutMs' | 'unreachableGraceMs'][] = [
  ['maxDuration', 'maxDurationMs'],
  ['idleTimeout', 'idleTimeoutMs'],
  ['unreachableGrace', 'unreachableGraceMs'],
];

/** The limits as typed → the run's policy (fields left empty come from Settings), or what is
 *  wrong with them, by field. */
export function limitsToPolicy(limits: DraftLimits): {
  policy: PolicyInput;
  problems: Partial<Record<keyof DraftLimits, string>>;
} {
  const policy: PolicyInput = {};
  const problems: Partial<Record<keyof DraftLimits, string>> = {};
  const budget = limits.budgetUsd.trim().replace(/^\$/, '');
  if (budget) {
    const usd = Number(budget);
    if (/^none$/i.test(budget)) policy.budgetUsd = null;
    else if (Number.isFinite(usd) && usd > 0) policy.budgetUsd = usd;
    else problems.budgetUsd = 'Dollars, like 5 or 12.50 (or none)';
  }
  for (const [key, field] of DURATION_FIELDS) {
    const text = limits[key].trim();
    if (!text) continue;
    const ms = parseDuration(text);
    if (ms === undefined) problems[key] = 'A duration, like 6h, 90m, 1h30m (or none)';
    else if (field !== 'unreachableGraceMs') policy[field] = ms;
    else if (ms === null || ms < 1_000)
      problems[key] = 'At least 1s: a node must know when to give up';
    else policy[field] = ms;
  }
  const gpuIdle = limitsToGpuIdle(limits);
  if (gpuIdle.rule) policy.gpuIdle = gpuIdle.rule;
  Object.assign(problems, gpuIdle.problems);
  return { policy, problems };
}

/** A policy from a tender.toml → the limits as the composer shows them. */
export function policyToLimits(policy: PolicyInput): DraftLimits {
  const text = (ms: number | null | undefined) => (ms === undefined ? '' : formatDuration(ms));
  return {
    budgetUsd:
      policy.budgetUsd === undefined
        ? ''
        : policy.budgetUsd === null
          ? 'none'
          : String(policy.budgetUsd),
    maxDuration: text(policy.maxDurationMs),
    idleTimeout: text(policy.idleTimeoutMs),
    unreachableGrace: text(policy.unreachableGraceMs),
    ...gpuIdleToLimits(policy.gpuIdle),
  };
}
