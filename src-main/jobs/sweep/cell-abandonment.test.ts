import { describe, expect, it } from 'vitest';
import { initialJobState, type JobEvent, type JobState } from '../fsm/job-fsm';
import { cellAbandonment } from './cell-abandonment';

const base = initialJobState({ hasWorkspace: false, hasSetup: false });
const at = (phase: JobState['phase'], attempt = 0): JobState => ({ ...base, phase, attempt });

describe('cellAbandonment: a sweep node leaves its run phase under a running cell', () => {
  it.each<[string, JobEvent, JobState, JobState, unknown]>([
    ['a stop', { type: 'OperatorStop' }, at('run'), at('collecting'), { cause: 'stopped' }],
    [
      'a stop with its reason',
      { type: 'OperatorStop', reason: 'budget reached' },
      at('run'),
      at('collecting'),
      { cause: 'stopped', reason: 'budget reached' },
    ],
    [
      'a lost node',
      { type: 'NodeLost', reason: 'gone' },
      at('run'),
      at('provisioning', 1),
      { cause: 'node_lost', reason: 'gone' },
    ],
    [
      'a preemption',
      { type: 'NodeLost', reason: 'outbid', cause: 'preempted' },
      at('run'),
      at('provisioning', 1),
      { cause: 'preempted', reason: 'outbid' },
    ],
    [
      'a fault',
      { type: 'NodeFault', reason: 'boom' },
      at('run'),
      at('tearing_down'),
      { cause: 'fault', reason: 'boom' },
    ],
    [
      'the queue done',
      { type: 'JobExited', code: 0, signal: null },
      at('run'),
      at('collecting'),
      null,
    ],
    [
      'still running the same attempt',
      { type: 'NodeFault', reason: 'x' },
      at('run'),
      at('run'),
      null,
    ],
    [
      'not in its run phase',
      { type: 'NodeFault', reason: 'x' },
      at('setup'),
      at('tearing_down'),
      null,
    ],
  ])('%s', (_, event, prev, next, want) => {
    expect(cellAbandonment(event, prev, next)).toEqual(want);
  });
});
