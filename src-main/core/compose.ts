// The composition root: the one place that constructs the parts and wires them together.
// Each service gets only the narrow deps it declares. What it decides itself is wiring: what
// log batches feed, that only the writer notes forwards and sends notices, and the order in
// which close() stops the parts.
import { crashPoint } from '../base/crash-points';
import { createInProcessClient, type TenderClient } from '../api/in-process';
import { EventBus } from '../base/event-bus';
import { homePaths } from '../base/paths';
import type { Handlers } from '../contract';
import { Datastream } from '../datastream/datastream';
import { hashCacheSaves } from '../jobs/workspace/hash-cache';
import { recoveredFrom, runAttempts } from '../services/notify/recovered-attempts';
import { NodeManifestMemory, nodeManifestDir } from '../jobs/workspace/node-manifest-memory';
import { WorkspaceSessions } from '../jobs/workspace/session-pool';
import type { Ledger } from '../ledger/ledger';
import { loadAgentBundle, type AgentBundle } from '../nodes/agent-bundle';
import { runtimeLookup } from '../nodes/runtime-bundle';
import { pinsOf } from '../nodes/ssh-connect';
import { ProviderRegistry } from '../providers/registry';
import { ForwardService } from '../services/forwards/forward-service';
import { NodeFactory } from '../services/nodes/node-factory';
import { nodeMail } from '../services/nodes/node-mail';
import { NotifyService } from '../services/notify/notify-service';
import { SecretMemory } from '../services/notify/secret-memory';
import { Reconciler } from '../services/reconcile/reconciler';
import { PoolSecrets } from '../services/runs/pool-secrets';
import { DestroyRetries } from '../services/leases/destroy-retries';
import { RunService } from '../services/runs/run-service';
import { SshConfigKeeper } from '../services/ssh-config/ssh-config-keeper';
import { FileSecretStore, providerKeys } from '../services/settings/secret-store';
import { readNotify } from '../services/settings/settings-store';
import { TimingStore } from '../services/settings/timing-store';
import { Terminals } from '../services/terminals/terminals';
import { EventProjector } from '../services/views/event-projector';
import { GpuSamples } from '../services/views/gpu-samples';
import { journalGpuIdleFirings } from '../services/views/gpu-idle-firings';
import { writerGuard } from '../services/writer-guard';
import { handlerTable } from './handler-table';
import { defaultProviders } from './default-providers';
import { ShellPool } from '../transport/shell-pool';
import type { CoreOptions } from './core-options';

export interface Composition {
  bus: EventBus;
  datastream: Datastream;
  providers: ProviderRegistry;
  timing: TimingStore;
  reconciler: Reconciler;
  runs: RunService;
  /** This process's port forwards (docs/forwards.md); the job opens a node's declared ones. */
  forwards: ForwardService;
  handlers: Handlers;
  client: TenderClient;
  /** Scrubs the secret values of the jobs this process started and the provider keys from
   *  text (what the notices are scrubbed of; the MCP server's answers too). */
  redactor(): (text: string) => string;
  /** Stops every part, in the order that lets none act on a closed one. */
  close(): Promise<void>;
}

