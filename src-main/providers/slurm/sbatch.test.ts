import { describe, expect, it } from 'vitest';
import { TenderError } from '../../base/tender-error';
import { parseSbatch, sbatchCommand, type SbatchRequest } from './sbatch';

const SCRIPT = '#!/bin/bash\nexec sleep 300\n';
const BASE: SbatchRequest = {
  jobName: 'tender-i1-r2-node-0',
  nodes: 1,
  script: SCRIPT,
  output: 'out-%j.log',
};

describe('sbatchCommand', () => {
  it.each<[string, Partial<SbatchRequest>, string]>([
    [
      'the least',
      {},
      "sbatch --parsable --job-name='tender-i1-r2-node-0' --nodes=1 --output='out-%j.log'",
    ],
    [
      'everything',
      {
        cpus: 4,
        gpus: 2,
        timeLimitMin: 90,
        partition: 'gpu',
        account: 'lab',
        qos: 'high',
        requeue: false,
      },
      "sbatch --parsable --job-name='tender-i1-r2-node-0' --nodes=1 --cpus-per-task=4 " +
        "--gres='gpu:2' --time=90 --partition='gpu' --account='lab' --qos='high' --no-requeue " +
        "--output='out-%j.log'",
    ],
    ['requeue asked for', { requeue: true }, '--requeue --output='],
    ['partitions in a list', { partition: 'a100,h100' }, "--partition='a100,h100'"],
    [
      'quotes in names and paths',
      { jobName: "it's", output: "/scratch/my dir/it's-%j.out" },
      "--job-name='it'\\''s' --nodes=1 --output='/scratch/my dir/it'\\''s-%j.out'",
    ],
  ])('%s', (_, more, expected) => {
    const cmd = sbatchCommand({ ...BASE, ...more });
    expect(cmd.command).toContain(expected);
    expect(cmd.stdin).toBe(SCRIPT);
  });

  it.each<[string, Partial<SbatchRequest>]>([
    ['a comma in the name', { jobName: 'a,b' }],
    ['a newline in the name', { jobName: 'a\nb' }],
    ['no #! line', { script: 'sleep 1\n' }],
    ['no output', { output: ' ' }],
    ['0 nodes', { nodes: 0 }],
    ['half a GPU', { gpus: 0.5 }],
    ['0 minutes', { timeLimitMin: 0 }],
    ['a blank in the account', { account: 'my lab' }],
    ['a comma in the qos', { qos: 'a,b' }],
    ['an empty partition', { partition: '' }],
    ['a trailing comma in partitions', { partition: 'a,' }],
  ])('refuses %s', (_, more) => {
    expect(() => sbatchCommand({ ...BASE, ...more })).toThrow(TenderError);
  });
});

describe('parseSbatch', () => {
  // What sbatch --parsable printed on the test cluster (test/helpers/slurm.ts), and with a
  // federation or --clusters (`id;cluster`).
  it.each([
    ['1\n', { jobId: '1', cluster: null }],
    ['12345;tenderlab\n', { jobId: '12345', cluster: 'tenderlab' }],
    ['Welcome to the cluster!\nquota: 80% used\n4242\n', { jobId: '4242', cluster: null }],
    ['  77  \r\n', { jobId: '77', cluster: null }],
  ])('%j', (stdout, expected) => {
    expect(parseSbatch(stdout)).toEqual(expected);
  });

  it('throws when there is no id', () => {
    expect(() => parseSbatch('')).toThrow(/no job id/);
    expect(() => parseSbatch('Submitted batch job 12\n')).toThrow(/no job id/);
  });
});
