import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { providerConformance } from '../../../test/helpers/provider-conformance';
import { ProviderError, type CreateLeaseRequest, type LeaseFacts } from '../provider';
import { VastApiError } from './errors';
import { failedHostsPath, readFailedHosts, recordFailedHost } from './failed-hosts';
import { DEFAULT_IMAGE, VastProvider } from './provider';
import { MINI_KEY, MiniVast } from './testing/mini-vast';
import { fakeClock } from './testing/scripted-server';

const PUBLIC_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOk3b0gq1TPn9m6a4fL7c0ZP0nQ0ZJ8Zp0s1cN7s8H2f tender';
const LABEL = 'tender-ab12cd-r1-node-0';
const signal = () => new AbortController().signal;

let vast: MiniVast;
let home: string;
let clock: ReturnType<typeof fakeClock>;

beforeEach(async () => {
  vast = await MiniVast.start();
  home = mkdtempSync(join(tmpdir(), 'tender-vast-provider-'));
  clock = fakeClock(1_700_000_000_000);
});

afterEach(async () => {
  await vast.close();
  rmSync(home, { recursive: true, force: true });
});

function provider(over: Partial<ConstructorParameters<typeof VastProvider>[0]> = {}) {
  return new VastProvider({
    baseUrl: vast.url,
    apiKey: MINI_KEY,
    publicKey: () => PUBLIC_KEY,
    failedHostsPath: failedHostsPath(home),
    now: clock.now,
    http: { clock, random: () => 0.5, requestTimeoutMs: 2_000 },
    ...over,
  });
}

function request(shape: Record<string, unknown> = {}, label = LABEL): CreateLeaseRequest {
  return { label, runId: 'r1', logicalId: 'node-0', shape };
}

