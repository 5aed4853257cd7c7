// Rows as SQLite returns them, and their mapping to the ledger's row types.
import type { JobStatus, LeaseInterruption, LeasePolicy, LeaseState } from '../contract';
import type { RateChange } from '../contract/billing';
import type { AttemptRow, DeadManFacts, LeaseRow, RunRow } from './rows';

export const RUN_SELECT =
  'SELECT r.*, j.name AS job_name, j.source AS job_source FROM runs r JOIN jobs j ON j.id = r.job_id';

export interface RawRun {
  id: string;
  job_id: string;
  job_name: string;
  job_source: string | null;
  provider: string;
  count: number;
  pool_json: string;
  keep: number;
  status: JobStatus;
  detached: number;
  driver_pid: number | null;
  created_at: number;
  ended_at: number | null;
  failed_reason: string | null;
  outputs_dir: string;
  policy_json: string | null;
  origin: string | null;
}

export function toRunRow(r: RawRun): RunRow {
  return {
    id: r.id,
    jobId: r.job_id,
    jobName: r.job_name,
    source: r.job_source,
    provider: r.provider,
    count: r.count,
    pool: JSON.parse(r.pool_json) as Record<string, unknown>,
    keep: r.keep === 1,
    status: r.status,
    detached: r.detached === 1,
    driverPid: r.driver_pid,
    createdAt: r.created_at,
    endedAt: r.ended_at,
    failedReason: r.failed_reason,
    outputsDir: r.outputs_dir,
    policy: r.policy_json ? (JSON.parse(r.policy_json) as LeasePolicy) : null,
    origin: r.origin,
  };
}

export interface RawAttempt {
  node_id: string;
  run_id: string;
  attempt: number;
  status: AttemptRow['status'];
  phase: AttemptRow['phase'];
  exit_code: number | null;
  reason: string | null;
  updated_at: number;
}

export function toAttemptRow(r: RawAttempt): AttemptRow {
  return {
    nodeId: r.node_id,
    runId: r.run_id,
    attempt: r.attempt,
    status: r.status,
    phase: r.phase,
    exitCode: r.exit_code,
    reason: r.reason,
    updatedAt: r.updated_at,
  };
}

export interface RawLease {
  label: string;
  lease_id: string | null;
  provider: string;
  run_id: string | null;
  node_id: string | null;
  state: LeaseState;
  destroy_handle_json: string | null;
  price_per_hour: number | null;
  requested_at: number;
  created_at: number | null;
  destroyed_at: number | null;
  destroy_attempts: number;
  last_error: string | null;
  reason: string | null;
  deadman_json: string | null;
  interruption?: LeaseInterruption | null;
  bid?: number | null;
  min_bid?: number | null;
  rates_json?: string | null;
  served_from?: number | null;
  served_to?: number | null;
}

export function toLeaseRow(r: RawLease): LeaseRow {
  return {
    label: r.label,
    leaseId: r.lease_id,
    provider: r.provider,
    runId: r.run_id,
    nodeId: r.node_id,
    state: r.state,
    destroyHandle: r.destroy_handle_json
      ? (JSON.parse(r.destroy_handle_json) as Record<string, string>)
      : null,
    pricePerHour: r.price_per_hour,
    requestedAt: r.requested_at,
    createdAt: r.created_at,
    destroyedAt: r.destroyed_at,
    destroyAttempts: r.destroy_attempts,
    lastError: r.last_error,
    reason: r.reason,
    deadMan: r.deadman_json ? (JSON.parse(r.deadman_json) as DeadManFacts) : null,
    interruption: r.interruption ?? null,
    bid: r.bid ?? null,
    minBid: r.min_bid ?? null,
    rates: r.rates_json ? (JSON.parse(r.rates_json) as RateChange[]) : [],
    servedFrom: r.served_from ?? null,
    servedTo: r.served_to ?? null,
  };
}
