import { describe, expect, it, test } from 'vitest';
import { peerOf, sshAddressOf, sshEndpoint } from './endpoint';

const DIRECT = { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '40022' }] };

describe('sshAddressOf', () => {
  test.each<[string, Record<string, unknown>, ReturnType<typeof sshAddressOf>]>([
    [
      'direct port on the public address, over the proxy',
      { public_ipaddr: '203.0.113.7', ports: DIRECT, ssh_host: 'ssh5.vast.ai', ssh_port: 12345 },
      { host: '203.0.113.7', port: 40022, via: 'direct' },
    ],
    [
      'public address with a trailing newline',
      { public_ipaddr: '203.0.113.7\n', ports: DIRECT },
      { host: '203.0.113.7', port: 40022, via: 'direct' },
    ],
    [
      'HostPort as a number',
      { public_ipaddr: '203.0.113.7', ports: { '22/tcp': [{ HostPort: 40022 }] } },
      { host: '203.0.113.7', port: 40022, via: 'direct' },
    ],
    [
      'no ports yet: the proxy',
      { public_ipaddr: '203.0.113.7', ports: {}, ssh_host: 'ssh5.vast.ai', ssh_port: 12345 },
      { host: 'ssh5.vast.ai', port: 12345, via: 'proxy' },
    ],
    [
      'ports null: the proxy',
      { public_ipaddr: '203.0.113.7', ports: null, ssh_host: 'ssh5.vast.ai', ssh_port: '12345' },
      { host: 'ssh5.vast.ai', port: 12345, via: 'proxy' },
    ],
    [
      'ports as a list (one OpenAPI file says so): the proxy',
      { public_ipaddr: '203.0.113.7', ports: [8080], ssh_host: 'ssh5.vast.ai', ssh_port: 12345 },
      { host: 'ssh5.vast.ai', port: 12345, via: 'proxy' },
    ],
    [
      'a direct mapping without a public address: the proxy',
      { public_ipaddr: '', ports: DIRECT, ssh_host: 'ssh5.vast.ai', ssh_port: 12345 },
      { host: 'ssh5.vast.ai', port: 12345, via: 'proxy' },
    ],
    [
      'a bad HostPort: the proxy',
      {
        public_ipaddr: '1.2.3.4',
        ports: { '22/tcp': [{ HostPort: '0' }] },
        ssh_host: 'p',
        ssh_port: 2,
      },
      { host: 'p', port: 2, via: 'proxy' },
    ],
    [
      'a jupyter launch: its ssh is one port above',
      { ssh_host: 'ssh5.vast.ai', ssh_port: 12345, image_runtype: 'jupyter_proxy ssh_proxy' },
      { host: 'ssh5.vast.ai', port: 12346, via: 'proxy' },
    ],
    ['nothing known yet', { public_ipaddr: '203.0.113.7', ports: {} }, null],
    ['a proxy host without a port', { ssh_host: 'ssh5.vast.ai', ssh_port: null }, null],
    ['a port out of range', { ssh_host: 'ssh5.vast.ai', ssh_port: 70000 }, null],
  ])('%s', (_n, inst, expected) => {
    expect(sshAddressOf(inst)).toEqual(expected);
  });
});

test('sshEndpoint: root, Tender key, pinned to the lease, no known_hosts', () => {
  expect(
    sshEndpoint({ host: '203.0.113.7', port: 40022, via: 'direct' }, 'tender-ab12-r1-node-0'),
  ).toEqual({
    kind: 'ssh',
    host: '203.0.113.7',
    port: 40022,
    user: 'root',
    authRef: 'tender',
    hostKeyScope: 'lease:tender-ab12-r1-node-0',
    knownHosts: false,
  });
});

describe('peerOf', () => {
  it('the public address and every mapped port but ssh', () => {
    expect(
      peerOf({
        public_ipaddr: '203.0.113.7',
        ports: {
          '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '41000' }],
          '29500/tcp': [{ HostIp: '0.0.0.0', HostPort: '41234' }],
          '8080/http': [{ HostIp: '0.0.0.0', HostPort: '41300' }],
        },
      }),
    ).toEqual({ host: '203.0.113.7', ports: { '29500': 41234 } });
  });
  it.each([
    [{ ports: { '29500/tcp': [{ HostPort: '1' }] } }],
    [{ public_ipaddr: '1.2.3.4', ports: { '22/tcp': [{ HostPort: '2' }] } }],
    [{ public_ipaddr: '1.2.3.4', ports: null }],
  ])('none without a public address or a mapping: %j', (inst) => {
    expect(peerOf(inst)).toBeNull();
  });
});
