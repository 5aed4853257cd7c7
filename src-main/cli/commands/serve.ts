import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startWebServer } from '../../api/ws-server';
import { TenderCore } from '../../core/tender-core';
import { outputFileResolver } from '../../services/outputs/output-files';
import { TenderError } from '../../base/tender-error';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { info } from '../output';
import { positiveNumber } from './flags';

export const SERVE_USAGE = 'tender serve [--port N]';

/** Web mode: the desktop UI in a browser, served on 127.0.0.1 with a session token. */
export async function serveCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { port: { type: 'string' } } });
  const port = values.port === undefined ? 0 : positiveNumber('--port', values.port, true);
  const rendererDir = findRenderer();
  const core = TenderCore.open(ctx.coreOptions);
  // An always-on driver: every run nobody drives is picked up (renewed, collected, torn
  // down as its policy says) — the way to hands-off runs with the laptop closed.
  void core.client.invoke('run.collectDue', { all: true });
  const outputs = outputFileResolver(core.home, core.ledger);
  const server = await startWebServer(core, { port, rendererDir, outputs });
  // The first line is the URL: scripts (and the browser tests) read it from there.
  process.stdout.write(`Tender web UI: ${server.url}\n`);
  info(
    `serving ${ctx.home} on 127.0.0.1:${server.port}; Ctrl-C stops (running jobs keep running on their nodes)`,
  );
  await new Promise<void>((resolveStop) => {
    process.once('SIGINT', resolveStop);
    process.once('SIGTERM', resolveStop);
  });
  await server.close();
  await core.close();
  return EXIT.ok;
}

function findRenderer(): string {
  const here = import.meta.dirname;
  // TENDER_RENDERER_DIR: a renderer built elsewhere (a second build while developing).
  const dirs = [
    ...(process.env.TENDER_RENDERER_DIR ? [resolve(process.env.TENDER_RENDERER_DIR)] : []),
    join(here, '..', 'renderer'),
    resolve(process.cwd(), 'out', 'renderer'),
  ];
  const dir = dirs.find((d) => existsSync(join(d, 'index.html')));
  if (!dir)
    throw new TenderError(
      'internal',
      'the UI bundle (out/renderer) was not found',
      'Run `npm run build` first.',
    );
  return dir;
}
