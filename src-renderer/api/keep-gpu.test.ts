import { describe, expect, it } from 'vitest';
import type { NodeGpu, NodeView } from '../../src-main/contract';
import { runView } from '../../src-main/contract/run-view.test-util';
import { keepGpu } from './keep-gpu';

const GPU: NodeGpu = {
  at: 1,
  gpus: [{ index: 0, util: 87, memUsedMiB: 1, memTotalMiB: 2 }],
  history: [],
  stale: false,
  stalled: false,
  lastLineAt: null,
};
const node = (id: string, gpu?: NodeGpu | null) =>
  ({ id, ...(gpu !== undefined ? { gpu } : {}) }) as NodeView;

describe('keepGpu', () => {
  it.each<{
    name: string;
    prev: NodeView[] | null;
    next: NodeView[];
    want: (NodeGpu | null | undefined)[];
  }>([
    { name: 'nothing cached', prev: null, next: [node('a')], want: [undefined] },
    {
      name: 'a view without it keeps the cached one',
      prev: [node('a', GPU)],
      next: [node('a')],
      want: [GPU],
    },
    {
      name: 'null (gone) replaces it',
      prev: [node('a', GPU)],
      next: [node('a', null)],
      want: [null],
    },
    {
      name: 'a fresh one replaces it',
      prev: [node('a', GPU)],
      next: [node('a', { ...GPU, at: 2 })],
      want: [{ ...GPU, at: 2 }],
    },
    {
      name: 'by node',
      prev: [node('a', GPU)],
      next: [node('b'), node('a')],
      want: [undefined, GPU],
    },
  ])('$name', ({ prev, next, want }) => {
    const out = keepGpu(prev ? runView({ nodes: prev }) : undefined, runView({ nodes: next }));
    expect(out.nodes.map((n) => n.gpu)).toEqual(want);
  });
});
