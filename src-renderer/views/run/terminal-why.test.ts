import { describe, expect, it } from 'vitest';
import type { NodeStage } from '../../../src-main/contract';
import { terminalWhyNot } from './terminal-why';

describe('whether a node’s Terminal opens', () => {
  it.each<[NodeStage, RegExp | null]>([
    ['dormant', null],
    ['handed_off', null],
    ['destroyed', /node-0 is destroyed: there is no machine left/],
    ['destroying', /node-0 is being destroyed/],
    ['released', /passed its lease to a later run/],
    ['failed', /node-0 failed/],
    ['bootstrap_running', /needs the node running with its agent up/],
    ['lease_created', /needs the node running with its agent up/],
  ])('%s: %s', (stage, why) => {
    const got = terminalWhyNot({ stage, logicalId: 'node-0' });
    if (why === null) expect(got).toBeNull();
    else expect(got).toMatch(why);
  });
});
