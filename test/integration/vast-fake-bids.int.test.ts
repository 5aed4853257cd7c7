// The fake Vast.ai's interruptible market: offers carry min_bid; a create with `price` is a
// bid (is_bid, dph_base = the bid), one without is on-demand whatever the search asked
// (vast-cli PR #403); outbid stops the instance with its disk kept and bills its storage
// only; change bid runs it again. Real HTTP on 127.0.0.1, real sshd nodes, a manual clock.
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeVast, ManualClock, startFakeVast } from '../fakes/vast';
import { callVast, isPortRefused } from '../fakes/vast/probe';

const HOUR = 3_600_000;
const DISK = 16;
const STORAGE = (0.15 * DISK) / 720; // storage_cost 0.15 $/GB/month

const fakes: FakeVast[] = [];
afterEach(async () => {
  for (const v of fakes.splice(0)) await v.stop();
});

async function fake(): Promise<{ vast: FakeVast; clock: ManualClock }> {
  const clock = new ManualClock();
  const vast = await startFakeVast({
    offers: [{ id: 2001, dph_base: 0.4, min_bid: 0.21, storage_cost: 0.15 }],
    clock,
  });
  fakes.push(vast);
  return { vast, clock };
}

async function create(vast: FakeVast, body: Record<string, unknown> = {}) {
  const res = await callVast(vast, 'PUT', '/api/v0/asks/2001/', {
    body: { client_id: 'me', image: 'vastai/base-image:cuda-12.4', disk: DISK, ...body },
  });
  return res;
}

async function show(vast: FakeVast, id: number): Promise<Record<string, unknown>> {
  const res = await callVast(vast, 'GET', `/api/v0/instances/${id}/`, { query: { owner: 'me' } });
  return (res.json as { instances: Record<string, unknown> }).instances;
}

async function running(vast: FakeVast, clock: ManualClock, body: Record<string, unknown>) {
  const res = await create(vast, body);
  expect(res.status, res.text).toBe(200);
  const id = (res.json as { new_contract: number }).new_contract;
  clock.advance(1_000);
  await vast.sync();
  expect((await show(vast, id)).actual_status).toBe('running');
  return id;
}

function changeBid(vast: FakeVast, id: number, price: unknown) {
  return callVast(vast, 'PUT', `/api/v0/instances/bid_price/${id}/`, {
    body: { client_id: 'me', price },
  });
}

