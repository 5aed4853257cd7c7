import { parseConstraint } from '../../contract/constraint';
import { describe, expect, it } from 'vitest';
import type { HostKeyInput } from '../../../src-agent/wire/host-key';
import { hostKey } from '../../jobs/host/host-declaration';
import type { NodeRecord } from '../../ledger/node-record';
import type { DeadManFacts, LeaseRow, RunRow } from '../../ledger/rows';
import {
  idleEndsAt,
  isWarm,
  planWarmClaims,
  type WarmCandidate,
  type WarmWant,
} from './warm-match';

const NOW = 1_800_000_000_000;
const HOST: HostKeyInput = {
  runner: 'tender-agent',
  provider: 'vastai',
  resources: { gpu: 'A100' },
};
const KEY = hostKey(HOST);
const OTHER: HostKeyInput = { ...HOST, host_setup: ['apt-get install -y ffmpeg'] };

function candidate(
  id: string,
  over: {
    node?: Partial<NodeRecord>;
    run?: Partial<RunRow>;
    phase?: 'done' | 'run';
    lease?: Partial<LeaseRow>;
    deadMan?: Partial<DeadManFacts>;
    host?: HostKeyInput;
    endedAt?: number;
  } = {},
): WarmCandidate {
  const host = over.host ?? HOST;
  const node = {
    id: `${id}/node-0`,
    runId: id,
    label: `tender-x-${id}-node-0`,
    stage: 'dormant',
    ready: true,
    agent: { hostKey: hostKey(host) },
    connection: { kind: 'ssh' },
    destroyRequested: false,
    leaseLost: false,
    lease: { leaseId: `vastai:${id}` },
    desired: { provider: 'vastai', shape: {}, verify: [], hostKey: hostKey(host), host },
    ...over.node,
  } as unknown as NodeRecord;
  const run = { id, keep: true, policy: null, status: 'completed', ...over.run } as RunRow;
  const deadMan = over.deadMan
    ? ({
        idleTimeoutMs: null,
        jobEndedAt: null,
        selfTeardown: null,
        ...over.deadMan,
      } as DeadManFacts)
    : null;
  const lease = { state: 'created', pricePerHour: 1, deadMan, ...over.lease } as LeaseRow;
  const attempt = {
    nodeId: node.id,
    runId: id,
    attempt: 0,
    status: 'completed' as const,
    phase: over.phase ?? ('done' as const),
    exitCode: 0,
    reason: null,
    updatedAt: over.endedAt ?? NOW - 60_000,
  };
  return { node, run, attempt, lease };
}

const want = (over: Partial<WarmWant> = {}): WarmWant => ({
  provider: 'vastai',
  hostKey: KEY,
  host: HOST,
  shapes: [{}],
  maxPrice: undefined,
  ...over,
});

describe('isWarm: a kept node free to serve another run', () => {
  it.each<[string, Parameters<typeof candidate>[1], boolean]>([
    ['joined, idle, job done, kept', {}, true],
    [
      'kept by policy afterJob keep_warm',
      { run: { keep: false, policy: { afterJob: 'keep_warm' } as RunRow['policy'] } },
      true,
    ],
    ['not kept (its teardown is pending)', { run: { keep: false } }, false],
    ['its job still running', { phase: 'run' }, false],
    ['not dormant', { node: { stage: 'handed_off' } }, false],
    ['destroy requested', { node: { destroyRequested: true } }, false],
    ['lease lost', { node: { leaseLost: true } }, false],
    ['lease destroying', { lease: { state: 'destroying' } }, false],
    [
      'its switch fired',
      { deadMan: { selfTeardown: { cause: 'idle', reason: 'idle', at: NOW, state: 'x' } } },
      false,
    ],
    [
      'idle deadline in 10 min',
      { deadMan: { idleTimeoutMs: 20 * 60_000, jobEndedAt: NOW - 10 * 60_000 } },
      true,
    ],
    [
      'idle deadline in 10 s (left to tear itself down)',
      { deadMan: { idleTimeoutMs: 60_000, jobEndedAt: NOW - 50_000 } },
      false,
    ],
    ['no agent', { node: { agent: null } }, false],
  ])('%s → %s', (_, over, expected) => expect(isWarm(candidate('r-a', over), NOW)).toBe(expected));
});

describe('idleEndsAt: when a kept node’s idle timeout tears it down', () => {
  const MIN = 60_000;
  const policy = (idleTimeoutMs: number | null) =>
    ({ idleTimeoutMs, afterJob: 'keep_warm' }) as unknown as RunRow['policy'];
  it.each<[string, Parameters<typeof candidate>[1], number | null]>([
    [
      'as its switch was told',
      { deadMan: { idleTimeoutMs: MIN, jobEndedAt: NOW - 5_000 } },
      NOW - 5_000 + MIN,
    ],
    [
      'its switch last renewed while the job ran: the attempt’s end stands in',
      { deadMan: { idleTimeoutMs: MIN, jobEndedAt: null }, endedAt: NOW - 2_000 },
      NOW - 2_000 + MIN,
    ],
    [
      'no renewal recorded at all: the run’s policy and the attempt’s end',
      { run: { policy: policy(MIN) }, endedAt: NOW - 2_000 },
      NOW - 2_000 + MIN,
    ],
    ['no idle timeout anywhere', { run: { policy: policy(null) } }, null],
    [
      'the job still runs',
      { deadMan: { idleTimeoutMs: MIN, jobEndedAt: null }, phase: 'run' },
      null,
    ],
  ])('%s', (_, over, want) => {
    expect(idleEndsAt(candidate('r-a', over))).toBe(want);
  });
});

