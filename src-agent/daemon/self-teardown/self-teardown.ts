// What a node does once its dead-man switch fired: stop the job, then have Vast.ai destroy
// the instance (or stop it, when what fired is outputs nobody collected), or remove the
// run's files and end the agent. Every step is safe to redo:
// a restarted daemon runs this again from the recorded state.
import { rmSync } from 'node:fs';
import { homedir } from 'node:os';
import type { NodePaths } from '../../wire/paths';
import type { SelfTeardown } from '../../wire/protocol';
import {
  ID_VAR,
  KEY_VAR,
  type InstanceCredential,
  findInstanceCredential,
} from './instance-credential';
import { destroyInstance, stopInstance } from './instance-destroy';
import type { LogStore } from '../logs/log-store';
import { findPodCredential, POD_ID_VAR, POD_KEY_VAR, terminatePod } from './runpod-teardown';
import type { Supervisor } from '../phases/supervisor';
import type { TeardownRecorder } from './teardown-record';

/** As `cancel`'s default: SIGTERM, then SIGKILL 10 s later. */
const JOB_GRACE_MS = 10_000;
/** Beyond the grace, how long to wait for SIGKILLed processes to be reaped. */
const REAP_MS = 3_000;

export interface SelfTeardownDeps {
  paths: NodePaths;
  log: LogStore;
  supervisor: Supervisor;
  recorder: TeardownRecorder;
  env: Record<string, string | undefined>;
  /** Shuts the daemon down (socket, lock) and ends the process. */
  endAgent: () => Promise<void>;
}

/** Runs (or continues) the recorded teardown. */
export async function runSelfTeardown(deps: SelfTeardownDeps): Promise<void> {
  const how = deps.recorder.teardown as SelfTeardown;
  await stopJob(deps);
  if (how.kind === 'runpod') {
    const credential = findPodCredential(deps.env, how.envFiles, homedir());
    if (credential) return terminateThisPod(deps, how.apiUrl, credential);
    const error = noPodCredentialError(how.envFiles);
    shout(deps, `dead-man switch: ${error}`);
    const removeError = removeRunFiles(deps.paths);
    deps.recorder.set('failed', removeError ? `${error}; ${removeError}` : error);
  } else if (how.kind === 'vastai') {
    const credential = findInstanceCredential(deps.env, how.envFiles, homedir());
    // Outputs nobody collected are not destroyed with the instance: it stops (its disk
    // billed as storage only) and the next Tender starts it, collects and destroys it.
    if (credential && deps.recorder.record?.cause === 'uncollected')
      return stopThisInstance(deps, how.apiUrl, credential);
    if (credential) return destroyThisInstance(deps, how.apiUrl, credential);
    const error = noCredentialError(how.envFiles);
    shout(deps, `dead-man switch: ${error}`);
    const removeError = removeRunFiles(deps.paths);
    deps.recorder.set('failed', removeError ? `${error}; ${removeError}` : error);
  } else if (deps.recorder.record?.cause === 'uncollected') {
    // A machine that does not bill (your own host, the local provider): the outputs wait
    // on it, and the agent stays (idle, starting nothing) so the next Tender that attaches
    // collects them and tears the node down the usual way.
    deps.log.append(
      'agent',
      'info',
      'dead-man switch: the outputs stay on this machine for the next Tender to collect',
    );
    deps.recorder.set('outputs_kept');
    return;
  } else {
    const removeError = removeRunFiles(deps.paths);
    if (removeError) {
      shout(deps, `dead-man switch: ${removeError}`);
      deps.recorder.set('failed', removeError);
    } else {
      deps.recorder.set('files_removed');
    }
  }
  deps.log.append('agent', 'info', 'dead-man switch: stopping the agent');
  await deps.endAgent();
}

async function stopJob(deps: SelfTeardownDeps): Promise<void> {
  await deps.supervisor.cancel(undefined, JOB_GRACE_MS);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    deps.supervisor.whenAllExited(),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, JOB_GRACE_MS + REAP_MS))),
  ]);
  clearTimeout(timer);
  await deps.log.flush();
}

/** One request of the instance about itself, as the teardown records and logs it. */
interface InstanceAsk {
  verb: 'destroy' | 'stop';
  busy: 'destroying' | 'stopping_instance';
  done: 'destroy_requested' | 'stop_requested';
  /** The log line before asking. */
  asking: (id: string) => string;
  send: typeof destroyInstance;
}

