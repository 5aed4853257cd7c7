import type { JobPhase } from '../../contract';
import type { JobCommand } from './job-fsm';

/** The command to redo for a job picked up in `phase` (after a detach or a crash). Each is
 *  safe to repeat: the NodeManager resumes its node, the agent's ops are idempotent, and a
 *  destroy of a gone lease succeeds. A done job has nothing to redo. */
export function resumeCommand(phase: JobPhase): JobCommand | null {
  switch (phase) {
    case 'provisioning':
      return 'ProvisionNode';
    case 'materializing':
      return 'MaterializeWorkspace';
    case 'setup':
      return 'RunSetup';
    case 'run':
      return 'RunJob';
    case 'collecting':
      return 'CollectOutputs';
    case 'tearing_down':
      return 'TeardownNode';
    case 'done':
      return null;
  }
}