describe('planWarmClaims', () => {
  it('claims a warm node with the same key', () => {
    const plan = planWarmClaims([candidate('r-a')], want(), NOW);
    expect([...plan.claims.keys()]).toEqual([0]);
    expect(plan.passedOver).toEqual([]);
  });

  it('passes over another key on a market and says which fields differ', () => {
    const plan = planWarmClaims([candidate('r-a', { host: OTHER })], want(), NOW);
    expect(plan.claims.size).toBe(0);
    expect(plan.passedOver).toEqual([
      `warm node vastai:r-a has ${hostKey(OTHER)}, this job needs ${KEY}: host_setup differs`,
    ]);
    expect(plan.conflicts).toEqual([]);
  });

  it('on an own host (the ssh provider) another key is a conflict, not a rent', () => {
    const ssh = (h: HostKeyInput) => ({ ...h, provider: 'ssh' });
    const c = candidate('r-a', {
      host: ssh(OTHER),
      node: {
        desired: {
          provider: 'ssh',
          shape: { host: 'lab1' },
          verify: [],
          hostKey: hostKey(ssh(OTHER)),
          host: ssh(OTHER),
        },
      },
    });
    const plan = planWarmClaims(
      [c],
      want({
        provider: 'ssh',
        host: ssh(HOST),
        hostKey: hostKey(ssh(HOST)),
        shapes: [{ host: 'lab1' }],
      }),
      NOW,
    );
    expect(plan.claims.size).toBe(0);
    expect(plan.conflicts[0]?.message).toMatch(/host_setup differs/);
  });

  it('an own host takes the slot naming it, and only that one', () => {
    const onHost = (name: string) =>
      candidate(`r-${name}`, {
        node: {
          desired: {
            provider: 'vastai',
            shape: { host: name },
            verify: [],
            hostKey: KEY,
            host: HOST,
          },
        },
      });
    const plan = planWarmClaims(
      [onHost('lab2'), onHost('lab9')],
      want({ shapes: [{ host: 'lab1' }, { host: 'lab2' }] }),
      NOW,
    );
    expect([...plan.claims].map(([slot, n]) => [slot, n.runId])).toEqual([[1, 'r-lab2']]);
  });

  it('fills slots with the most recently used warm nodes first, the rest are rented', () => {
    const plan = planWarmClaims(
      [
        candidate('r-old', { endedAt: NOW - 3_600_000 }),
        candidate('r-new', { endedAt: NOW - 60_000 }),
      ],
      want({ shapes: [{}] }),
      NOW,
    );
    expect([...plan.claims.values()].map((n) => n.runId)).toEqual(['r-new']);
  });

  it('passes over a warm node that costs more than max_price', () => {
    const plan = planWarmClaims(
      [candidate('r-a', { lease: { pricePerHour: 3 } })],
      want({ maxPrice: 2 }),
      NOW,
    );
    expect(plan.claims.size).toBe(0);
    expect(plan.passedOver[0]).toMatch(/costs \$3\.000\/h, over max_price 2/);
  });

  it("passes over a warm node whose probed capabilities fail the job's constraints", () => {
    const caps = (c: Record<string, string | number>) => ({
      node: { agent: { hostKey: hostKey(HOST), capabilities: c } } as Partial<NodeRecord>,
    });
    const plan = planWarmClaims(
      [
        candidate('r-small', caps({ 'gpu.vram': 8 * 1024 ** 3 })),
        candidate('r-big', caps({ 'gpu.vram': 48 * 1024 ** 3 })),
      ],
      want({ constraints: [parseConstraint('gpu.vram >= 24GB')] }),
      NOW,
    );
    expect([...plan.claims.values()].map((n) => n.runId)).toEqual(['r-big']);
    expect(plan.passedOver).toEqual([
      "warm node vastai:r-small does not meet the job's constraints: gpu.vram >= 24GB (the node has gpu.vram = 8589934592)",
    ]);
  });

  it('a pool naming several providers takes a warm node of any of them, keyed on its own', () => {
    const chain = 'runpod,vastai';
    const chainHost = { ...HOST, provider: chain };
    const onVast = candidate('r-a', {
      node: { lease: { leaseId: 'vastai:1', provider: 'vastai' } as NodeRecord['lease'] },
    });
    const plan = planWarmClaims(
      [onVast],
      want({ provider: chain, host: chainHost, hostKey: hostKey(chainHost) }),
      NOW,
    );
    expect([...plan.claims.keys()]).toEqual([0]); // its key is on vastai, as the job's would be
    const onLambda = candidate('r-b', {
      host: { ...HOST, provider: 'lambda' },
      node: { lease: { leaseId: 'lambda:1', provider: 'lambda' } as NodeRecord['lease'] },
    });
    const none = planWarmClaims(
      [onLambda],
      want({ provider: chain, host: chainHost, hostKey: hostKey(chainHost) }),
      NOW,
    );
    expect(none.claims.size).toBe(0); // lambda is not in the list
    expect(none.passedOver).toEqual([]);
    // And the other way round: a node a list rented on vastai serves a plain vastai run.
    const listed = candidate('r-c', {
      node: {
        desired: { provider: chain, shape: {}, verify: [], hostKey: KEY, host: HOST },
        lease: { leaseId: 'vastai:2', provider: 'vastai' } as NodeRecord['lease'],
      },
    });
    expect([...planWarmClaims([listed], want(), NOW).claims.keys()]).toEqual([0]);
  });

  it('ignores other providers and nodes that are not warm', () => {
    const other = candidate('r-a', {
      node: { desired: { provider: 'local', shape: {}, verify: [], hostKey: KEY } },
    });
    const busy = candidate('r-b', { phase: 'run' });
    const plan = planWarmClaims([other, busy], want(), NOW);
    expect(plan.claims.size).toBe(0);
    expect(plan.passedOver).toEqual([]);
  });
});
