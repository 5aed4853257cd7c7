// The download route of web mode over real HTTP on 127.0.0.1, resolving real files through
// the outputs service's confinement (a temp home; the ledger's part is a plain table).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus } from '../base/event-bus';
import type { Handlers } from '../contract/handlers';
import { outputDownloadUrl } from '../contract/output-download';
import { outputFileResolver, type OutputsLedger } from '../services/outputs/output-files';
import { startWebServer, type WebServer } from './ws-server';

let root: string;
let server: WebServer;

const RUN = 'r-abc123';
const ledger = {
  getRun: (id: string) => (id === RUN ? { id } : undefined),
  nodesOfRun: (id: string) => (id === RUN ? [{ logicalId: 'node-0' }] : []),
  listCells: (id: string) => (id === RUN ? [{ id: 'j0' }, { id: 'j1' }] : []),
} as unknown as OutputsLedger;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'tender-download-'));
  const home = join(root, 'home');
  const node = join(home, 'runs', RUN, 'node-0', 'outputs');
  mkdirSync(join(node, 'out'), { recursive: true });
  writeFileSync(join(node, 'out', 'm.json'), '{"loss": 1}');
  const cell = join(home, 'runs', RUN, 'jobs', 'j1', 'outputs');
  mkdirSync(cell, { recursive: true });
  writeFileSync(join(cell, 'seed.txt'), 'seed 2\n');
  writeFileSync(join(home, 'secrets.json'), '{"vastaiApiKey": "k"}');
  symlinkSync(join(home, 'secrets.json'), join(node, 'out', 'link.json'));
  mkdirSync(join(root, 'renderer'));
  writeFileSync(join(root, 'renderer', 'index.html'), '<html></html>');
  server = await startWebServer(
    { handlers: {} as Handlers, bus: new EventBus() },
    { rendererDir: join(root, 'renderer'), outputs: outputFileResolver(home, ledger) },
  );
});

afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

async function get(path: string, token: string | null = server.token) {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    headers: token === null ? {} : { Authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

describe('web mode: downloading an output file', () => {
  it('sends a node’s file, and a sweep cell’s, as attachments', async () => {
    const node = await get(
      outputDownloadUrl({ runId: RUN, nodeName: 'node-0', path: 'out/m.json' }),
    );
    expect(node.status).toBe(200);
    expect(node.body).toBe('{"loss": 1}');
    expect(node.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''m.json");
    const cell = await get(outputDownloadUrl({ runId: RUN, cellId: 'j1', path: 'seed.txt' }));
    expect(cell.status).toBe(200);
    expect(cell.body).toBe('seed 2\n');
  });

  it.each<[string, string | null, string, number]>([
    [
      'no token',
      null,
      outputDownloadUrl({ runId: RUN, nodeName: 'node-0', path: 'out/m.json' }),
      401,
    ],
    [
      'a wrong token',
      'x'.repeat(32),
      outputDownloadUrl({ runId: RUN, nodeName: 'node-0', path: 'out/m.json' }),
      401,
    ],
    [
      'the token in the URL only',
      null,
      `${outputDownloadUrl({ runId: RUN, nodeName: 'node-0', path: 'out/m.json' })}&token=TOKEN`,
      401,
    ],
    [
      'a .. path',
      'ok',
      outputDownloadUrl({ runId: RUN, nodeName: 'node-0', path: '../../../secrets.json' }),
      400,
    ],
    [
      'an absolute path',
      'ok',
      outputDownloadUrl({ runId: RUN, nodeName: 'node-0', path: '/etc/passwd' }),
      400,
    ],
    [
      'an encoded .. part',
      'ok',
      outputDownloadUrl({ runId: RUN, nodeName: 'node-0', path: 'out/%2e%2e/%2e%2e/x' }),
      404,
    ],
    [
      'a symlink out of the outputs',
      'ok',
      outputDownloadUrl({ runId: RUN, nodeName: 'node-0', path: 'out/link.json' }),
      404,
    ],
    ['a folder', 'ok', outputDownloadUrl({ runId: RUN, nodeName: 'node-0', path: 'out' }), 404],
    [
      'another run',
      'ok',
      outputDownloadUrl({ runId: 'r-other1', nodeName: 'node-0', path: 'out/m.json' }),
      404,
    ],
    [
      'a node not in the run',
      'ok',
      outputDownloadUrl({ runId: RUN, nodeName: '../node-0', path: 'out/m.json' }),
      404,
    ],
    [
      'a cell not in the run',
      'ok',
      outputDownloadUrl({ runId: RUN, cellId: '../../node-0', path: 'out/m.json' }),
      404,
    ],
    ['neither node nor cell', 'ok', `/outputs/file?run=${RUN}&path=out/m.json`, 400],
  ])('refuses %s', async (_, token, path, status) => {
    const got = await get(
      path.replace('TOKEN', server.token),
      token === 'ok' ? server.token : token,
    );
    expect(got.status).toBe(status);
    expect(got.body).not.toContain('vastaiApiKey');
  });

  it('refuses a page of another name pointed at this machine (DNS rebinding): 421', async () => {
    const status = await new Promise<number>((resolve, reject) =>
      httpGet(
        {
          host: '127.0.0.1',
          port: server.port,
          path: outputDownloadUrl({ runId: RUN, nodeName: 'node-0', path: 'out/m.json' }),
          headers: { Host: `evil.example:${server.port}`, Authorization: `Bearer ${server.token}` },
        },
        (res) => resolve((res.resume(), res.statusCode ?? 0)),
      ).on('error', reject),
    );
    expect(status).toBe(421);
  });

  it('leaves every other address to the bundle', async () => {
    const page = await get('/', null);
    expect(page.status).toBe(200);
    expect(page.body).toBe('<html></html>');
  });
});