const DESTROY: InstanceAsk = {
  verb: 'destroy',
  busy: 'destroying',
  done: 'destroy_requested',
  asking: (id) => `dead-man switch: asking Vast.ai to destroy instance ${id}`,
  send: destroyInstance,
};

const STOP: InstanceAsk = {
  verb: 'stop',
  busy: 'stopping_instance',
  done: 'stop_requested',
  asking: (id) =>
    `dead-man switch: nobody collected the outputs; asking Vast.ai to stop instance ${id} (its disk and the outputs stay, billed as storage only, until a Tender starts it to collect them)`,
  send: stopInstance,
};

function destroyThisInstance(deps: SelfTeardownDeps, apiUrl: string, c: InstanceCredential) {
  return askVast(deps, apiUrl, c, DESTROY);
}

function stopThisInstance(deps: SelfTeardownDeps, apiUrl: string, c: InstanceCredential) {
  return askVast(deps, apiUrl, c, STOP);
}

async function askVast(
  deps: SelfTeardownDeps,
  apiUrl: string,
  credential: InstanceCredential,
  ask: InstanceAsk,
): Promise<void> {
  deps.recorder.set(ask.busy);
  const id = credential.containerId;
  deps.log.append('agent', 'info', ask.asking(id));
  const status = await ask.send(apiUrl, credential, {
    onFailure: (message, retryInMs) =>
      shout(deps, `dead-man switch: ${message}; retrying in ${retryInMs / 1000} s`),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
  deps.log.append(
    'agent',
    'info',
    status === 404
      ? `dead-man switch: Vast.ai has no instance ${id} any more (HTTP 404): already destroyed`
      : `dead-man switch: Vast.ai accepted the ${ask.verb} of instance ${id} (HTTP ${status})`,
  );
  await deps.log.flush(); // the platform may end this process any moment now
  // Gone already (404): nothing is left to stop either.
  deps.recorder.set(status === 404 ? 'destroy_requested' : ask.done);
}

/** RunPod: the pod terminates itself, whatever fired — outputs nobody collected too: podStop
 *  wipes the container disk (only a volume survives, and Tender rents none), so a stopped
 *  pod would keep billing for nothing. */
async function terminateThisPod(
  deps: SelfTeardownDeps,
  apiUrl: string,
  credential: { podId: string; apiKey: string },
): Promise<void> {
  deps.recorder.set('destroying');
  const id = credential.podId;
  deps.log.append('agent', 'info', `dead-man switch: asking RunPod to terminate pod ${id}`);
  const outcome = await terminatePod(apiUrl, credential, {
    onFailure: (message, retryInMs) =>
      shout(deps, `dead-man switch: ${message}; retrying in ${retryInMs / 1000} s`),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
  deps.log.append(
    'agent',
    'info',
    outcome === 'gone'
      ? `dead-man switch: RunPod has no pod ${id} any more: already terminated`
      : `dead-man switch: RunPod accepted the terminate of pod ${id}`,
  );
  await deps.log.flush(); // the platform may end this process any moment now
  deps.recorder.set('destroy_requested');
}

function noPodCredentialError(envFiles: readonly string[]): string {
  const where = ['the agent environment', ...envFiles].join(', ');
  return (
    `no RunPod pod credential: none of ${where} has both ${POD_ID_VAR} and ${POD_KEY_VAR}, ` +
    `so this pod cannot terminate itself and KEEPS BILLING; the job is stopped and the ` +
    `run's files are removed instead: terminate the pod from Tender or the RunPod console`
  );
}

/** Removes the workspace and the outputs (the logs stay); a message when that failed. */
function removeRunFiles(paths: NodePaths): string | undefined {
  const failed: string[] = [];
  for (const dir of [paths.workspace, paths.output]) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (err) {
      failed.push(`${dir}: ${(err as Error).message}`);
    }
  }
  return failed.length > 0 ? `could not remove the run's files (${failed.join('; ')})` : undefined;
}

function noCredentialError(envFiles: readonly string[]): string {
  const where = ['the agent environment', ...envFiles].join(', ');
  return (
    `no Vast.ai instance credential: none of ${where} has both ${ID_VAR} and ${KEY_VAR}, ` +
    `so this instance cannot destroy itself and KEEPS BILLING; the job is stopped and the ` +
    `run's files are removed instead: destroy the instance from Tender or the Vast.ai console`
  );
}

/** A failure the person must see: in the node's log and in agent.log. */
function shout(deps: SelfTeardownDeps, line: string): void {
  deps.log.append('agent', 'stderr', line);
  process.stderr.write(`${line}\n`);
}
