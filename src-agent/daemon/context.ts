// What the request handlers share: one per daemon.
import type { NodePaths } from '../paths';
import type { PhaseState } from '../protocol';
import type { GpuProbe } from './capabilities';
import type { JobConfig } from './job-config';
import type { LogStore } from './log-store';
import type { Supervisor } from './supervisor';

export interface PhaseListener {
  onPhase(state: PhaseState, afterSeq: number): void;
}

export interface DaemonContext {
  paths: NodePaths;
  agentId: string;
  hostKey: string | null;
  startedAt: number;
  log: LogStore;
  supervisor: Supervisor;
  /** The nvidia-smi probe, started once at daemon start. */
  gpus: Promise<GpuProbe>;
  /** Set by `configure`; undefined until then (secrets do not survive a restart). */
  job: JobConfig | undefined;
  /** Connections that receive phase events. */
  listeners: Set<PhaseListener>;
  /** Cancels everything, flushes the log, removes the socket; idempotent. */
  shutdown(graceMs: number): Promise<void>;
  /** Ends the process once the shutdown response has been written. */
  exit(): void;
  isShuttingDown: boolean;
}
