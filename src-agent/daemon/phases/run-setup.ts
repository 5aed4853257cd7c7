// run_setup: the job's per-run preparation, run at the start of the run phase before its
// command, in the same environment and workspace, with its own log section. Only when it
// exits 0 does the run's command start; otherwise the phase ends with its exit.
import type { Phase } from '../../wire/protocol';
import type { LogStore } from '../logs/log-store';
import { type PhaseExit, type PhaseLaunch, spawnPhase } from './phase-process';

export interface RunSetupHooks {
  onExit(exit: PhaseExit): void;
  /** The phase's own command started: its process group is the one to cancel now. */
  onLeader(pid: number): void;
  isCancelled(): boolean;
}

/** Spawns `runSetup`, then the phase's command; resolves with run_setup's pid. */
export function spawnAfterRunSetup(
  phase: Phase,
  launch: PhaseLaunch,
  runSetup: string,
  log: LogStore,
  hooks: RunSetupHooks,
): Promise<number> {
  log.append('run_setup', 'info', `run_setup: ${launch.redact(runSetup)}`);
  return spawnPhase('run_setup', { ...launch, command: runSetup }, log, (exit) => {
    const how = exitText(exit);
    log.append('run_setup', 'info', `run_setup ${how}`);
    if (exit.code !== 0 || hooks.isCancelled()) {
      const why =
        hooks.isCancelled() && exit.code === 0 ? 'cancelled' : `run_setup failed (${how})`;
      log.append('agent', 'stderr', `${why}: ${phase} not started`);
      return hooks.onExit(exit);
    }
    spawnPhase(phase, launch, log, hooks.onExit).then(hooks.onLeader, (err: Error) => {
      log.append('agent', 'stderr', err.message);
      hooks.onExit({ code: null, signal: null });
    });
  });
}

function exitText(exit: PhaseExit): string {
  if (exit.signal) return `was killed by ${exit.signal}`;
  return exit.code === null ? 'ended' : `exited with code ${exit.code}`;
}
