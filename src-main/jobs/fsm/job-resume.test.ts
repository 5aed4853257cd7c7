import { describe, expect, it } from 'vitest';
import { JobPhase } from '../../contract';
import type { JobCommand } from './job-fsm';
import { resumeCommand } from './job-resume';

describe('resumeCommand: what a picked-up job redoes', () => {
  const table: Record<JobPhase, JobCommand | null> = {
    provisioning: 'ProvisionNode',
    materializing: 'MaterializeWorkspace',
    setup: 'RunSetup',
    run: 'RunJob',
    collecting: 'CollectOutputs',
    tearing_down: 'TeardownNode',
    done: null,
  };

  it.each(Object.entries(table))('%s → %s', (phase, want) => {
    expect(resumeCommand(phase as JobPhase)).toBe(want);
  });

  it('the table covers every phase', () => {
    expect(Object.keys(table).sort()).toEqual([...JobPhase.options].sort());
  });
});
