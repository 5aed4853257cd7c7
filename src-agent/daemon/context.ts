// What the request handlers share: one per daemon.
import type { GangProbe } from './probes/gang-probe';
import type { HostKeyInput } from '../wire/host-key';
import type { NodePaths } from '../wire/paths';
import type { Capabilities, PhaseState, TeardownRecord } from '../wire/protocol';
import type { GpuProbe } from './probes/capabilities';
import type { DeadManSwitch } from './dead-man/dead-man-switch';
import type { HostSetup } from './host/host-setup';
import type { JobConfig } from './job/job-config';
import type { LogStore } from './logs/log-store';
import type { MetricsTailer } from './telemetry/metrics-tailer';
import type { NodeCache } from './environment/node-cache';
import type { Supervisor } from './phases/supervisor';

/** A connected client: told of phase changes (once it subscribed) and of teardown ones. */
export interface ClientListener {
  onPhase(state: PhaseState, afterSeq: number): void;
  onTeardown(record: TeardownRecord): void;
}

export interface DaemonContext {
  paths: NodePaths;
  agentId: string;
  hostKey: string | null;
  /** The host declaration the key was computed from (host/host-identity.ts). */
  hostDeclaration: HostKeyInput | undefined;
  startedAt: number;
  log: LogStore;
  supervisor: Supervisor;
  /** The nvidia-smi probe, started at daemon start and again after a host-setup entry
   *  with refresh_capabilities. */
  gpus: Promise<GpuProbe>;
  /** Language runtimes probed at the same times (`python.version`). */
  runtimes?: Promise<Capabilities>;
  /** The host-setup FIFO (host/host-setup.ts). */
  hostSetup: HostSetup;
  /** TENDER_CACHE and its measured size (environment/node-cache.ts). */
  cache: NodeCache;
  /** The job's TENDER_METRICS file, tailed into the log while a phase runs. */
  metrics: MetricsTailer;
  /** A distributed run's pre-flight listener and connector (probes/gang-probe.ts). */
  probe: GangProbe;
  /** Set by `configure`; undefined until then (secrets do not survive a restart). */
  job: JobConfig | undefined;
  /** Every open connection. */
  listeners: Set<ClientListener>;
  deadMan: DeadManSwitch;
  /** What the dead-man switch did (also one an earlier daemon began); null: never fired. */
  teardown(): TeardownRecord | null;
  /** Cancels everything, flushes the log, removes the socket; idempotent. */
  shutdown(graceMs: number): Promise<void>;
  /** Ends the process once the shutdown response has been written. */
  exit(): void;
  isShuttingDown: boolean;
}
