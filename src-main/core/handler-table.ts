// The contract's handler table over the composed services: each domain's `xHandlers(deps)`,
// given only the narrow deps it declares. No handler bodies here (they live in services/).
import type { EventBus } from '../base/event-bus';
import type { Handlers } from '../contract';
import type { Datastream } from '../datastream/datastream';
import type { WorkspaceSessions } from '../jobs/workspace/session-pool';
import type { Ledger } from '../ledger/ledger';
import type { ProviderRegistry } from '../providers/registry';
import { clusterHandlers } from '../services/clusters/cluster-handlers';
import { costHandlers } from '../services/costs/cost-handlers';
import { forwardHandlers } from '../services/forwards/forward-handlers';
import type { ForwardService } from '../services/forwards/forward-service';
import { hostHandlers } from '../services/hosts/host-handlers';
import { jobFileHandlers } from '../services/job-files/job-file-handlers';
import { bidHandlers } from '../services/leases/bid-handlers';
import { leaseHandlers } from '../services/leases/lease-handlers';
import type { DestroyRetries } from '../services/leases/destroy-retries';
import { agentBackfill } from '../services/logs/agent-backfill';
import { logHandlers } from '../services/logs/log-handlers';
import { cellAttribution } from '../services/metrics/cell-attribution';
import { metricsHandlers } from '../services/metrics/metrics-handlers';
import type { NodeFactory } from '../services/nodes/node-factory';
import { nodeSetupHandlers } from '../services/nodes/node-setup-handlers';
import type { SecretMemory } from '../services/notify/secret-memory';
import { offerHandlers } from '../services/offers/offer-handlers';
import { imageHandlers } from '../services/images/image-handlers';
import { cachedInspector } from '../providers/images/image-plan';
import { registryInspector } from '../providers/images/registry-client';
import { outputHandlers } from '../services/outputs/output-handlers';
import type { Reconciler } from '../services/reconcile/reconciler';
import { runHandlers } from '../services/runs/run-handlers';
import type { RunService } from '../services/runs/run-service';
import type { SecretStore } from '../services/settings/secret-store';
import { settingsHandlers } from '../services/settings/settings-handlers';
import { sshAccessHandlers } from '../services/ssh-config/ssh-access-handlers';
import type { TimingStore } from '../services/settings/timing-store';
import { statusHandlers } from '../services/status/status-handlers';
import { terminalHandlers } from '../services/terminals/terminal-handlers';
import type { Terminals } from '../services/terminals/terminals';
import type { GpuSamples } from '../services/views/gpu-samples';
import { workspaceHandlers } from '../services/workspace/workspace-handlers';
import type { CoreHooks } from './core-options';

/** A status asked this soon after a provider was listed reuses that listing. */
const STATUS_REUSE_MS = 5_000;

/** The parts compose.ts built, that the handlers are made from. */
export interface HandlerParts {
  home: string;
  ledger: Ledger;
  env: NodeJS.ProcessEnv;
  now: () => number;
  isWriter: boolean;
  requireWriter: () => void;
  hooks: CoreHooks;
  secrets: SecretStore;
  /** The secret values of the jobs this process started (what a notice is scrubbed of). */
  jobSecrets: SecretMemory;
  timing: TimingStore;
  bus: EventBus;
  datastream: Datastream;
  providers: ProviderRegistry;
  factory: NodeFactory;
  runs: RunService;
  reconciler: Reconciler;
  destroyRetries: DestroyRetries;
  gpuSamples: GpuSamples;
  workspaceSessions: WorkspaceSessions;
  terminals: Terminals;
  forwards: ForwardService;
}

export function handlerTable(p: HandlerParts): Handlers {
  const { home, ledger, env, now, isWriter, requireWriter, hooks, datastream } = p;
  const { providers, factory, runs, reconciler } = p;
  return {
    ...runHandlers({
      home,
      ledger,
      env,
      now,
      timing: p.timing.current,
      providers,
      factory,
      runs,
      requireWriter,
      secrets: p.jobSecrets,
    }),
    ...statusHandlers({
      ledger,
      now,
      runs,
      survey: () => reconciler.survey('status', STATUS_REUSE_MS),
      gpu: { prime: (ids) => p.gpuSamples.prime(ids), of: p.gpuSamples.summary.bind(p.gpuSamples) },
    }),
    ...logHandlers({
      ledger,
      datastream,
      backfill: agentBackfill({
        ledger,
        datastream,
        connect: (endpoint, deadlineMs) => factory.connector(endpoint, deadlineMs),
        isDriven: (runId) => runs.isDriven(runId),
        canStore: isWriter,
        emit: (records) => p.bus.emit('log.lines', { records }),
      }),
    }),
    ...metricsHandlers({ ledger, datastream, cellsOf: (runId) => cellAttribution(ledger, runId) }),
    ...leaseHandlers({
      ledger,
      providers,
      now,
      factory,
      runs,
      requireWriter,
      survey: () => reconciler.survey('teardown', 0),
      maxAttempts: () => p.timing.current().teardownMaxAttempts,
      retries: p.destroyRetries,
      afterDestroy: () => reconciler.forgetListings(),
    }),
    ...bidHandlers({
      ledger,
      providers,
      now,
      requireWriter,
      reconcile: () => reconciler.survey('bid', 0),
    }),
    ...offerHandlers({ providers }),
    ...imageHandlers({ inspect: cachedInspector(registryInspector()) }),
    ...workspaceHandlers({
      home,
      ledger,
      datastream,
      isWriter,
      now,
      factory,
      workspaceSessions: p.workspaceSessions,
    }),
    ...hostHandlers({ home, ledger, now, requireWriter }),
    ...clusterHandlers({ home, ledger, requireWriter }),
    ...terminalHandlers({ ledger, terminals: p.terminals }),
    ...forwardHandlers({ forwards: p.forwards }),
    ...jobFileHandlers(hooks),
    ...outputHandlers({ home, ledger, openPath: hooks.openPath }),
    ...settingsHandlers({
      home,
      secrets: p.secrets,
      env,
      isApp: hooks.pickFolder !== undefined,
      requireWriter,
      applyDefaults: () => p.timing.reload(),
    }),
    ...sshAccessHandlers({ home, ledger }),
    ...costHandlers({ ledger, now }),
    ...nodeSetupHandlers({ ledger, factory }),
  };
}
