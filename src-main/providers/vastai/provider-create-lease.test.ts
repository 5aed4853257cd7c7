// VastProvider.createLease against the MiniVast fake: the offer it rents and how it labels
// it, keys, idempotence by label, offers taken under it, unknown outcomes, failed hosts,
// and what it refuses before renting.
import { describe, expect, test } from 'vitest';
import { ProviderError } from '../provider';
import { failedHostsPath, recordFailedHost } from './failed-hosts';
import { DEFAULT_IMAGE } from './provider';
import {
  clock,
  home,
  LABEL,
  provider,
  PUBLIC_KEY,
  request,
  signal,
  useMiniVast,
  vast,
} from './provider.test-util';

useMiniVast();

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
      user: 'root',
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
