// VastProvider's interruptible leases against the MiniVast fake: the bid it makes and records,
// refusals before renting, the check that a lease really is a bid, outbid facts in listings,
// changing a bid and the market look before a run.
import { describe, expect, test } from 'vitest';
import { PoolSpec } from '../../contract';
import { TenderError } from '../../base/tender-error';
import { ProviderError } from '../provider';
import { NOT_A_BID } from './bid-lease';
import { failedHostsPath, failedMachineIds } from './failed-hosts';
import { home, provider, request, signal, useMiniVast, vast } from './provider.test-util';

useMiniVast();

const STORAGE = (0.15 * 32) / 720; // the default 32 GB at 0.15 $/GB/month

describe('createLease on the interruptible market', () => {
  test('bids the minimum + 10% on the cheapest bid offer, and records it', async () => {
    vast.addOffer({ dph_base: 0.3, min_bid: 0.25 });
    const cheap = vast.addOffer({ dph_base: 0.5, min_bid: 0.2 });

    const { lease } = await provider().createLease(request({ interruptible: true }), signal());

    const [put] = vast.server.calls('PUT', '/api/v0/asks/');
    expect(put!.path).toBe(`/api/v0/asks/${cheap.id}/`);
    expect(put!.body).toMatchObject({ price: 0.22, cancel_unavail: true });
    expect(lease.pricePerHour).toBeCloseTo(0.22 + STORAGE, 6);
    expect(lease.metadata).toMatchObject({
      interruptible: 'true',
      bid: '0.22',
      on_demand_gpu_price_per_hour: '0.5',
    });
    const [search] = vast.server.calls('POST', '/api/v0/bundles/');
    expect(search!.body).toMatchObject({ type: 'bid', order: [['min_bid', 'asc']] });
  });

  test('an on-demand create sends no price', async () => {
    vast.addOffer({ min_bid: 0.2 });
    await provider().createLease(request({}), signal());
    expect(vast.server.calls('PUT', '/api/v0/asks/')[0]!.body).not.toHaveProperty('price');
  });

  test('a bid above the on-demand price is refused before anything is rented', async () => {
    vast.addOffer({ dph_base: 0.3, min_bid: 0.2 });

    const err = await provider()
      .createLease(request({ interruptible: true, bid: 0.5 }), signal())
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toBe(
      'a bid above the on-demand price $0.300/h rents nothing cheaper; use on-demand',
    );
    expect((err as ProviderError).opts.fatal).toBe(true);
    expect(vast.server.calls('PUT', '/api/v0/asks/')).toEqual([]);
  });

  test('a lease found by its label carries the intent, so its first look checks it', async () => {
    vast.addInstance({ label: request().label, is_bid: false });
    const { lease } = await provider().createLease(request({ interruptible: true }), signal());
    expect(lease.metadata.interruptible).toBe('true');
    await expect(provider().lookupEndpoint(lease, signal())).rejects.toThrow(NOT_A_BID);
  });
});

describe('lookupEndpoint of an interruptible lease', () => {
  test('an instance Vast.ai rented on-demand fails its boot, fatally, naming why', async () => {
    vast.addOffer({ min_bid: 0.2 });
    const p = provider();
    const { lease } = await p.createLease(request({ interruptible: true }), signal());
    vast.instances.get(Number(lease.contractId))!.is_bid = false;

    const err = await p.lookupEndpoint(lease, signal()).catch((e: unknown) => e);

    expect((err as ProviderError).message).toContain(NOT_A_BID);
    expect((err as ProviderError).opts.fatal).toBe(true);
    // The host did nothing wrong: it is not remembered as failed.
    p.rememberBootFailure(lease, (err as Error).message);
    expect(failedMachineIds(failedHostsPath(home))).toEqual(new Set());
  });

  test('outbid before it ran: fatal, with the bid and the new minimum', async () => {
    vast.addOffer({ min_bid: 0.2 });
    const p = provider();
    const { lease } = await p.createLease(request({ interruptible: true }), signal());
    Object.assign(vast.instances.get(Number(lease.contractId))!, {
      actual_status: 'stopped',
      intended_status: 'stopped',
      min_bid: 0.3,
    });

    await expect(p.lookupEndpoint(lease, signal())).rejects.toThrow(
      'the instance was outbid before it ran (bid $0.220/h, now min $0.300/h)',
    );
  });
});

