// The node's own podTerminate, against a real HTTP server on 127.0.0.1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findPodCredential, terminatePod } from './runpod-teardown';

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const POD_KEY = 'rpa_PODKEY0123456789';

async function serve(answers: { status: number; body: string }[]) {
  const seen: { url: string; auth: string | undefined; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', auth: req.headers.authorization, body });
      const a = answers.shift() ?? { status: 200, body: '{"data":{"podTerminate":null}}' };
      res.writeHead(a.status, { 'Content-Type': 'application/json' });
      res.end(a.body);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen };
}

const quick = (failures: string[]) => ({
  onFailure: (m: string) => failures.push(m),
  sleep: () => Promise.resolve(),
});

describe('findPodCredential', () => {
  it('takes the agent environment first, else the first env file with both', () => {
    const home = mkdtempSync(join(tmpdir(), 'tender-rp-cred-'));
    dirs.push(home);
    writeFileSync(join(home, '.runpod-env'), `RUNPOD_POD_ID=abc\0RUNPOD_API_KEY=${POD_KEY}\0`);
    expect(
      findPodCredential({ RUNPOD_POD_ID: 'env', RUNPOD_API_KEY: 'k' }, ['~/.runpod-env'], home),
    ).toEqual({ podId: 'env', apiKey: 'k' });
    expect(
      findPodCredential({ RUNPOD_POD_ID: 'only-id' }, ['~/missing', '~/.runpod-env'], home),
    ).toEqual({ podId: 'abc', apiKey: POD_KEY });
    expect(findPodCredential({}, ['~/missing'], home)).toBeNull();
  });
});

describe('terminatePod', () => {
  it('sends podTerminate for its own pod with the pod key, through 500s and GraphQL errors', async () => {
    const api = await serve([
      { status: 500, body: 'Internal Server Error' },
      {
        status: 200,
        body: JSON.stringify({ errors: [{ message: `something broke ${POD_KEY}` }], data: null }),
      },
    ]);
    const failures: string[] = [];

    const outcome = await terminatePod(api.url, { podId: 'abc', apiKey: POD_KEY }, quick(failures));

    expect(outcome).toBe('accepted');
    expect(api.seen).toHaveLength(3);
    for (const s of api.seen) {
      expect(s).toMatchObject({ url: '/graphql', auth: `Bearer ${POD_KEY}` });
      expect(JSON.parse(s.body)).toEqual({
        query: 'mutation Terminate($input: PodTerminateInput!) { podTerminate(input: $input) }',
        variables: { input: { podId: 'abc' } },
      });
    }
    expect(failures).toHaveLength(2);
    expect(failures.join('\n')).not.toContain(POD_KEY);
  });

  it('takes "pod not found to terminate" as already gone', async () => {
    const api = await serve([
      {
        status: 200,
        body: JSON.stringify({
          errors: [{ message: 'pod not found to terminate' }],
          data: { podTerminate: null },
        }),
      },
    ]);
    expect(await terminatePod(api.url, { podId: 'abc', apiKey: POD_KEY }, quick([]))).toBe('gone');
  });
});
