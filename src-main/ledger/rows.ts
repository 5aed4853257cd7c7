import type { JobStatus, JobPhase, LeaseState } from '../contract';

export interface RunRow {
  id: string;
  jobId: string;
  jobName: string;
  provider: string;
  count: number;
  pool: Record<string, unknown>;
  keep: boolean;
  status: JobStatus;
  detached: boolean;
  driverPid: number | null;
  createdAt: number;
  endedAt: number | null;
  failedReason: string | null;
  outputsDir: string;
}

export interface AttemptRow {
  nodeId: string;
  runId: string;
  attempt: number;
  status: JobStatus;
  phase: JobPhase;
  exitCode: number | null;
  reason: string | null;
  updatedAt: number;
}

export interface LeaseRow {
  label: string;
  leaseId: string | null;
  provider: string;
  runId: string | null;
  nodeId: string | null;
  state: LeaseState;
  destroyHandle: Record<string, string> | null;
  pricePerHour: number | null;
  requestedAt: number;
  createdAt: number | null;
  destroyedAt: number | null;
  destroyAttempts: number;
  lastError: string | null;
  reason: string | null;
}

export interface JournalEvent {
  seq: number;
  ts: number;
  runId: string | null;
  nodeId: string | null;
  kind: string;
  data: Record<string, unknown>;
}

export interface HostKeyPin {
  scope: string;
  endpoint: string;
  keyType: string;
  fingerprint: string;
  pinnedAt: number;
}
