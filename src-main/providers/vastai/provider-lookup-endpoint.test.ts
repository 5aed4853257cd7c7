// VastProvider.lookupEndpoint against the MiniVast fake: not yet, the direct port or the
// proxy, the SSH user seam, fatal states with their reason, gone, and retried 500s.
import { describe, expect, test } from 'vitest';
import type { LeaseFacts, ProviderError } from '../provider';
import { clock, LABEL, provider, signal, useMiniVast, vast } from './provider.test-util';

useMiniVast();

describe('lookupEndpoint', () => {
  function lease(id: number, createdAt = clock.now() - 600_000): LeaseFacts {
    return {
      provider: 'vastai',
      leaseId: `vastai:${id}`,
      contractId: String(id),
      label: LABEL,
      destroyHandle: { provider: 'vastai', leaseId: `vastai:${id}`, instanceId: String(id) },
      pricePerHour: 0.4,
      metadata: { created_at: String(createdAt) },
    };
  }

  test('loading: not yet', async () => {
    const inst = vast.addInstance({ actual_status: 'loading', status_msg: 'Pulling image' });

    expect(await provider().lookupEndpoint(lease(inst.id), signal())).toBeNull();
    expect(vast.server.calls('GET')[0]!.query.get('owner')).toBe('me');
  });

  test('running with a direct port: that port on the public address', async () => {
    const inst = vast.addInstance({
      actual_status: 'running',
      public_ipaddr: '203.0.113.9',
      ports: { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '41022' }] },
    });

    expect(await provider().lookupEndpoint(lease(inst.id), signal())).toEqual({
      kind: 'ssh',
      host: '203.0.113.9',
      port: 41022,
      user: 'root',
      authRef: 'tender',
      hostKeyScope: `lease:${LABEL}`,
      knownHosts: false,
    });
  });

  test('the SSH user seam (nodes of the fake in test/fakes are not root)', async () => {
    const inst = vast.addInstance({ actual_status: 'running' });
    const p = provider({ sshUser: (id) => `tnd${id}` });

    expect(await p.lookupEndpoint(lease(inst.id), signal())).toMatchObject({
      user: `tnd${inst.id}`,
    });
  });

  test('running without a direct port: the proxy', async () => {
    const inst = vast.addInstance({ actual_status: 'running', ports: {} });

    expect(await provider().lookupEndpoint(lease(inst.id), signal())).toMatchObject({
      host: 'ssh1.vast.example',
      port: 10022,
    });
  });

  test('running but no address known yet: not yet', async () => {
    const inst = vast.addInstance({
      actual_status: 'running',
      ports: {},
      ssh_host: '',
      ssh_port: null,
    });

    expect(await provider().lookupEndpoint(lease(inst.id), signal())).toBeNull();
  });

  test.each([
    ['exited', { actual_status: 'exited' }, /the instance is exited/],
    ['offline', { actual_status: 'offline' }, /offline/],
    [
      'created with an OCI error',
      { actual_status: 'created', status_msg: 'OCI runtime create failed: nvml error' },
      /created but its container failed: OCI runtime create failed: nvml error/,
    ],
  ])('%s: fatal, with the reason', async (_n, over, message) => {
    const inst = vast.addInstance(over);

    const err = await provider()
      .lookupEndpoint(lease(inst.id), signal())
      .catch((e: unknown) => e);

    expect((err as ProviderError).opts.fatal).toBe(true);
    expect((err as ProviderError).message).toMatch(message);
  });

  test('gone: fatal "the instance is gone"; for a lease created a moment ago, not yet', async () => {
    const p = provider();

    await expect(p.lookupEndpoint(lease(4242, clock.now() - 5_000), signal())).resolves.toBeNull();
    const err = await p.lookupEndpoint(lease(4242), signal()).catch((e: unknown) => e);
    expect((err as ProviderError).opts.fatal).toBe(true);
    expect((err as ProviderError).message).toMatch(/the instance is gone/);
  });

  test('{"instances": null} is gone too', async () => {
    vast.intercept = () => ({ json: { instances: null } });

    await expect(provider().lookupEndpoint(lease(1), signal())).rejects.toThrow(/gone/);
  });

  test('a 500 is retried, then answered; it is not fatal', async () => {
    const inst = vast.addInstance({ actual_status: 'loading' });
    let failures = 2;
    vast.intercept = () => (failures-- > 0 ? { status: 500, text: 'oops' } : undefined);

    expect(await provider().lookupEndpoint(lease(inst.id), signal())).toBeNull();
    expect(vast.server.requests).toHaveLength(3);
  });
});