describe('createLease', () => {
  test('searches, rents the cheapest all-in offer, labels it and attaches the key', async () => {
    vast.addOffer({ dph_base: 0.5 });
    const cheap = vast.addOffer({ dph_base: 0.3, machine_id: 31_234 });

    const { lease, endpoint } = await provider().createLease(
      request({ gpu: 'RTX_4090', disk_gb: 100, max_price: 1 }),
      signal(),
    );

    const id = String([...vast.instances.keys()][0]);
    expect(endpoint).toBeNull();
    expect(lease).toMatchObject({
      provider: 'vastai',
      leaseId: `vastai:${id}`,
      contractId: id,
      label: LABEL,
      offerId: String(cheap.id),
      destroyHandle: { provider: 'vastai', leaseId: `vastai:${id}`, instanceId: id },
      pricePerHour: 0.320833, // 0.3 + 0.15 × 100 / 720
      metadata: {
        machine_id: '31234',
        gpu: '1x RTX 4090',
        offer: String(cheap.id),
        image: DEFAULT_IMAGE,
        disk_gb: '100',
        ssh_key_attach: 'ok',
      },
    });
    const [put] = vast.server.calls('PUT', '/api/v0/asks/');
    expect(put!.path).toBe(`/api/v0/asks/${cheap.id}/`);
    expect(put!.body).toEqual({
      client_id: 'me',
      image: DEFAULT_IMAGE,
      disk: 100,
      label: LABEL,
      env: { TENDER_LABEL: LABEL },
      onstart: 'touch ~/.no_auto_tmux',
      runtype: 'ssh_direc ssh_proxy',
      cancel_unavail: true,
    });
    const [search] = vast.server.calls('POST', '/api/v0/bundles/');
    expect(search!.body).toMatchObject({
      gpu_name: { eq: 'RTX 4090' },
      dph_total: { lte: 1 },
      allocated_storage: 100,
    });
    expect(vast.accountKeys).toEqual([PUBLIC_KEY]);
    expect(vast.attached).toEqual([{ id: Number(id), key: PUBLIC_KEY }]);
  });

  test('an offer picked by hand is rented first, even when a cheaper one is listed', async () => {
    vast.addOffer({ dph_base: 0.2 });
    const picked = vast.addOffer({ dph_base: 0.6 });
    const { lease } = await provider().createLease(
      request({ offerId: String(picked.id) }),
      signal(),
    );
    expect(lease.offerId).toBe(String(picked.id));
  });

  test('a picked offer that left the market falls back to the cheapest match', async () => {
    const cheap = vast.addOffer({ dph_base: 0.2 });
    const { lease } = await provider().createLease(request({ offerId: '999999' }), signal());
    expect(lease.offerId).toBe(String(cheap.id));
  });

  test('adds the key to the account only when it is not there (comment aside), once', async () => {
    vast.accountKeys.push(PUBLIC_KEY.replace(' tender', ' someone@laptop'));
    vast.addOffer();
    vast.addOffer();
    const p = provider();

    await p.createLease(request({}, 'tender-ab12cd-r1-node-0'), signal());
    await p.createLease(request({}, 'tender-ab12cd-r1-node-1'), signal());

    expect(vast.server.calls('POST', '/api/v0/ssh/')).toHaveLength(0);
    expect(vast.server.calls('GET', '/api/v0/ssh/')).toHaveLength(1);
  });

  test('the same label twice is one lease: the second call finds the first', async () => {
    vast.addOffer();
    vast.addOffer();
    const p = provider();

    const first = await p.createLease(request(), signal());
    const again = await p.createLease(request(), signal());

    expect(again.lease.leaseId).toBe(first.lease.leaseId);
    expect(vast.server.calls('PUT')).toHaveLength(1);
  });

  test('an offer rented away under us (404 no_such_ask, 410) → the next offer', async () => {
    const a = vast.addOffer({ dph_base: 0.1 });
    const b = vast.addOffer({ dph_base: 0.2 });
    const c = vast.addOffer({ dph_base: 0.3 });
    vast.intercept = (req) => {
      if (req.path === `/api/v0/asks/${a.id}/`) a.rented = true; // taken between search and PUT
      if (req.path === `/api/v0/asks/${b.id}/`)
        return {
          status: 410,
          json: { success: false, error: 'no_such_ask', msg: 'no longer available' },
        };
      return undefined;
    };

    const { lease } = await provider().createLease(request(), signal());

    expect(lease.offerId).toBe(String(c.id));
    expect(vast.server.calls('PUT').map((r) => r.path)).toEqual([
      `/api/v0/asks/${a.id}/`,
      `/api/v0/asks/${b.id}/`,
      `/api/v0/asks/${c.id}/`,
    ]);
  });

  test('gives up after 5 offers taken, saying so', async () => {
    for (let i = 0; i < 7; i++) vast.addOffer();
    vast.intercept = (req) =>
      req.method === 'PUT'
        ? { status: 404, json: { success: false, error: 'no_such_ask', msg: 'gone' } }
        : undefined;

    const err = await provider()
      .createLease(request(), signal())
      .catch((e: unknown) => e);

    expect((err as ProviderError).message).toMatch(/every offer tried was rented by someone else/);
    expect(vast.server.calls('PUT')).toHaveLength(5);
  });

  test('a create that times out is outcomeUnknown; no other offer is tried', async () => {
    vast.addOffer();
    vast.addOffer();
    vast.intercept = (req) => (req.method === 'PUT' ? { hang: true } : undefined);
    const p = provider({ http: { clock, random: () => 0.5, requestTimeoutMs: 150 } });

    const err = await p.createLease(request(), signal()).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).opts.outcomeUnknown).toBe(true);
    expect(vast.server.calls('PUT')).toHaveLength(1);
  });

  test('a create answered 2xx without an id is outcomeUnknown', async () => {
    vast.addOffer();
    vast.intercept = (req) => (req.method === 'PUT' ? { json: { success: true } } : undefined);

    const err = await provider()
      .createLease(request(), signal())
      .catch((e: unknown) => e);

    expect((err as ProviderError).opts.outcomeUnknown).toBe(true);
  });

  test('skips failed hosts and excluded machines', async () => {
    vast.addOffer({ dph_base: 0.1, machine_id: 1 });
    vast.addOffer({ dph_base: 0.2, machine_id: 2 });
    vast.addOffer({ dph_base: 0.3, machine_id: 3 });
    recordFailedHost(failedHostsPath(home), '1', 'exited', 1);

    const { lease } = await provider().createLease(request({ excludeMachines: ['2'] }), signal());

    expect(lease.metadata.machine_id).toBe('3');
    expect(vast.server.calls('POST', '/api/v0/bundles/')[0]!.body).toMatchObject({ limit: 16 + 2 });
  });

  test('no offer: a ProviderError with a hint, nothing rented', async () => {
    vast.addOffer({ dph_base: 5 });

    const err = await provider()
      .createLease(request({ max_price: 1 }), signal())
      .catch((e: unknown) => e);

    expect((err as ProviderError).message).toBe('no Vast.ai offer matches this pool');
    expect((err as ProviderError).opts.hint).toMatch(/tender offers/);
    expect(vast.server.calls('PUT')).toHaveLength(0);
  });

  test('an attach that fails does not lose the lease: the account key still reaches it', async () => {
    vast.addOffer();
    vast.intercept = (req) =>
      /\/ssh\/$/.test(req.path) && req.path.includes('/instances/')
        ? { status: 400, json: { success: false, error: 'invalid_args', msg: 'bad key' } }
        : undefined;

    const { lease } = await provider().createLease(request(), signal());

    expect(lease.metadata.ssh_key_attach).toMatch(/^failed: .*bad key/);
    expect(vast.instances.size).toBe(1);
  });

  test.each([
    ['a bad shape', request({ gpu_count: 0 }), /bad vastai node shape: gpu_count/],
    ['a bad label', request({}, 'bad label;rm'), /bad lease label/],
    ['a bad region', request({ region: 'Mars' }), /unknown region "Mars"/],
  ])('refuses %s, fatal, before renting', async (_n, req, message) => {
    vast.addOffer();

    const err = await provider()
      .createLease(req, signal())
      .catch((e: unknown) => e);

    expect((err as ProviderError).message).toMatch(message);
    expect((err as ProviderError).opts.fatal).toBe(true);
    expect(vast.server.calls('PUT')).toHaveLength(0);
  });

  test('a public key that is not one is fatal', async () => {
    vast.addOffer();
    const p = provider({ publicKey: () => '-----BEGIN OPENSSH PRIVATE KEY-----' });

    await expect(p.createLease(request(), signal())).rejects.toThrow(/not an OpenSSH public key/);
  });
});

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