export function compose(home: string, ledger: Ledger, isWriter: boolean, opts: CoreOptions) {
  const now = opts.now ?? Date.now;
  const env = opts.env ?? process.env;
  const hooks = opts.hooks ?? {};
  const secrets = opts.secrets ?? new FileSecretStore(home);
  const requireWriter = writerGuard(home, isWriter);
  const timing = new TimingStore(home, opts.timing);
  const bus = new EventBus();
  const datastream = new Datastream(homePaths(home).datastream, (records) => {
    gpuSamples.feed(records);
    journalGpuIdleFirings(gpuIdle, records); // the GPU idle rule fired: journaled, shown
    forwards.feed(records); // a token a job prints shows on its forwards
    bus.emit('log.lines', { records });
  });
  // Each node's GPU samples, from the same batches; a new sample re-emits the node's view.
  const gpuSamples: GpuSamples = new GpuSamples({
    now,
    readTail: (nodeId, limit) =>
      datastream.read(nodeId.slice(0, nodeId.indexOf('/')), {
        nodeId,
        channel: 'agent',
        fromSeq: 1,
        limit,
        tail: limit,
      }),
    onChange: (nodeIds) => nodeIds.forEach((id) => projector.emitGpu(id)),
  });
  const gpuOf = gpuSamples.summary.bind(gpuSamples);
  // A firing changes its node's view, and its run's (the notify service listens to runs).
  const gpuIdle = {
    ledger,
    isWriter,
    now,
    onChange: (id: string) => {
      projector.emitNode(id);
      projector.emitRun(id.slice(0, id.indexOf('/')));
    },
  };
  // ssh connections kept a few seconds between their users (the bootstrap's for the link,
  // the push's for the destroy): closed with the core.
  const shellPool = new ShellPool({ lingerMs: () => timing.current().shellLingerMs });
  opts.earlyDials?.handTo(shellPool, pinsOf({ ledger, now }));
  const providers = new ProviderRegistry(
    (opts.providers ?? defaultProviders)({ home, now, ledger, env, secrets, shellPool }),
  );
  const workspaceSessions = new WorkspaceSessions();
  const terminals = new Terminals(bus, { home, ledger, now });
  let bundle: AgentBundle | null = null;
  // The projector and the run service refer to each other through these late-bound arrows.
  const projector: EventProjector = new EventProjector({
    ledger,
    bus,
    now,
    timing: timing.current,
    linkState: (id) => runs.linkState(id),
    pullOf: (id) => runs.pullOf(id),
    // A node going away takes its workspace session (and that process on it) along, and
    // its forwards.
    onNodeLeaseGone: (nodeId) => {
      void workspaceSessions.closeNode(nodeId);
      void forwards.closeNode(nodeId);
    },
    gpuOf,
  });
  // The pool secrets given with a run's start (its image's registry login), in memory only.
  const poolSecrets = new PoolSecrets(env);
  const factory = new NodeFactory({
    shellPool,
    poolSecret: (runId, name) => poolSecrets.lookup(runId, name),
    home,
    ledger,
    datastream,
    now,
    timing: timing.current,
    agentBundle: () => (bundle ??= loadAgentBundle(opts.env)),
    runtimeFor: runtimeLookup(opts.env),
    onNodeChange: (rec) => projector.emitNode(rec.id),
    manifestMemory: new NodeManifestMemory(nodeManifestDir(home)),
    isNodeInUse: (nodeId) => terminals.isOpenOn(nodeId),
    env,
    // Late-bound: the forward service is made below, from the factory's connector.
    forwards: {
      open: (nodeId, ports, remotePorts) => forwards.openDeclared(nodeId, ports, remotePorts),
      close: (nodeId) => forwards.closeNode(nodeId),
    },
  });
  const forwards: ForwardService = new ForwardService({
    ledger,
    connector: (endpoint, deadlineMs) => factory.connector(endpoint, deadlineMs),
    isDriven: (runId) => runs.isDriven(runId),
    readAgentLog: (nodeId, fromSeq, limit) =>
      datastream.read(nodeId.slice(0, nodeId.indexOf('/')), {
        nodeId,
        channel: 'agent',
        fromSeq,
        limit,
      }),
    onChange: (runId, list) => bus.emit('forward.changed', { runId, forwards: list }),
    // Only the writer appends to the datastream.
    ...(isWriter
      ? {
          note: (nodeId: string, line: string) =>
            datastream.append(nodeId, 'events', {
              source: 'event',
              stream: 'info',
              line,
              ts: now(),
            }),
        }
      : {}),
  });
  const destroyRetries = new DestroyRetries({
    ledger,
    factory,
    drivenManagerOf: (id) => runs.managerOf(id),
    maxAttempts: () => timing.current().teardownMaxAttempts,
  });
  const reconciler = new Reconciler({
    ledger,
    providers,
    now,
    everyMs: timing.current().reconcileEveryMs,
    canWrite: isWriter,
    deliver: nodeMail({ ledger, factory, managerOf: (id) => runs.managerOf(id) }),
    retryDestroy: (nodeId, provider) => destroyRetries.retry(nodeId, provider),
  });
  const runs: RunService = new RunService({
    poolSecrets,
    home,
    gpuOf,
    ledger,
    datastream,
    providers,
    env,
    now,
    timing: timing.current,
    factory,
    requireWriter,
    crashPoint: (name) => crashPoint(name, env),
    recheck: () => reconciler.tick('wake'),
    emitNode: projector.emitNode,
    emitRun: projector.emitRun,
  });
  // Being told: only the writer tells, so a reader never sends (services/notify/).
  const jobSecrets = new SecretMemory();
  const notify = isWriter
    ? new NotifyService({
        ledger,
        bus,
        now,
        settings: () => readNotify(home),
        runView: (id) => (ledger.getRun(id) ? runs.view(id) : null),
        attempts: (id) => runAttempts(ledger, id),
        recoveredFrom: (id, nodeId, attempt) => recoveredFrom(ledger, id, nodeId, attempt),
        redactor: () => jobSecrets.redactor(providerKeys(secrets, env)),
        desktop: hooks.notify,
      })
    : null;
  // Every run start (run.start, run.rerun, rerun --receipt) remembers its secrets in
  // jobSecrets and has the run pre-flight first (services/runs/run-start.ts).
  const handlers = handlerTable({
    home,
    ledger,
    env,
    now,
    isWriter,
    requireWriter,
    hooks,
    secrets,
    jobSecrets,
    destroyRetries,
    timing,
    bus,
    datastream,
    providers,
    factory,
    runs,
    reconciler,
    gpuSamples,
    workspaceSessions,
    terminals,
    forwards,
  });
  notify?.start();
  // The user's own ssh entries, rebuilt from the ledger at this look and at lease changes.
  const sshConfig = new SshConfigKeeper({ home, ledger, isWriter });
  sshConfig.start();
  const composition: Composition = {
    bus,
    datastream,
    providers,
    timing,
    reconciler,
    runs,
    forwards,
    handlers,
    client: createInProcessClient(handlers, bus),
    redactor: () => jobSecrets.redactor(providerKeys(secrets, env)),
    close: async () => {
      await notify?.close(); // journals what it sent while the ledger is open
      await reconciler.stop();
      await forwards.closeAll(); // no listener outlives the core
      terminals.closeAll();
      await workspaceSessions.closeAll();
      await hashCacheSaves(); // a job's push saves its hashes behind it
      runs.close();
      // Managers outlive their drivers (a destroy still retrying): none may act after this.
      factory.stopAll();
      await Promise.allSettled(providers.all().map((p) => p.close?.())); // kept connections
      await shellPool.closeAll();
      projector.close();
      sshConfig.close(); // what the ledger says last, before it closes
      datastream.close();
      ledger.close();
    },
  };
  return composition;
}
