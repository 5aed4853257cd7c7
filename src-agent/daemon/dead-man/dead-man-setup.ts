// Builds the daemon's dead-man switch, the record of what it did, and the teardown it
// starts; `resume()` continues a teardown an earlier daemon began.
import { performance } from 'node:perf_hooks';
import type { NodePaths } from '../../wire/paths';
import type { ClientListener, DaemonContext } from '../context';
import { DeadManSwitch } from './dead-man-switch';
import type { GpuSampler } from '../telemetry/gpu-sampler';
import type { LogStore } from '../logs/log-store';
import { runSelfTeardown } from '../self-teardown/self-teardown';
import type { Supervisor } from '../phases/supervisor';
import { TeardownRecorder, isFinal } from '../self-teardown/teardown-record';

/** How long a restarted instance waits for a Tender before it stops itself again. */
const RESTOP_MS = 30 * 60_000;

export interface DeadManSetupDeps {
  paths: NodePaths;
  log: LogStore;
  supervisor: Supervisor;
  listeners: Set<ClientListener>;
  /** The GPU samples' idle clock, for the policy's `idleGpuUtilBelow`. */
  gpu: Pick<GpuSampler, 'idle'>;
  /** The daemon's context, once built (the teardown ends the agent through it). */
  ctx: () => DaemonContext;
}

export function setUpDeadMan(deps: DeadManSetupDeps) {
  const { paths, log, supervisor } = deps;
  const recorder = new TeardownRecorder(
    paths.teardownJson,
    (record) => {
      for (const l of deps.listeners) l.onTeardown(record);
    },
    (err) => process.stderr.write(`could not write ${paths.teardownJson}: ${err.message}\n`),
  );
  const teardown = () =>
    runSelfTeardown({
      paths,
      log,
      supervisor,
      recorder,
      env: process.env,
      endAgent: () =>
        deps
          .ctx()
          .shutdown(0)
          .then(() => deps.ctx().exit()),
    }).catch((err: Error) => {
      const message = `dead-man switch: teardown failed: ${err.message}`;
      log.append('agent', 'stderr', message);
      process.stderr.write(`${err.stack ?? message}\n`);
      recorder.set('failed', message);
    });
  /** An instance that stopped itself for its uncollected outputs runs again: a Tender
   *  started it to collect them. They wait here; if no Tender renews the switch within
   *  RESTOP_MS, the instance stops itself again. */
  const keptAfterRestart = () => {
    log.append(
      'agent',
      'info',
      `dead-man switch: started again after stopping for its uncollected outputs; they wait here for the Tender that started it (this instance stops itself again in ${RESTOP_MS / 60_000} min if none comes)`,
    );
    recorder.set('outputs_kept');
    const how = recorder.teardown;
    const again = setTimeout(() => {
      const now = recorder.record;
      if (!how || now?.state !== 'outputs_kept') return; // a Tender came: armed again
      recorder.begin({ cause: 'uncollected', reason: now.reason }, how, Date.now());
      void teardown();
    }, RESTOP_MS);
    again.unref();
  };
  const deadManSwitch = new DeadManSwitch({
    nowMono: () => performance.now(),
    // A host-setup entry (a driver install on a warm node) keeps the node busy too.
    isPhaseRunning: () =>
      Object.values(supervisor.states()).some((s) => s.state === 'running') ||
      !deps.ctx().hostSetup.isDrained(),
    // Only the job's run phase is judged by its GPUs: setup and a host-setup entry (a
    // driver install) leave them idle by nature.
    gpuIdleSince: (threshold) =>
      supervisor.states().run?.state === 'running' && deps.ctx().hostSetup.isDrained()
        ? deps.gpu.idle.belowSince(threshold)
        : null,
    isShuttingDown: () => deps.ctx().isShuttingDown,
    firedRecord: () => recorder.record,
    reopen: () => {
      log.append(
        'agent',
        'info',
        'dead-man switch: a Tender came back for the kept outputs; armed again',
      );
      recorder.clear();
    },
    onFire: (firing, how) => {
      log.append('agent', 'info', `dead-man switch: ${firing.reason}; tearing this node down`);
      recorder.begin(firing, how, Date.now());
      void teardown();
    },
  });
  return {
    switch: deadManSwitch,
    record: () => recorder.record,
    /** Continues a teardown left unfinished by an earlier daemon. */
    resume(): void {
      const begun = recorder.record;
      // A daemon starts only when a Tender starts it; after a self-stop that is the Tender
      // come for the outputs — also when the stop ended this daemon before it could record
      // Vast.ai's answer (`stopping_instance`).
      if (begun?.state === 'stop_requested' || begun?.state === 'stopping_instance')
        return keptAfterRestart();
      if (!begun || isFinal(begun.state)) return;
      log.append('agent', 'info', `dead-man switch fired earlier (${begun.reason}); continuing`);
      void teardown();
    },
  };
}
