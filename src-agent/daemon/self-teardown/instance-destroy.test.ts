import { describe, expect, it } from 'vitest';
import { type HttpAnswer, destroyInstance, instanceUrl, stopInstance } from './instance-destroy';

const credential = { containerId: '4242', apiKey: 'instance-key-abcdef' };

/** Runs the loop against scripted answers (an Error is a failed connection). */
async function run(script: (HttpAnswer | Error)[]) {
  const failures: string[] = [];
  const sleeps: number[] = [];
  const urls: string[] = [];
  const status = await destroyInstance('https://console.vast.ai', credential, {
    onFailure: (message) => failures.push(message),
    sleep: async (ms) => void sleeps.push(ms),
    send: async (url, key) => {
      expect(key).toBe(credential.apiKey);
      urls.push(url.href);
      const next = script.shift();
      if (!next) throw new Error('script ran out');
      if (next instanceof Error) throw next;
      return next;
    },
  });
  return { status, failures, sleeps, urls };
}

describe('instanceUrl', () => {
  it.each([
    ['https://console.vast.ai', 'https://console.vast.ai/api/v0/instances/4242/'],
    ['https://console.vast.ai/', 'https://console.vast.ai/api/v0/instances/4242/'],
    ['http://127.0.0.1:8080/fake', 'http://127.0.0.1:8080/fake/api/v0/instances/4242/'],
  ])('%s', (api, want) => {
    expect(instanceUrl(api, '4242').href).toBe(want);
  });
});

describe('destroyInstance', () => {
  it('stops at the first 2xx', async () => {
    const r = await run([{ status: 200, body: '{"success":true}' }]);
    expect(r).toMatchObject({ status: 200, failures: [], sleeps: [] });
    expect(r.urls).toEqual(['https://console.vast.ai/api/v0/instances/4242/']);
  });

  it('takes 404 as already gone', async () => {
    expect((await run([{ status: 404, body: '' }])).status).toBe(404);
  });

  it('retries 5xx, 429, 401 and dead links, doubling from 1 s up to 60 s', async () => {
    const fail = { status: 500, body: 'oops' };
    const r = await run([
      fail,
      { status: 429, body: 'slow down' },
      new Error('connect ECONNREFUSED'),
      { status: 401, body: 'bad key' },
      fail,
      fail,
      fail,
      fail,
      fail,
      { status: 204, body: '' },
    ]);
    expect(r.status).toBe(204);
    expect(r.sleeps).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60].map((s) => s * 1000));
    expect(r.failures[1]).toContain('HTTP 429: slow down');
    expect(r.failures[2]).toContain('ECONNREFUSED');
    expect(r.failures[0]).toContain('attempt 1');
  });

  it('never puts the key in a failure message', async () => {
    const r = await run([
      { status: 403, body: `key ${credential.apiKey} may not do this` },
      new Error(`socket closed for ${credential.apiKey}`),
      { status: 200, body: '' },
    ]);
    expect(r.failures).toHaveLength(2);
    for (const f of r.failures) {
      expect(f).not.toContain(credential.apiKey);
      expect(f).toContain('***');
    }
  });
});

describe('stopInstance', () => {
  it('PUTs {"state":"stopped"} to the same URL, retrying the same way, and names the method', async () => {
    const failures: string[] = [];
    const sent: { method: string; body: string }[] = [];
    const answers: HttpAnswer[] = [
      { status: 503, body: 'busy' },
      { status: 200, body: '{"success":true}' },
    ];
    const status = await stopInstance('https://console.vast.ai', credential, {
      onFailure: (message) => failures.push(message),
      sleep: async () => {},
      send: async (url, key, how) => {
        expect(key).toBe(credential.apiKey);
        expect(url.href).toBe('https://console.vast.ai/api/v0/instances/4242/');
        sent.push(how);
        return answers.shift()!;
      },
    });
    expect(status).toBe(200);
    expect(sent).toEqual([
      { method: 'PUT', body: '{"state":"stopped"}' },
      { method: 'PUT', body: '{"state":"stopped"}' },
    ]);
    expect(failures[0]).toMatch(
      /^PUT https:\/\/console\.vast\.ai\/api\/v0\/instances\/4242\/ failed \(attempt 1\): HTTP 503/,
    );
    expect(failures.join('')).not.toContain(credential.apiKey);
  });
});