describe('destroyLease and isGone', () => {
  const handle = (id: number) => ({
    provider: 'vastai',
    leaseId: `vastai:${id}`,
    instanceId: String(id),
  });

  test('destroys, then reports gone', async () => {
    const inst = vast.addInstance({ actual_status: 'running' });
    const p = provider();

    expect(await p.isGone(handle(inst.id), signal())).toBe(false);
    await p.destroyLease(handle(inst.id), signal());

    expect(vast.server.calls('DELETE')[0]!.path).toBe(`/api/v0/instances/${inst.id}/`);
    expect(await p.isGone(handle(inst.id), signal())).toBe(true);
  });

  test('a lease already gone (404 not_found, 200 no_such_instance) is destroyed', async () => {
    const p = provider();
    await expect(p.destroyLease(handle(1), signal())).resolves.toBeUndefined();

    vast.intercept = () => ({
      json: { success: false, error: 'no_such_instance', msg: 'no such' },
    });
    await expect(p.destroyLease(handle(2), signal())).resolves.toBeUndefined();
  });

  test('a 404 HTML page (a wrong URL, a proxy) is not proof: it throws', async () => {
    vast.intercept = () => ({
      status: 404,
      contentType: 'text/html',
      text: '<title>404 Not Found</title>',
    });

    await expect(provider().destroyLease(handle(1), signal())).rejects.toThrow(
      /destroy instance 1 failed: HTTP 404: 404 Not Found \(an HTML page\)/,
    );
  });

  test('a refusal with 200 {success:false} throws (the orchestrator retries)', async () => {
    vast.intercept = () => ({ json: { success: false, error: 'busy', msg: 'try later' } });

    await expect(provider().destroyLease(handle(1), signal())).rejects.toThrow(
      'destroy instance 1 refused: try later',
    );
  });

  test('500s are retried under the deadline', async () => {
    const inst = vast.addInstance();
    let failures = 2;
    vast.intercept = (req) =>
      req.method === 'DELETE' && failures-- > 0 ? { status: 502, text: '' } : undefined;

    await provider().destroyLease(handle(inst.id), signal());

    expect(vast.instances.size).toBe(0);
    expect(vast.server.calls('DELETE')).toHaveLength(3);
  });

  test.each([
    ['stopped (still bills storage)', { actual_status: 'stopped', cur_state: 'stopped' }, false],
    ['exited', { actual_status: 'exited' }, false],
    ['being destroyed', { next_state: 'unloaded' }, false],
    ['allocation released', { cur_state: 'unloaded' }, true],
  ])('isGone: %s → %s', async (_n, over, gone) => {
    const inst = vast.addInstance(over);

    expect(await provider().isGone(handle(inst.id), signal())).toBe(gone);
  });

  test('a handle that names no instance is refused', async () => {
    await expect(
      provider().isGone({ provider: 'vastai', leaseId: 'vastai:../x' }, signal()),
    ).rejects.toThrow(/bad vastai lease handle/);
  });
});