describe('listLabeled of interruptible leases', () => {
  test('an outbid instance is listed with its condition and its bid', async () => {
    vast.addInstance({
      label: request().label,
      is_bid: true,
      actual_status: 'stopped',
      intended_status: 'stopped',
      dph_base: 0.25,
      min_bid: 0.31,
    });

    const [facts] = await provider().listLabeled('tender-', signal());

    expect(facts!.condition).toEqual({ state: 'outbid', bid: 0.25, minBid: 0.31 });
    expect(facts!.metadata).toMatchObject({ interruptible: 'true', bid: '0.25' });
  });
});

describe('changeBid', () => {
  async function bidLease(minBid: number) {
    vast.addOffer({ dph_base: 0.4, min_bid: 0.2 });
    const p = provider();
    const { lease } = await p.createLease(request({ interruptible: true }), signal());
    vast.instances.get(Number(lease.contractId))!.min_bid = minBid;
    return { p, lease };
  }

  test('sends the new price, and says the minimum that runs it now', async () => {
    const { p, lease } = await bidLease(0.3);

    expect(await p.changeBid(lease, 0.33, signal())).toEqual({ bid: 0.33, minBid: 0.3 });

    const [put] = vast.server.calls('PUT', '/api/v0/instances/bid_price/');
    expect(put!.path).toBe(`/api/v0/instances/bid_price/${lease.contractId}/`);
    expect(put!.body).toEqual({ client_id: 'me', price: 0.33 });
  });

  test.each<[string, number, RegExp]>([
    ['above the on-demand price', 0.41, /above the on-demand price \$0\.400\/h/],
    ['below the minimum that runs it', 0.29, /below the \$0\.300\/h that runs lease/],
    ['beyond what Vast.ai accepts', 40, /from \$0\.001\/h to \$32\/h/],
  ])('refuses a bid %s as bad input, sending nothing', async (_n, bid, message) => {
    const { p, lease } = await bidLease(0.3);

    const err = await p.changeBid(lease, bid, signal()).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(TenderError);
    expect((err as TenderError).code).toBe('bad_input');
    expect((err as TenderError).message).toMatch(message);
    expect(vast.server.calls('PUT', '/api/v0/instances/bid_price/')).toEqual([]);
  });
});

describe('checkPool', () => {
  test('a bid above the on-demand price of the offer it would go to is bad input', async () => {
    vast.addOffer({ dph_base: 0.3, min_bid: 0.2 });
    const pool = PoolSpec.parse({ provider: 'vastai', interruptible: true, bid: 0.35 });

    await expect(provider().checkPool(pool, signal())).rejects.toMatchObject({
      code: 'bad_input',
      message: 'a bid above the on-demand price $0.300/h rents nothing cheaper; use on-demand',
    });
  });

  test('a bid that fits, no bid at all, or a market that does not answer: nothing to refuse', async () => {
    vast.addOffer({ dph_base: 0.3, min_bid: 0.2 });
    const p = provider();
    await p.checkPool(
      PoolSpec.parse({ provider: 'vastai', interruptible: true, bid: 0.25 }),
      signal(),
    );
    await p.checkPool(PoolSpec.parse({ provider: 'vastai', interruptible: true }), signal());
    vast.intercept = () => ({ status: 401, json: { error: 'auth_error' } });
    await p.checkPool(
      PoolSpec.parse({ provider: 'vastai', interruptible: true, bid: 9 }),
      signal(),
    );
    expect(vast.server.calls('POST', '/api/v0/bundles/')).toHaveLength(2);
  });
});
