import { describe, expect, it } from 'vitest';
import type { NodeEndpoint } from '../../providers/provider';
import { buildSshConfig, hostKeyAlias, type SshConfigNode } from './ssh-config-entries';

const KEY = 'AAAAC3NzaC1lZDI1NTE5AAAAIE9j';
const files = {
  knownHostsPath: '/data/Tender/ssh/known_hosts',
  identityFile: (ref: string) => (ref === 'tender' ? '/data/Tender/keys/id_ed25519' : ref),
};

function ssh(over: Partial<Extract<NodeEndpoint, { kind: 'ssh' }>> = {}): NodeEndpoint {
  return {
    kind: 'ssh',
    host: '203.0.113.7',
    port: 41022,
    user: 'root',
    authRef: 'tender',
    hostKeyScope: 'lease:tender-ab12-r-k3x9a2mf-node-0',
    knownHosts: false,
    ...over,
  };
}

function node(over: Partial<SshConfigNode> = {}): SshConfigNode {
  return {
    runId: 'r-k3x9a2mf',
    logicalId: 'node-0',
    endpoint: ssh(),
    pin: { keyType: 'ssh-ed25519', publicKey: KEY },
    ...over,
  };
}

describe('buildSshConfig', () => {
  it('writes one entry per node with the pinned key checked, the run alias on the first', () => {
    const { config, knownHosts } = buildSshConfig(
      [
        node({ logicalId: 'node-10', endpoint: ssh({ port: 41030, hostKeyScope: 'lease:l10' }) }),
        node({ logicalId: 'node-2', endpoint: ssh({ port: 41024, hostKeyScope: 'lease:l2' }) }),
        node(),
      ],
      files,
    );
    expect(config).toContain(
      [
        'Host tender-r-k3x9a2mf-node-0 tender-r-k3x9a2mf',
        '  HostName 203.0.113.7',
        '  Port 41022',
        '  User root',
        '  IdentityFile /data/Tender/keys/id_ed25519',
        '  IdentitiesOnly yes',
        '  HostKeyAlias tender-lease-tender-ab12-r-k3x9a2mf-node-0',
        '  UserKnownHostsFile /data/Tender/ssh/known_hosts',
        '  StrictHostKeyChecking yes',
        '  UpdateHostKeys no',
        '  CheckHostIP no',
      ].join('\n'),
    );
    // Numeric node order; the run alias only once.
    expect(config.indexOf('node-2\n')).toBeLessThan(config.indexOf('node-10\n'));
    expect(config.match(/ tender-r-k3x9a2mf\n/g)).toHaveLength(1);
    expect(knownHosts.split('\n').filter(Boolean).sort()).toEqual([
      `tender-lease-l10 ssh-ed25519 ${KEY}`,
      `tender-lease-l2 ssh-ed25519 ${KEY}`,
      `tender-lease-tender-ab12-r-k3x9a2mf-node-0 ssh-ed25519 ${KEY}`,
    ]);
  });

  it.each<[string, Partial<SshConfigNode>, RegExp]>([
    ['no address yet', { endpoint: null }, /no address yet/],
    [
      'local provider',
      { endpoint: { kind: 'local', dir: '/tmp/n0' } },
      /local-provider node is a folder/,
    ],
    [
      'Slurm compute node',
      { endpoint: ssh({ slurmJobId: '42' }) },
      /Slurm compute node has no sshd.*`tender ssh r-k3x9a2mf --node node-0`/,
    ],
    ['no pin yet', { pin: null }, /no host key pinned yet/],
    ['pin without its key', { pin: { keyType: 'ssh-ed25519', publicKey: null } }, /pinned before/],
    [
      'a host that adds an option',
      { endpoint: ssh({ host: '1.2.3.4\n  ProxyCommand x' }) },
      /host name has characters/,
    ],
    ['a host with a space', { endpoint: ssh({ host: '1.2.3.4 ProxyCommand=x' }) }, /host name/],
    ['a user with a space', { endpoint: ssh({ user: 'root ProxyCommand' }) }, /user name/],
    ['a port out of range', { endpoint: ssh({ port: 70000 }) }, /port/],
    ['a key type with a space', { pin: { keyType: 'ssh-ed25519 x', publicKey: KEY } }, /key type/],
    [
      'a key that is not base64',
      { pin: { keyType: 'ssh-ed25519', publicKey: 'a b' } },
      /host key has/,
    ],
  ])('%s: a comment saying why, no entry', (_name, over, why) => {
    const { config, knownHosts } = buildSshConfig([node(over)], files);
    expect(config).not.toMatch(/^Host /m);
    expect(config).toMatch(new RegExp(`^# tender-r-k3x9a2mf-node-0: .*${why.source}`, 'm'));
    expect(knownHosts).toBe('');
  });

  it('gives the run alias to the first node that has an entry', () => {
    const { config } = buildSshConfig(
      [node({ endpoint: null }), node({ logicalId: 'node-1' })],
      files,
    );
    expect(config).toContain('Host tender-r-k3x9a2mf-node-1 tender-r-k3x9a2mf\n');
  });

  it('your own machine: your identity file, quoted when it has a space; one key line per host', () => {
    const own = ssh({
      authRef: '/Users/a b/.ssh/id_lab',
      hostKeyScope: 'host:gpu box',
      user: 'me',
    });
    const { config, knownHosts } = buildSshConfig(
      [node({ endpoint: own }), node({ runId: 'r-2', endpoint: own })],
      { ...files, knownHostsPath: '/Users/a b/Library/Application Support/Tender/ssh/known_hosts' },
    );
    expect(config).toContain('  IdentityFile "/Users/a b/.ssh/id_lab"\n');
    expect(config).toContain(
      '  UserKnownHostsFile "/Users/a b/Library/Application Support/Tender/ssh/known_hosts"\n',
    );
    expect(config).toContain('  HostKeyAlias tender-host-gpu-box\n');
    expect(knownHosts).toBe(`tender-host-gpu-box ssh-ed25519 ${KEY}\n`);
  });

  it('names no node when there is none', () => {
    const { config, knownHosts } = buildSshConfig([], files);
    expect(config).not.toMatch(/^Host /m);
    expect(knownHosts).toBe('');
  });

  it.each([
    ['lease:tender-ab-r-1-node-0', 'tender-lease-tender-ab-r-1-node-0'],
    ['host:a*b,!c', 'tender-host-a-b--c'],
  ])('host key alias of %s has no pattern characters', (scope, alias) => {
    expect(hostKeyAlias(scope)).toBe(alias);
  });
});