describe('listLabeled', () => {
  test('by label prefix, or by the env marker when the label was changed', async () => {
    const a = vast.addInstance({ label: 'tender-ab12cd-r1-node-0', actual_status: 'running' });
    const b = vast.addInstance({
      label: 'my renamed box',
      extra_env: [
        ['TENDER_LABEL', 'tender-ab12cd-r1-node-1'],
        ['-p 8080:8080', '1'],
      ],
    });
    vast.addInstance({ label: 'tender-zz99zz-r1-node-0' });
    vast.addInstance({ label: null });
    vast.addInstance({ label: 'tender-ab12cd-r9-node-0', cur_state: 'unloaded' });

    const listed = await provider().listLabeled('tender-ab12cd-', signal());

    expect(listed.map((l) => [l.label, l.contractId])).toEqual([
      ['tender-ab12cd-r1-node-0', String(a.id)],
      ['tender-ab12cd-r1-node-1', String(b.id)],
    ]);
    expect(listed[0]).toMatchObject({
      leaseId: `vastai:${a.id}`,
      pricePerHour: 0.406667,
      destroyHandle: { provider: 'vastai', instanceId: String(a.id) },
      metadata: { machine_id: '39999', gpu: '1x RTX 4090', status: 'running' },
    });
  });

  test('follows next_token pages', async () => {
    vast.intercept = (req) => {
      if (req.path !== '/api/v0/instances/') return undefined;
      const token = req.query.get('after_token');
      if (!token)
        return {
          json: {
            instances: [{ id: 1, label: 'tender-x-a' }],
            next_token: 'p2',
            total_instances: 2,
          },
        };
      if (token === 'p2')
        return {
          json: {
            instances: [{ id: 2, label: 'tender-x-b' }],
            next_token: null,
            total_instances: 2,
          },
        };
      return { status: 400, json: { msg: 'bad token' } };
    };

    const listed = await provider().listLabeled('tender-x-', signal());

    expect(listed.map((l) => l.contractId)).toEqual(['1', '2']);
  });

  test('refuses a list shorter than the total it announces (a hidden lease bills)', async () => {
    vast.intercept = () => ({
      json: { instances_found: 30, instances: [{ id: 1, label: 'tender-x-a' }] },
    });

    await expect(provider().listLabeled('tender-x-', signal())).rejects.toThrow(
      /announced 30 instances but returned 1/,
    );
  });

  test.each(['', ' ', 'a b', '../'])(
    'refuses the prefix %j (it would list everything)',
    async (prefix) => {
      await expect(provider().listLabeled(prefix, signal())).rejects.toThrow(/bad label prefix/);
    },
  );
});

describe('searchOffers and failed hosts', () => {
  test('cheapest first, failed hosts hidden unless asked', async () => {
    vast.addOffer({ dph_base: 0.2, machine_id: 1 });
    vast.addOffer({ dph_base: 0.1, machine_id: 2 });
    const p = provider();
    p.rememberBootFailure({ ...lease2(), metadata: { machine_id: '2' } }, 'no SSH within 10 min');

    const hidden = await p.searchOffers({}, signal());
    const all = await p.searchOffers({ includeFailedHosts: true }, signal());

    expect(hidden.map((o) => o.machineId)).toEqual(['1']);
    expect(all.map((o) => o.machineId)).toEqual(['2', '1']);
    expect(readFailedHosts(failedHostsPath(home))).toEqual([
      { machineId: '2', at: clock.now(), reason: 'no SSH within 10 min' },
    ]);
  });

  function lease2(): LeaseFacts {
    return {
      provider: 'vastai',
      leaseId: 'vastai:9',
      contractId: '9',
      label: LABEL,
      destroyHandle: { provider: 'vastai', leaseId: 'vastai:9', instanceId: '9' },
      pricePerHour: null,
      metadata: {},
    };
  }
});

describe('configuration', () => {
  test('no API key: not configured, and every call says which variable to set', async () => {
    const p = provider({ apiKey: '' });

    expect(p.isConfigured()).toBe(false);
    const err = await p.listLabeled('tender-', signal()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VastApiError);
    expect((err as VastApiError).opts.hint).toContain('TENDER_VASTAI_API_KEY');
    expect(vast.server.requests).toHaveLength(0);
  });

  test('a wrong key: 401, fatal, naming TENDER_VASTAI_API_KEY, never echoing the key', async () => {
    const p = provider({ apiKey: 'wrong-key-abcdefgh' });

    const err = (await p.listLabeled('tender-', signal()).catch((e: unknown) => e)) as VastApiError;

    expect(p.isConfigured()).toBe(true);
    expect(err.status).toBe(401);
    expect(err.opts.fatal).toBe(true);
    expect(err.message).toContain('TENDER_VASTAI_API_KEY');
    expect(err.message).not.toContain('wrong-key-abcdefgh');
  });
});

providerConformance('vastai (mini fake)', async () => {
  const mini = await MiniVast.start();
  for (let i = 0; i < 8; i++) mini.addOffer();
  const dir = mkdtempSync(join(tmpdir(), 'tender-vast-conf-'));
  const make = () =>
    new VastProvider({
      baseUrl: mini.url,
      apiKey: MINI_KEY,
      publicKey: () => PUBLIC_KEY,
      failedHostsPath: failedHostsPath(dir),
    });
  return {
    provider: make(),
    reopen: make,
    shape: { gpu: 'RTX_4090', disk_gb: 16 },
    dispose: async () => {
      await mini.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
