import { describe, expect, it } from 'vitest';
import type { OutputFile } from '../../../src-main/contract';
import { outputGroups } from './output-groups';

const f = (nodeId: string, path: string, cellId?: string): OutputFile => ({
  nodeId,
  path,
  size: 1,
  ...(cellId !== undefined ? { cellId } : {}),
});

describe('outputs by folder', () => {
  it.each<[string, OutputFile[], [string, string | null, string, number][]]>([
    ['none', [], []],
    [
      'one node',
      [f('r-a/node-0', 'out/a.txt'), f('r-a/node-0', 'out/b.txt')],
      [['node-0', null, 'node-0/outputs/', 2]],
    ],
    [
      'a sweep’s cells, by id, the node that ran each named',
      [
        f('r-a/node-1', 'seed.txt', 'j10'),
        f('r-a/node-0', 'seed.txt', 'j2'),
        f('r-a/node-0', 'loss.csv', 'j2'),
        f('', 'seed.txt', 'j0'),
      ],
      [
        ['', 'j0', 'jobs/j0/outputs/', 1],
        ['node-0', 'j2', 'jobs/j2/outputs/', 2],
        ['node-1', 'j10', 'jobs/j10/outputs/', 1],
      ],
    ],
    [
      'nodes before cells',
      [f('r-a/node-0', 'x', 'j0'), f('r-a/node-0', 'y')],
      [
        ['node-0', null, 'node-0/outputs/', 1],
        ['node-0', 'j0', 'jobs/j0/outputs/', 1],
      ],
    ],
  ])('%s', (_, files, want) => {
    expect(
      outputGroups(files).map((g) => [g.nodeName, g.cellId, g.folder, g.files.length]),
    ).toEqual(want);
  });
});
