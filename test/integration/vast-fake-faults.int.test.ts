// The fake Vast.ai's fault knobs, each as the provider meets it: 429 storms, a 500 after a
// real create, instances that never run or go offline, delayed visibility, destroys that
// fail, an offer rented away, slow SSH keys, request latency, a call held until released.
// Real HTTP on 127.0.0.1, real OpenSSH, an injected clock. Needs root.
import { beforeAll, describe, expect, it } from 'vitest';
import { OCI_ERROR_MSG, RATE_LIMIT_TEXT } from '../fakes/vast';
import { callVast, isPortRefused } from '../fakes/vast/probe';
import {
  CLI_DEFAULT_QUERY,
  clockOf,
  create,
  fakeVastFixture,
  type KeyPair,
  listed,
  running,
  search,
  show,
} from '../fakes/vast/self-test';
import { until } from '../helpers/wait';

const { fake, keyPair, ssh } = fakeVastFixture();
let account: KeyPair;
beforeAll(() => {
  account = keyPair('account');
});

describe('fault knobs', () => {
  it('429 storms: the next N calls, a seeded ratio, or only some endpoints', async () => {
    const vast = await fake();
    vast.faults.rateLimit({ next: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await callVast(vast, 'GET', '/api/v0/users/current/');
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.text).toBe(RATE_LIMIT_TEXT);
        expect(res.headers.get('retry-after')).toBeNull();
        expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      }
    }
    expect(statuses).toEqual([429, 429, 429, 200]);

    const pattern = async () => {
      vast.faults.rateLimit({ ratio: 0.5, seed: 7 });
      const out: number[] = [];
      for (let i = 0; i < 60; i++) out.push((await callVast(vast, 'GET', '/api/v0/ssh/')).status);
      return out;
    };
    const first = await pattern();
    expect(first.filter((s) => s === 429).length).toBeGreaterThan(15);
    expect(first.filter((s) => s === 200).length).toBeGreaterThan(15);
    expect(await pattern()).toEqual(first);

    vast.faults.rateLimit({ next: 1, match: (c) => c.path.startsWith('/api/v0/bundles') });
    expect((await callVast(vast, 'GET', '/api/v0/ssh/')).status).toBe(200);
    expect((await callVast(vast, 'POST', '/api/v0/bundles/', { body: {} })).status).toBe(429);
    expect(vast.state.calls().filter((c) => c.status === 429).length).toBe(
      3 + 2 * first.filter((s) => s === 429).length + 1,
    );
    vast.faults.rateLimit({ next: 5 });
    vast.faults.reset();
    expect((await callVast(vast, 'GET', '/api/v0/ssh/')).status).toBe(200);
  });

  it('a 500 after the instance was really created', async () => {
    const vast = await fake();
    vast.faults.failCreateAfterCommit();
    const res = await callVast(vast, 'PUT', '/api/v0/asks/1001/', {
      body: { image: 'vastai/base-image:cuda-12.4', label: 'tender-i1-r1-node-0' },
    });
    expect(res.status).toBe(500);
    expect(res.text).toBe('Internal Server Error');
    expect((await listed(vast)).map((i) => i.label)).toEqual(['tender-i1-r1-node-0']);
    const [inst] = vast.state.liveInstances();
    clockOf(vast).advance(3_600_000);
    expect(vast.state.billing(inst!.id).accruedUsd).toBeCloseTo(inst!.dphTotal, 9);
  });

  it('instances that stay loading, or end exited / offline / created with an OCI error', async () => {
    const vast = await fake();
    vast.faults.nextInstanceFate('stay_loading');
    vast.faults.nextInstanceFate('exited');
    vast.faults.nextInstanceFate('offline');
    vast.faults.nextInstanceFate('created', { statusMsg: 'OCI runtime create failed: bad image' });
    const ids: number[] = [];
    for (const offer of [1001, 1002, 1003, 1004]) ids.push(await create(vast, offer));
    clockOf(vast).advance(24 * 3_600_000);
    await vast.sync();
    const shown = await Promise.all(ids.map((id) => show(vast, id)));
    expect(shown.map((i) => [i?.actual_status, i?.status_msg])).toEqual([
      ['loading', 'Pulling image vastai/base-image:cuda-12.4'],
      ['exited', OCI_ERROR_MSG],
      ['offline', OCI_ERROR_MSG],
      ['created', 'OCI runtime create failed: bad image'],
    ]);
    for (const inst of shown) expect(await isPortRefused(inst!.ssh_port)).toBe(true);
  });

  it('a running instance can be turned offline', async () => {
    const vast = await fake({ accountSshKeys: [account.publicKey] });
    const inst = await running(vast, 1001);
    await vast.faults.setStatus(inst.id, 'offline', 'host went away');
    expect(await show(vast, inst.id)).toMatchObject({
      actual_status: 'offline',
      status_msg: 'host went away',
    });
    expect((await ssh(vast, inst.id, account.file, 'true')).code).toBe(255);
  });

  it('delayed visibility: absent from list and show for T, destroyable meanwhile; lingering after destroy', async () => {
    const vast = await fake();
    vast.faults.delayListVisibility(10_000);
    const id = await create(vast, 1001);
    expect(await listed(vast)).toEqual([]);
    expect(await show(vast, id)).toBeNull();
    clockOf(vast).advance(10_000);
    expect((await listed(vast)).map((i) => i.id)).toEqual([id]);

    const hidden = await create(vast, 1002);
    expect((await callVast(vast, 'DELETE', `/api/v0/instances/${hidden}/`)).status).toBe(200);

    vast.faults.delayGoneVisibility(5_000);
    expect((await callVast(vast, 'DELETE', `/api/v0/instances/${id}/`)).status).toBe(200);
    expect((await show(vast, id))?.cur_state).toBe('unloaded');
    clockOf(vast).advance(5_000);
    expect(await show(vast, id)).toBeNull();
    expect(vast.state.liveInstances()).toEqual([]);
  });

  it('destroys that fail K times before succeeding', async () => {
    const vast = await fake();
    const id = await create(vast, 1001);
    vast.faults.failDestroys(2, { status: 503 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await callVast(vast, 'DELETE', `/api/v0/instances/${id}/`)).status);
      if (i < 2) expect(vast.state.liveInstances().map((x) => x.id)).toEqual([id]);
    }
    expect(statuses).toEqual([503, 503, 200]);
    expect(vast.state.destroyLog().length).toBe(1);
  });

  it('an offer rented away between search and create', async () => {
    const vast = await fake();
    vast.faults.rentAway(1001);
    const res = await callVast(vast, 'PUT', '/api/v0/asks/1001/', { body: { image: 'x/y:z' } });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      success: false,
      error: 'invalid_args',
      msg: 'error 404/3603: no_such_ask Instance type by id 1001 is not available.',
      ask_id: 1001,
    });
    expect(await search(vast, { id: { eq: 1001 } })).toEqual([]);

    vast.faults.rentAwayAfterSearch();
    const [top] = await search(vast, CLI_DEFAULT_QUERY);
    expect(
      (await callVast(vast, 'PUT', `/api/v0/asks/${top}/`, { body: { image: 'x/y:z' } })).status,
    ).toBe(404);
    expect(vast.state.liveInstances()).toEqual([]);
  });

  it('SSH keys that take T to propagate, attached and detached per instance or added to the account', async () => {
    const vast = await fake({ accountSshKeys: [account.publicKey] });
    const inst = await running(vast, 1001);
    vast.faults.sshKeyPropagation(60_000);
    const late = keyPair('late');
    const attach = await callVast(vast, 'POST', `/api/v0/instances/${inst.id}/ssh/`, {
      body: { ssh_key: late.publicKey },
    });
    expect(attach.json).toEqual({ success: true, msg: 'SSH key attached successfully' });
    const keys = await callVast(vast, 'GET', `/api/v0/instances/${inst.id}/ssh/`);
    const attached = JSON.parse((keys.json as { ssh_keys: string }).ssh_keys) as {
      id: number;
      public_key: string;
    }[];
    const lateKey = attached.find((k) => k.public_key === late.publicKey)!;
    expect(lateKey).toBeDefined();
    expect((await ssh(vast, inst.id, late.file, 'true')).code).toBe(255);
    clockOf(vast).advance(60_000);
    await vast.sync();
    expect((await ssh(vast, inst.id, late.file, 'echo in')).stdout).toBe('in\n');

    const detach = await callVast(
      vast,
      'DELETE',
      `/api/v0/instances/${inst.id}/ssh/${lateKey.id}/`,
    );
    expect(detach.json).toMatchObject({ success: true });
    clockOf(vast).advance(60_000);
    await vast.sync();
    expect((await ssh(vast, inst.id, late.file, 'true')).code).toBe(255);

    const added = keyPair('added');
    await callVast(vast, 'POST', '/api/v0/ssh/', { body: { ssh_key: added.publicKey } });
    expect((await ssh(vast, inst.id, added.file, 'true')).code).toBe(255);
    clockOf(vast).advance(60_000);
    await vast.sync();
    expect((await ssh(vast, inst.id, added.file, 'true')).code).toBe(0);
    const accountKeys = await callVast(vast, 'GET', '/api/v0/ssh/');
    expect((accountKeys.json as { key: string }[]).map((k) => k.key)).toEqual([
      account.publicKey,
      added.publicKey,
    ]);
  });

  it('a held call waits unanswered until released, then is answered from the state of that moment; reset lets held calls go', async () => {
    const vast = await fake();
    const held = vast.faults.holdNext((c) => c.path === '/api/v0/bundles/');
    expect(held.isHeld()).toBe(false);
    let answered: number[] | null = null;
    const searching = search(vast, { id: { eq: 1001 } }).then((ids) => (answered = ids));
    await until(() => held.isHeld(), 10_000, 10, 'the search to be held');
    // Other calls, and a second search (the hold takes one), go through meanwhile.
    expect((await callVast(vast, 'GET', '/api/v0/ssh/')).status).toBe(200);
    expect(await search(vast, { id: { eq: 1001 } })).toEqual([1001]);
    expect(answered).toBeNull();
    vast.faults.rentAway(1001);
    held.release();
    await searching;
    expect(answered).toEqual([]);

    const second = vast.faults.holdNext((c) => c.method === 'GET');
    const pending = callVast(vast, 'GET', '/api/v0/ssh/');
    await until(() => second.isHeld(), 10_000, 10, 'the GET to be held');
    vast.faults.reset();
    expect((await pending).status).toBe(200);
    expect(second.isHeld()).toBe(false);
  });

  it('request latency (a lower bound, never a timing assertion on speed)', async () => {
    const vast = await fake();
    vast.faults.latency(150);
    const started = performance.now();
    expect((await callVast(vast, 'GET', '/api/v0/ssh/')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });
});
