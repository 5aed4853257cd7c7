import { describe, expect, it } from 'vitest';
import type { RunPlan } from '../../../src-main/contract';
import { placementSummary, routeOf, type PlacementOptions } from './placement';

const NOW = 1_700_000_000_000;
const MIN = 60_000;

const warm = (leaseId: string, over: Partial<NonNullable<RunPlan['nodes'][0]['warm']>> = {}) => ({
  leaseId,
  fromRun: 'r-aaaaaa',
  pricePerHour: null,
  idleEndsAt: null,
  setupCached: false,
  ...over,
});

const plan = (warms: (ReturnType<typeof warm> | null)[], passedOver: string[] = []): RunPlan => ({
  hostKey: 'hk1_b',
  sweep: null,
  nodes: warms.map((w, i) => ({ logicalId: `node-${i}`, warm: w })),
  passedOver,
});

const opts: PlacementOptions = { now: NOW, useNew: false, freshSetup: false };
const PASSED = 'warm node vastai:9 has hk1_a, this job needs hk1_b: host_setup differs';

describe('placementSummary', () => {
  it.each<[string, RunPlan, Partial<PlacementOptions>, string, string[]]>([
    ['one new node', plan([null]), {}, 'Rents a new node', []],
    [
      'one warm node, setup cached',
      plan([warm('vastai:123', { setupCached: true })]),
      {},
      'Reuses warm node vastai:123 (setup cached, kept by r-aaaaaa)',
      [],
    ],
    [
      'one warm node with an idle deadline',
      plan([warm('vastai:123', { idleEndsAt: NOW + 12 * MIN })]),
      {},
      'Reuses warm node vastai:123 (kept by r-aaaaaa, idle ends in 12 min)',
      [],
    ],
    [
      'a cached setup that is rebuilt on request',
      plan([warm('vastai:123', { setupCached: true })]),
      { freshSetup: true },
      'Reuses warm node vastai:123 (kept by r-aaaaaa)',
      [],
    ],
    [
      'two warm nodes and one new',
      plan([warm('vastai:1'), null, warm('vastai:2', { fromRun: 'r-bbbbbb' })]),
      {},
      'Reuses 2 warm nodes, rents 1',
      [
        'node-0: warm node vastai:1 (kept by r-aaaaaa)',
        'node-1: a new node',
        'node-2: warm node vastai:2 (kept by r-bbbbbb)',
      ],
    ],
    [
      'every node warm',
      plan([warm('vastai:1'), warm('vastai:2')]),
      {},
      'Reuses 2 warm nodes',
      [
        'node-0: warm node vastai:1 (kept by r-aaaaaa)',
        'node-1: warm node vastai:2 (kept by r-aaaaaa)',
      ],
    ],
    [
      'three new nodes',
      plan([null, null, null]),
      {},
      'Rents 3 new nodes',
      ['node-0: a new node', 'node-1: a new node', 'node-2: a new node'],
    ],
    [
      '"Use a new node" with one warm node',
      plan([warm('vastai:123')]),
      { useNew: true },
      'Rents a new node; warm node vastai:123 stays for another run',
      [],
    ],
    [
      '"Use a new node" with two warm nodes',
      plan([warm('vastai:1'), warm('vastai:2')]),
      { useNew: true },
      'Rents 2 new nodes; 2 warm nodes stay for another run',
      [],
    ],
  ])('%s', (_, p, over, headline, nodes) => {
    const s = placementSummary(p, { ...opts, ...over });
    expect(s.headline).toBe(headline);
    expect(s.nodes).toEqual(nodes);
  });

  it('counts the warm nodes it would claim and passes the reasons others were not taken', () => {
    expect(placementSummary(plan([null], [PASSED]), opts)).toMatchObject({
      headline: 'Rents a new node',
      passedOver: [PASSED],
      warmCount: 0,
    });
    expect(placementSummary(plan([warm('vastai:1'), null]), opts).warmCount).toBe(1);
    expect(placementSummary(plan([warm('vastai:1')]), { ...opts, useNew: true }).warmCount).toBe(1);
  });

  it('a Slurm cluster’s nodes are allocations it submits', () => {
    expect(placementSummary(plan([null]), { ...opts, provider: 'slurm' }).headline).toBe(
      'Submits an allocation (one node)',
    );
    expect(placementSummary(plan([null, null]), { ...opts, provider: 'slurm' }).headline).toBe(
      'Submits 2 allocations, one node each',
    );
  });

  it.each<[string, string | undefined, string[] | undefined, string | null]>([
    ['one marketplace', 'vastai', undefined, null],
    ['no provider', undefined, undefined, null],
    ['Slurm', 'slurm', undefined, null],
    [
      'two in order',
      'runpod,vastai',
      undefined,
      'Tries RunPod, then Vast.ai if RunPod has no capacity',
    ],
    [
      'three in order',
      'lambda,runpod,vastai',
      undefined,
      'Tries Lambda Cloud, then RunPod, then Vast.ai, each if the one before has no capacity',
    ],
    [
      'the cheapest, keys unknown',
      'cheapest',
      undefined,
      'Rents the cheapest matching offer across Vast.ai, RunPod and Lambda Cloud',
    ],
    [
      'the cheapest of the two with a key',
      'cheapest',
      ['vastai', 'lambda'],
      'Rents the cheapest matching offer across Vast.ai and Lambda Cloud',
    ],
  ])('what a pool of %s does', (_, provider, configured, route) => {
    expect(routeOf(provider, configured)).toBe(route);
  });

  it('names the route only while a node is rented; one marketplace is named in the headline', () => {
    const chain = { ...opts, provider: 'runpod,vastai' };
    expect(placementSummary(plan([null, warm('vastai:1')]), chain).route).toMatch(/^Tries RunPod/);
    expect(placementSummary(plan([warm('vastai:1')]), chain).route).toBeNull();
    expect(placementSummary(plan([warm('vastai:1')]), { ...chain, useNew: true }).route).toMatch(
      /^Tries RunPod/,
    );
    expect(placementSummary(plan([null]), { ...opts, provider: 'runpod' }).headline).toBe(
      'Rents a new node on RunPod',
    );
    expect(placementSummary(plan([null, null]), { ...opts, provider: 'lambda' }).headline).toBe(
      'Rents 2 new nodes on Lambda Cloud',
    );
  });
});
