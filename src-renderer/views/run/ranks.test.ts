import { describe, expect, it } from 'vitest';
import type { NodeView } from '../../../src-main/contract';
import { nodeName, rankOf } from './ranks';

const node = (logicalId: string) => ({ logicalId }) as NodeView;

describe('ranks', () => {
  it('node-N is rank N', () => {
    expect(rankOf(node('node-0'))).toBe(0);
    expect(rankOf(node('node-12'))).toBe(12);
    expect(rankOf(node('odd'))).toBeNull();
    expect(nodeName(node('node-3'), true)).toBe('rank 3');
    expect(nodeName(node('node-3'), false)).toBe('node-3');
    expect(nodeName(node('odd'), true)).toBe('odd');
  });
});
