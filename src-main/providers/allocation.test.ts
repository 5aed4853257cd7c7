import { describe, expect, it } from 'vitest';
import { srunCommand } from '../transport/srun-shell';
import { allocationOf } from './allocation';
import type { NodeEndpoint } from './provider';

const direct: NodeEndpoint = {
  kind: 'ssh',
  host: 'login.example',
  port: 22,
  user: 'u',
  authRef: 'tender',
  hostKeyScope: 'cluster:lab',
  knownHosts: true,
};

describe('allocationOf', () => {
  it('is null for a node reached directly, and for a local folder', () => {
    expect(allocationOf(direct)).toBeNull();
    expect(allocationOf({ kind: 'local', dir: '/tmp/x' })).toBeNull();
  });

  it('names the gateway (the endpoint without the allocation) and enters through it', () => {
    const inside = allocationOf({
      ...direct,
      slurmJobId: '42',
      peer: { host: '10.0.0.7', ports: {} },
    });
    expect(inside?.gateway).toEqual({ ...direct, peer: { host: '10.0.0.7', ports: {} } });
    const sent: string[] = [];
    const gatewayShell = {
      description: 'u@login.example:22',
      exec: (command: string) => {
        sent.push(command);
        return {} as never;
      },
      close: async () => {},
    };
    const shell = inside!.enter(gatewayShell);
    shell.exec('echo hi');
    expect(shell.description).toBe('slurm job 42 via u@login.example:22');
    expect(sent).toEqual([srunCommand('42', 'echo hi')]);
  });
});