describe('fake Vast.ai: bids', () => {
  it('offers carry min_bid, and a bid search finds them by it', async () => {
    const { vast } = await fake();
    const res = await callVast(vast, 'POST', '/api/v0/bundles/', {
      body: {
        type: 'bid',
        min_bid: { lte: 0.3 },
        order: [['min_bid', 'asc']],
        allocated_storage: 16,
      },
    });
    expect(res.status, res.text).toBe(200);
    expect((res.json as { offers: Record<string, unknown>[] }).offers).toMatchObject([
      { id: 2001, min_bid: 0.21, dph_base: 0.4, is_bid: false },
    ]);
  });

  it('a create with a price is a bid: is_bid, dph_base is the bid, dph_total the bid plus disk', async () => {
    const { vast, clock } = await fake();
    const id = await running(vast, clock, { price: 0.25 });
    expect(await show(vast, id)).toMatchObject({
      is_bid: true,
      dph_base: 0.25,
      min_bid: 0.21,
      dph_total: 0.25 + STORAGE,
    });
  });

  it('a create without a price is on-demand, even right after a bid search (vast-cli PR #403)', async () => {
    const { vast, clock } = await fake();
    await callVast(vast, 'POST', '/api/v0/bundles/', { body: { type: 'bid' } });
    const id = await running(vast, clock, {});
    expect(await show(vast, id)).toMatchObject({ is_bid: false, dph_base: 0.4 });
  });

  it('ignoreBidPrice: the next create with a price rents on-demand anyway', async () => {
    const { vast, clock } = await fake();
    vast.faults.ignoreBidPrice(1);
    const id = await running(vast, clock, { price: 0.25 });
    expect((await show(vast, id)).is_bid).toBe(false);
    expect(vast.state.billing(id).bid).toBeNull();
  });

  it.each([0, 200, -1])('refuses a create price of %s: invalid_price', async (price) => {
    const { vast } = await fake();
    const res = await create(vast, { price });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, error: 'invalid_price' });
  });

  it('outbid: stopped with its disk kept, sshd refuses, billed storage only; change bid runs it again', async () => {
    const { vast, clock } = await fake();
    const id = await running(vast, clock, { price: 0.25 });
    const port = vast.state.instances()[0]!.node.port;
    clock.advance(HOUR);

    expect(await vast.faults.outbid(id, { minBid: 0.31 })).toBe(0.31);
    const stopped = await show(vast, id);
    expect(stopped).toMatchObject({
      actual_status: 'stopped',
      intended_status: 'stopped',
      cur_state: 'stopped',
      next_state: 'stopped',
      is_bid: true,
      dph_base: 0.25,
      min_bid: 0.31,
    });
    expect(await isPortRefused(port)).toBe(true);
    clock.advance(2 * HOUR);

    // A start asked for does not beat a higher bid.
    const start = await callVast(vast, 'PUT', `/api/v0/instances/${id}/`, {
      body: { state: 'running' },
    });
    expect(start.status).toBe(200);
    expect((await show(vast, id)).actual_status).toBe('stopped');

    const raised = await changeBid(vast, id, 0.35);
    expect(raised.status, raised.text).toBe(200);
    expect(raised.json).toEqual({ success: true });
    expect(await show(vast, id)).toMatchObject({ actual_status: 'running', dph_base: 0.35 });
    expect(await isPortRefused(port)).toBe(false);
    clock.advance(HOUR);

    const billed = vast.state.billing(id);
    expect(billed.bid).toBe(0.35);
    expect(billed.byState.stopped).toBeCloseTo(2 * STORAGE, 9);
    // Running: the second to start and the hour at 0.25, the hour after the raise at 0.35.
    expect(billed.byState.running).toBeCloseTo(
      (0.25 + STORAGE) * (1 + 1_000 / HOUR) + (0.35 + STORAGE),
      9,
    );
    expect(billed.accruedUsd).toBeCloseTo(billed.byState.running + billed.byState.stopped, 9);
  });

  it('a bid below the minimum at create sits stopped from the start, and never runs', async () => {
    const { vast, clock } = await fake();
    const res = await create(vast, { price: 0.1 });
    const id = (res.json as { new_contract: number }).new_contract;
    clock.advance(5_000);
    await vast.sync();
    expect(await show(vast, id)).toMatchObject({ actual_status: 'stopped', is_bid: true });
    expect(vast.state.instances()[0]!.node.isListening).toBe(false);
  });

  it('change bid: an on-demand instance has none, a price out of range and a missing one are refused', async () => {
    const { vast, clock } = await fake();
    const id = await running(vast, clock, {});
    const onDemand = await changeBid(vast, id, 0.3);
    expect(onDemand.status).toBe(400);
    expect(onDemand.json).toMatchObject({ success: false, error: 'invalid_args' });
    expect((await changeBid(vast, id, 40)).status).toBe(400);
    const gone = await changeBid(vast, 99, 0.3);
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ error: 'no_such_instance' });
  });

  it('outbid refuses an on-demand instance and a "higher" minimum that is not', async () => {
    const { vast, clock } = await fake();
    const od = await running(vast, clock, {});
    await expect(vast.faults.outbid(od)).rejects.toThrow(/on-demand/);
    await callVast(vast, 'DELETE', `/api/v0/instances/${od}/`, { body: {} });
    const bid = await running(vast, clock, { price: 0.25 });
    await expect(vast.faults.outbid(bid, { minBid: 0.2 })).rejects.toThrow(/does not outbid/);
  });
});
