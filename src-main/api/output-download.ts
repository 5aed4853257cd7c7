// Web mode's one HTTP route besides the bundle: a run's output file, downloaded by the page.
// A browser on another machine cannot open a folder here, so it fetches the file. The session
// token is required in the Authorization header (never in the URL, so it is in no log or
// history), and the file is resolved by the outputs service: confined to that run's node or
// cell outputs, no traversal, no symlink out.
import { timingSafeEqual } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OUTPUT_DOWNLOAD_PATH } from '../contract/output-download';
import { TenderError } from '../base/tender-error';
import { pageHeaders } from './static-files';
import { hostRefusal, isAllowedHost, parseTarget } from './web-guard';

/** Resolves a run's output file to a path on this machine, or throws (not_found, bad_input). */
export type OutputFileResolver = (q: {
  runId: string;
  nodeName?: string;
  cellId?: string;
  path: string;
}) => string;

/** Handles `GET <OUTPUT_DOWNLOAD_PATH>?run=&node=|cell=&path=`; false for any other request
 *  (the caller serves it). */
export function serveOutputDownload(
  req: IncomingMessage,
  res: ServerResponse,
  server: { token: string; port: number },
  resolve: OutputFileResolver,
): boolean {
  const target = parseTarget(req.url);
  if (target?.path !== OUTPUT_DOWNLOAD_PATH) return false;
  const headers = pageHeaders(server.port);
  const fail = (status: number, message: string) => {
    res
      .writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' })
      .end(`${message}\n`);
    return true;
  };
  if (!isAllowedHost(req.headers.host, server.port))
    return fail(421, hostRefusal(req.headers.host, server.port).trimEnd());
  if (req.method !== 'GET') return fail(405, 'GET only');
  if (!isBearer(req.headers.authorization, server.token))
    return fail(401, 'missing or wrong session token');
  const q = target.query;
  const runId = q.get('run');
  const path = q.get('path');
  const nodeName = q.get('node') ?? undefined;
  const cellId = q.get('cell') ?? undefined;
  if (!runId || !path || (nodeName === undefined) === (cellId === undefined))
    return fail(400, 'name the run, the path, and one of node or cell');
  let file: string;
  try {
    file = resolve({ runId, path, ...(cellId ? { cellId } : { nodeName }) });
  } catch (err) {
    const code = err instanceof TenderError ? err.code : 'internal';
    return fail(
      code === 'bad_input' ? 400 : code === 'not_found' ? 404 : 500,
      (err as Error).message,
    );
  }
  // The file may go between the look and the read (a rerun's clean slate, a manual delete).
  const size = sizeOf(file);
  if (size === null) return fail(404, `${path} is no longer there`);
  res.writeHead(200, {
    ...headers,
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(size),
    'Content-Disposition': `attachment; filename*=UTF-8''${encodeURIComponent(basename(file))}`,
    'Cache-Control': 'no-store',
  });
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
  return true;
}

function sizeOf(file: string): number | null {
  try {
    return statSync(file).size;
  } catch {
    return null;
  }
}

function isBearer(header: string | undefined, token: string): boolean {
  const m = /^Bearer (.+)$/.exec(header ?? '');
  if (!m) return false;
  const a = Buffer.from(m[1]!);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
