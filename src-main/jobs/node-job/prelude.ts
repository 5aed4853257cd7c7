import type { Phase } from '../../../src-agent/wire/protocol';
import type { Phases, Prelude } from './attempt';
import { hostSetupScript } from '../host/host-declaration';
import { sendHostSetupSecrets } from '../host/host-setup-secrets-send';
import { type AgentRequest, waitForHostSetup } from '../host/host-setup-wait';
import { shapeImage } from '../host/setup-env-request';
import { configureParams } from '../secrets/job-secrets';
import type { JobHost } from './job-host';

// What a phase waits for before its start: the node's host setup (for the job's first
// phase: the agent refuses to start anything before it is drained) and the agent
// configured. Begun at the phase's start, or, on a node made for this job, while its
// workspace is pushed (nothing in either touches the workspace, and an agent with no job
// before has no earlier workspace to clear): the run then starts one round trip after
// the push lands instead of two.

/** The job's first phase (the one after the workspace). */
export const firstPhase = (h: JobHost): Phase => (h.current.hasSetup ? 'setup' : 'run');

/** Begins `phase`'s prelude; `isCurrent` says whether the job still heads for it (a stop
 *  ends the host setup's wait). */
export function beginPrelude(h: JobHost, phase: Phase, isCurrent: () => boolean): Prelude {
  const link = h.attempt.link();
  const { job } = h.deps;
  const request: AgentRequest = (op, params, ms) => link.request(op, params, ms);
  // Without a gang nothing configure sends waits on the host setup (the agent refuses only
  // `start` before it is drained): sent beside the host setup's status.
  const configured = h.deps.gang || h.deps.sweep ? null : configureAgent(h);
  const waitsForHost = phase === 'setup' || job.setup === undefined;
  const host = waitsForHost
    ? (async () => {
        // Entries that name secrets wait on the node until these values arrive.
        await sendHostSetupSecrets(request, job);
        return waitForHostSetup({
          request,
          declared: job.host_setup.map(hostSetupScript),
          shouldStop: () => !isCurrent(),
          onWaiting: h.note,
        });
      })()
    : null;
  // Read by the phase, or dropped with the attempt when the job moves on.
  configured?.catch(() => {});
  host?.catch(() => {});
  return { phase, host, configured };
}

/** Configures the agent for this job (`gangEnv`: a distributed rank's environment); the
 *  phase states it holds after. */
export async function configureAgent(
  h: JobHost,
  gangEnv?: Record<string, string>,
): Promise<Phases> {
  const link = h.attempt.link();
  const params = configureParams(h.deps.agentJobId, h.deps.job, {
    freshSetup: h.deps.freshSetup,
    attempt: h.current.attempt,
    image: shapeImage(h.deps.manager.record.desired.shape),
    gpuIdle: h.deps.gpuIdle,
  });
  if (gangEnv) params.gang = gangEnv;
  // What the agent holds after configure is what counts: a warm node reports the phases
  // of the job before until this job is configured (which clears them). Configure says
  // them; an agent from before that is asked after.
  const { phases } = await link.request('configure', params);
  return phases ?? (await link.request('status', {})).phases;
}
