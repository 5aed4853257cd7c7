import { describe, expect, it } from 'vitest';
import { PoolSpec, type ClusterView } from '../../../src-main/contract';
import { EMPTY_DRAFT, EMPTY_SLURM, type ComposerDraft } from '../../store/ui';
import { draftProblems, draftToPlanInput, draftToStartInput, nodeCount } from './draft-to-run';
import { effectiveSlurm, notionalPerHour, overrideProblem, slurmProblem } from './slurm-pool';

const draft = (patch: Partial<ComposerDraft>): ComposerDraft => ({
  ...EMPTY_DRAFT,
  name: 'train',
  run: 'python train.py',
  provider: 'slurm',
  ...patch,
});

const lab: ClusterView = {
  name: 'lab',
  host: 'login.lab.edu',
  port: 22,
  user: 'ada',
  identityFile: null,
  partition: 'gpu',
  account: null,
  qos: null,
  gpuHourUsd: 0.5,
  hostKey: null,
};

describe('the Slurm pool', () => {
  it('sends the cluster, the overrides typed, GPUs per node and the count; nothing else', () => {
    const d = draft({
      count: 2,
      verify: ['nvidia-smi', ' '],
      slurm: { cluster: 'lab', partition: ' debug ', account: '', qos: 'high', gpus: 4 },
      // What another provider's fields held stays out of a Slurm pool.
      hosts: ['lab1'],
      image: 'img:1',
      offerFilter: { gpu: 'RTX 4090', maxPrice: 1 },
      interruptible: true,
    });
    const { pool } = draftToStartInput(d);
    expect(pool).toEqual({
      provider: 'slurm',
      count: 2,
      verify: ['nvidia-smi'],
      cluster: 'lab',
      partition: 'debug',
      qos: 'high',
      gpu_count: 4,
    });
    expect(PoolSpec.safeParse(pool).success).toBe(true);
    expect(draftToPlanInput(d).pool).toEqual(pool);
    expect(nodeCount(d)).toBe(2);
    expect(draftProblems(d)).toEqual({});
  });

  it('asks no GPUs at 0 and leaves the cluster defaults when nothing is typed', () => {
    const { pool } = draftToStartInput(draft({ slurm: { ...EMPTY_SLURM, cluster: 'lab' } }));
    expect(pool).toEqual({ provider: 'slurm', count: 1, verify: [], cluster: 'lab' });
  });

  it('needs a cluster, and overrides Slurm takes', () => {
    expect(draftProblems(draft({})).pool).toBe('Pick a cluster (add clusters in Settings)');
    expect(slurmProblem({ ...EMPTY_SLURM, cluster: 'lab', account: 'my account' })).toMatch(
      /^Account: letters, digits/,
    );
    expect(overrideProblem('partition', '-gpu')).toMatch(/^Partition:/);
    expect(overrideProblem('qos', 'a.b_c-1')).toBeNull();
    expect(overrideProblem('qos', '  ')).toBeNull();
    // Another provider's draft is not held to the Slurm fields.
    expect(draftProblems(draft({ provider: 'local' })).pool).toBeUndefined();
  });

  it('says what an allocation is submitted with: the override over the cluster default', () => {
    const s = { ...EMPTY_SLURM, cluster: 'lab', qos: 'high' };
    expect(effectiveSlurm(s, lab)).toEqual([
      { field: 'partition', value: 'gpu', from: 'cluster' },
      { field: 'account', value: null, from: 'none' },
      { field: 'qos', value: 'high', from: 'draft' },
    ]);
  });

  it('counts the notional $/GPU-hour for the GPUs and nodes asked', () => {
    const s = { ...EMPTY_SLURM, cluster: 'lab', gpus: 2 };
    expect(notionalPerHour(s, 3, lab)).toBe(3);
    expect(notionalPerHour(s, 3, { ...lab, gpuHourUsd: null })).toBeNull();
    expect(notionalPerHour(s, 3, undefined)).toBeNull();
  });
});
