import { describe, expect, it } from 'vitest';
import { ClusterInput } from '../../../src-main/contract';
import { ApiError } from '../../api/backend';
import {
  EMPTY_CLUSTER_FORM,
  clusterErrorByField,
  clusterFormToInput,
  clusterInUse,
  loginText,
  parseLogin,
  parsePrice,
  slurmDefaults,
  type ClusterForm,
} from './cluster-form';

const form = (patch: Partial<ClusterForm>): ClusterForm => ({
  ...EMPTY_CLUSTER_FORM,
  name: 'lab',
  login: 'ada@login.lab.edu',
  ...patch,
});

describe('the cluster form', () => {
  it('reads user@login-host[:port] as tender clusters add does', () => {
    expect(parseLogin(' ada@login.lab.edu ')).toEqual({
      user: 'ada',
      host: 'login.lab.edu',
      port: 22,
    });
    expect(parseLogin('ada@10.0.0.5:2222')).toEqual({ user: 'ada', host: '10.0.0.5', port: 2222 });
    expect(parseLogin('ada@[fe80::1]:22')).toEqual({ user: 'ada', host: 'fe80::1', port: 22 });
    expect(parseLogin('')).toEqual({ problem: expect.stringMatching(/^required/) });
    for (const bad of ['login.lab.edu', 'ada@', '@host', 'ada@host:', 'a da@host', 'a@b@c'])
      expect(parseLogin(bad), bad).toEqual({ problem: 'user@login-host, or user@login-host:port' });
    expect(parseLogin('ada@host:0')).toEqual({ problem: 'the port is a number from 1 to 65535' });
    expect(parseLogin('ada@host:65536')).toEqual({
      problem: 'the port is a number from 1 to 65535',
    });
  });

  it('reads a price in dollars; empty is none', () => {
    expect(parsePrice('')).toBeUndefined();
    expect(parsePrice(' 0.5 ')).toBe(0.5);
    expect(parsePrice('$1.25')).toBe(1.25);
    expect(parsePrice('0')).toBe(0);
    expect(parsePrice('-1')).toBe(-1); // the contract refuses it, by field
    expect(parsePrice('free')).toBeNaN();
    expect(parsePrice('1,5')).toBeNaN();
  });

  it('gives clusters.add exactly what the contract takes, blanks left out', () => {
    const r = clusterFormToInput(
      form({
        login: 'ada@login.lab.edu:2222',
        identityFile: ' ~/.ssh/id_lab ',
        partition: 'gpu',
        qos: 'normal',
        gpuHourUsd: '$0.50',
      }),
    );
    expect(r).toEqual({
      ok: true,
      input: {
        name: 'lab',
        user: 'ada',
        host: 'login.lab.edu',
        port: 2222,
        identityFile: '~/.ssh/id_lab',
        partition: 'gpu',
        qos: 'normal',
        gpuHourUsd: 0.5,
      },
    });
    expect(ClusterInput.safeParse(r.ok && r.input).success).toBe(true);
    expect(clusterFormToInput(form({}))).toEqual({
      ok: true,
      input: { name: 'lab', user: 'ada', host: 'login.lab.edu', port: 22 },
    });
  });

  it('names every problem beside its field, in the contract’s words', () => {
    const r = clusterFormToInput({
      name: 'bad name',
      login: 'no-at-sign',
      identityFile: '',
      partition: 'gpu nodes',
      account: '.ml',
      qos: 'ok',
      gpuHourUsd: '-1',
    });
    expect(r).toEqual({
      ok: false,
      fields: {
        name: 'letters, digits, . _ - only',
        login: 'user@login-host, or user@login-host:port',
        partition: 'letters, digits, . _ - only',
        account: 'letters, digits, . _ - only',
        gpuHourUsd: 'at least 0',
      },
      general: null,
    });
    expect(clusterFormToInput(form({ name: '' }))).toMatchObject({
      ok: false,
      fields: { name: 'letters, digits, . _ - only' },
    });
    expect(clusterFormToInput(form({ gpuHourUsd: 'free' }))).toMatchObject({
      ok: false,
      fields: { gpuHourUsd: expect.stringMatching(/dollars per GPU-hour/) },
    });
  });

  it('puts what the core refused beside its field', () => {
    const taken = new ApiError({
      code: 'bad_input',
      message: 'a cluster named "lab" exists',
      hint: 'remove it first (`tender clusters remove`), or pick another name',
    });
    expect(clusterErrorByField(taken)).toEqual({
      fields: { name: 'a cluster named "lab" exists: pick another name, or remove it first' },
      general: null,
    });
    const schema = new ApiError({ code: 'bad_request', message: 'port: Too big; qos: nope' });
    expect(clusterErrorByField(schema)).toEqual({
      fields: { login: 'Too big', qos: 'nope' },
      general: null,
    });
    const other = new ApiError({ code: 'infrastructure', message: 'disk full' });
    expect(clusterErrorByField(other)).toEqual({ fields: {}, general: 'disk full' });
  });

  it('lists a cluster as the CLI does', () => {
    const c = { user: 'ada', host: 'login.lab.edu', port: 22 };
    expect(loginText(c)).toBe('ada@login.lab.edu:22');
    expect(loginText({ ...c, host: 'fe80::1', port: 2222 })).toBe('ada@[fe80::1]:2222');
    expect(slurmDefaults({ partition: 'gpu', account: null, qos: 'normal' })).toEqual([
      { label: 'partition', value: 'gpu', isDefault: false },
      { label: 'account', value: '(default)', isDefault: true },
      { label: 'QOS', value: 'normal', isDefault: false },
    ]);
  });

  it('finds the runs with a live allocation on a cluster', () => {
    const lease = (leaseId: string | null, state: 'created' | 'destroyed', runId = 'r-1') => ({
      provider: 'slurm',
      leaseId,
      state,
      runId,
    });
    expect(
      clusterInUse('lab', [
        lease('slurm:lab/12', 'created'),
        lease('slurm:lab/13', 'created'),
        lease('slurm:lab/9', 'destroyed', 'r-0'),
        lease('slurm:lab2/14', 'created', 'r-2'),
        { provider: 'ssh', leaseId: 'slurm:lab/1', state: 'created', runId: 'r-3' },
      ]),
    ).toEqual(['r-1']);
    expect(clusterInUse('lab', [])).toEqual([]);
  });
});
