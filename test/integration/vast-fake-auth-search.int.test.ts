// The fake Vast.ai (test/fakes/vast) is what the Vast provider is proven against, so it is
// tested itself. Here: its auth (a missing or wrong key, Bearer and ?api_key=) and its
// offer search, with vast.py's filters applied for real and prices for the storage asked.
// Real HTTP on 127.0.0.1. Needs root (the fixture's fakes make real sshd nodes).
import { describe, expect, it } from 'vitest';
import { callVast } from '../fakes/vast/probe';
import { CLI_DEFAULT_QUERY, fakeVastFixture, search } from '../fakes/vast/self-test';

const { fake } = fakeVastFixture();

describe('auth', () => {
  it('answers 401 with a JSON error to a missing or wrong key, accepts Bearer and ?api_key=', async () => {
    const vast = await fake();
    for (const key of [null, 'not-the-key']) {
      const res = await callVast(vast, 'GET', '/api/v0/users/current/', { key });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ success: false, error: 'auth_error', msg: 'Invalid user key' });
    }
    const bearer = await callVast(vast, 'GET', '/api/v0/users/current/');
    expect(bearer.status).toBe(200);
    expect(bearer.json).toMatchObject({ api_key: vast.apiKey, can_pay: true });
    const query = await callVast(vast, 'GET', '/api/v0/users/current/', {
      key: null,
      query: { api_key: vast.apiKey },
    });
    expect(query.status).toBe(200);
    expect(vast.state.calls().map((c) => [c.key, c.status])).toEqual([
      ['none', 401],
      ['invalid', 401],
      ['account', 200],
      ['account', 200],
    ]);
  });
});

describe('search offers', () => {
  it("returns exactly the offers vast.py's default query matches, in its order", async () => {
    const vast = await fake();
    const res = await callVast(vast, 'POST', '/api/v0/bundles/', { body: CLI_DEFAULT_QUERY });
    expect(res.headers.get('content-type')).toBe('application/json');
    // 1003 is unverified, 1005 not rentable; score desc (8, 2, 1, 1 GPUs), then id.
    expect(await search(vast, CLI_DEFAULT_QUERY)).toEqual([1004, 1002, 1001, 1006]);
  });

  it('applies eq, neq, gt, gte, lt, lte, in, notin for real', async () => {
    const vast = await fake();
    const base = { rentable: { eq: true }, order: [['id', 'asc']] };
    const cases: [Record<string, unknown>, number[]][] = [
      [{ gpu_name: { eq: 'RTX 4090' } }, [1001, 1002]],
      [{ gpu_name: { neq: 'RTX 4090' } }, [1003, 1004, 1006]],
      [{ num_gpus: { eq: '1' } }, [1001, 1003, 1006]], // vast.py sends numbers as strings
      [{ num_gpus: { gt: 1 } }, [1002, 1004]],
      [{ gpu_ram: { gte: 40_000 } }, [1004, 1006]], // MB: vast.py multiplies GB by 1000
      [{ reliability: { lt: 0.98 } }, [1002, 1006]],
      [{ dph_total: { lte: 0.36 } }, [1001, 1003]],
      [{ gpu_name: { in: ['RTX 3090', 'A100 PCIE'] } }, [1003, 1006]],
      [{ geolocation: { notin: ['US', 'SE'] } }, [1003, 1006]],
      [{ geolocation: { in: ['US'] }, verified: { eq: true } }, [1002, 1004]],
      [{ datacenter: { eq: true } }, [1004]],
      [{ inet_down: { lt: 500 }, cuda_max_good: { gte: 12 } }, [1006]],
    ];
    for (const [filter, expected] of cases)
      expect(await search(vast, { ...base, ...filter }), JSON.stringify(filter)).toEqual(expected);
  });

  it('prices dph_total for the allocated storage, honours limit, refuses unknown fields', async () => {
    const vast = await fake();
    const priced = async (storage: number) => {
      const res = await callVast(vast, 'POST', '/api/v0/bundles/', {
        body: { id: { eq: 1001 }, allocated_storage: storage },
      });
      return (res.json as { offers: Record<string, unknown>[] }).offers[0]!;
    };
    const offer = await priced(100);
    expect(offer.dph_total).toBeCloseTo(0.35 + (100 * 0.15) / 720, 9);
    expect((await priced(5)).dph_total).toBeCloseTo(0.35 + (5 * 0.15) / 720, 9);
    expect(offer).toMatchObject({
      id: 1001,
      ask_contract_id: 1001,
      gpu_name: 'RTX 4090',
      num_gpus: 1,
      gpu_ram: 24_576,
      storage_cost: 0.15,
      reliability: 0.995,
      reliability2: 0.995,
      verification: 'verified',
      rentable: true,
      rented: false,
      geolocation: 'Sweden, SE',
    });
    for (const field of [
      'machine_id',
      'inet_down',
      'inet_up',
      'direct_port_count',
      'cuda_max_good',
      'dlperf',
      'disk_space',
    ])
      expect(typeof offer[field], field).toBe('number');
    expect(await search(vast, { order: [['dph_total', 'asc']], limit: 2 })).toEqual([1003, 1005]);
    const bad = await callVast(vast, 'POST', '/api/v0/bundles/', {
      body: { gpu_nmae: { eq: 'x' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: 'invalid_request' });
  });
});
