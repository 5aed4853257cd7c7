import { describe, expect, it } from 'vitest';
import type { NodeEndpoint } from '../../providers/provider';
import { parseEditorUrl, editorUrl } from './editor-url';
import { nodeAccess, runAccess } from './ssh-access';
import { buildSshConfig, type SshConfigNode } from './ssh-config-entries';

const RUN = 'r-k3x9a2mf';
const KEY = 'AAAAC3NzaC1lZDI1NTE5AAAAIE9j';
const files = { knownHostsPath: '/d/ssh/known_hosts', identityFile: () => '/d/keys/id' };
const ssh = (port: number, slurmJobId?: string): NodeEndpoint => ({
  kind: 'ssh',
  host: '203.0.113.7',
  port,
  user: 'root',
  authRef: 'tender',
  hostKeyScope: `lease:l${port}`,
  knownHosts: false,
  ...(slurmJobId ? { slurmJobId } : {}),
});
const entry = (logicalId: string, endpoint: NodeEndpoint | null): SshConfigNode => ({
  runId: RUN,
  logicalId,
  endpoint,
  pin: { keyType: 'ssh-ed25519', publicKey: KEY },
});
/** A ledger node whose agent said its socket is in `~/.tender/nodes/<n>/`. */
const rec = (logicalId: string, connection: NodeEndpoint | null = ssh(4000)) => ({
  logicalId,
  connection,
  agent: {
    address: {
      runtime: 'node',
      bundleWord: 'b',
      dirWord: 'd',
      socket: `/root/.tender/nodes/${logicalId}/agent.sock`,
    },
  } as never,
});
const configOf = (...nodes: SshConfigNode[]) => buildSshConfig(nodes, files).config;

describe('runAccess: the run alias, or why there is none', () => {
  it.each<[string, SshConfigNode[], string[], Partial<ReturnType<typeof runAccess>>]>([
    [
      'a reached node: its folder',
      [entry('node-0', ssh(4000)), entry('node-1', ssh(4001))],
      ['node-0', 'node-1'],
      {
        hasEntry: true,
        why: null,
        logicalId: 'node-0',
        workdir: '/root/.tender/nodes/node-0/workspace',
      },
    ],
    [
      'node-0 not reached yet: the run alias is node-1’s',
      [entry('node-0', null), entry('node-1', ssh(4001))],
      ['node-0', 'node-1'],
      { hasEntry: true, logicalId: 'node-1', workdir: '/root/.tender/nodes/node-1/workspace' },
    ],
    [
      'a local run',
      [entry('node-0', { kind: 'local', dir: '/tmp/n0' })],
      ['node-0'],
      { hasEntry: false, why: expect.stringMatching(/local-provider node is a folder/) as never },
    ],
    [
      'a Slurm run',
      [entry('node-0', ssh(22, '42'))],
      ['node-0'],
      { hasEntry: false, why: expect.stringMatching(/Slurm compute node has no sshd/) as never },
    ],
    ['a destroyed run', [], ['node-0'], { hasEntry: false, why: 'its lease has ended' }],
    [
      'a destroyed run of two',
      [],
      ['node-0', 'node-1'],
      { hasEntry: false, why: 'the leases of its nodes have ended', workdir: null },
    ],
    ['no such run', [], [], { hasEntry: false, why: `no run ${RUN}`, logicalId: null }],
  ])('%s', (_name, inConfig, ledgerNodes, want) => {
    const a = runAccess(
      configOf(...inConfig),
      RUN,
      ledgerNodes.map((n) => rec(n)),
    );
    expect(a.alias).toBe(`tender-${RUN}`);
    expect(a).toMatchObject(want);
  });

  it('the link built from it opens the run alias at the first node’s folder', () => {
    const a = runAccess(configOf(entry('node-0', ssh(4000))), RUN, [rec('node-0')]);
    expect(parseEditorUrl(editorUrl('code', a.alias, a.workdir!))).toEqual({
      editor: 'code',
      alias: `tender-${RUN}`,
      folder: '/root/.tender/nodes/node-0/workspace',
    });
  });

  it.each<[string, NodeEndpoint, RegExp]>([
    ['local', { kind: 'local', dir: '/tmp/n0' }, /local-provider node is a folder/],
    ['Slurm', ssh(22, '42'), /Slurm compute node has no sshd/],
  ])('a %s run says why after its lease too, not only that it ended', (_n, ep, why) => {
    expect(runAccess(configOf(), RUN, [rec('node-0', ep)]).why).toMatch(why);
    expect(nodeAccess(configOf(), RUN, [rec('node-0', ep)], 'node-0').why).toMatch(why);
  });

  it('another run whose id starts the same is not this one', () => {
    const other = { ...entry('node-0', ssh(4000)), runId: `${RUN}x` };
    expect(runAccess(configOf(other), RUN, [rec('node-0')]).hasEntry).toBe(false);
  });
});

describe('nodeAccess', () => {
  it.each<[string, SshConfigNode[], string, Partial<ReturnType<typeof nodeAccess>>]>([
    ['an entry', [entry('node-1', ssh(4001))], 'node-1', { hasEntry: true, why: null }],
    [
      'a comment',
      [entry('node-1', null)],
      'node-1',
      { hasEntry: false, why: expect.stringMatching(/no address yet/) as never },
    ],
    ['gone', [], 'node-1', { hasEntry: false, why: 'its lease has ended' }],
    ['unknown', [], 'node-7', { hasEntry: false, why: `no node node-7 in run ${RUN}` }],
  ])('%s', (_name, inConfig, logicalId, want) => {
    const a = nodeAccess(configOf(...inConfig), RUN, [rec('node-0'), rec('node-1')], logicalId);
    expect(a.alias).toBe(`tender-${RUN}-${logicalId}`);
    expect(a).toMatchObject(want);
  });
});
