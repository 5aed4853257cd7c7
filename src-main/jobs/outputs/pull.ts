import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, createWriteStream, existsSync, linkSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createMarkerSkipper } from '../../../src-agent/wire/marker';
import {
  MANIFEST_PATH,
  type OutputsManifest,
  type OutputsSpec,
} from '../../../src-agent/wire/protocol';
import { createTarReader } from '../../../src-agent/wire/tar';
import { TenderError } from '../../base/tender-error';
import { agentCommand, type AgentAddress } from '../../nodes/node-layout';
import type { NodeShell } from '../../transport/node-shell';
import { landingPath } from './landing-path';
import { haveOf, type PulledFile, readPullIndex, writePullIndex } from './pull-index';
import { mkdirPrivate, ownerBits, PRIVATE_FILE_MODE } from '../../base/private-files';

export interface PulledOutputs {
  dir: string;
  /** Everything the landing folder now holds: what came in this pull and what was kept. */
  files: { path: string; size: number; sha256: string }[];
  missing: string[];
  bytes: number;
  /** Of `files`, those unchanged since the last pull: not sent again, kept from it. */
  kept: number;
  /** Bytes that crossed the link in this pull. */
  bytesSent: number;
}

export interface PullOptions {
  /** Ask only for what changed since the last pull into `destDir` (pull-index.ts). */
  incremental?: boolean;
  /** With `incremental`: the folder whose last pull is the baseline, when the pull lands in
   *  a new folder beside it (a checkpoint generation). Its unchanged files are hard-linked
   *  into `destDir`; it is left as it is. Default: `destDir` itself. */
  base?: string;
}

/** Pulls the declared outputs (and everything under TENDER_OUTPUT, as `_output/`) into
 *  `destDir`. Lands atomically: a staging folder is verified against the agent's manifest
 *  of hashes, then renamed into place. */
export async function pullOutputs(
  shell: NodeShell,
  address: AgentAddress,
  paths: string[],
  destDir: string,
  opts: PullOptions = {},
): Promise<PulledOutputs> {
  const base = opts.base ?? destDir;
  const held = opts.incremental ? readPullIndex(base) : new Map<string, PulledFile>();
  try {
    return await pullOnce(shell, address, paths, { destDir, base }, held.size > 0 ? held : null);
  } catch (err) {
    // An agent from before incremental pulls: once more, the whole way.
    if (err instanceof OldAgentError)
      return pullOnce(shell, address, paths, { destDir, base }, null);
    throw err;
  }
}

class OldAgentError extends Error {}

async function pullOnce(
  shell: NodeShell,
  address: AgentAddress,
  paths: string[],
  { destDir, base }: { destDir: string; base: string },
  held: Map<string, PulledFile> | null,
): Promise<PulledOutputs> {
  const spec: OutputsSpec = { paths };
  const b64 = Buffer.from(JSON.stringify(spec)).toString('base64url');
  const flag = held ? ' --have-stdin' : '';
  const ch = shell.exec(`${agentCommand(address, 'pack-outputs')} --spec ${b64}${flag}`);
  let stderr = '';
  ch.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  ch.stdin.end(held ? JSON.stringify(haveOf(held)) : undefined);

  mkdirPrivate(dirname(destDir));
  const staging = `${destDir}.partial-${randomBytes(4).toString('hex')}`;
  mkdirPrivate(staging);
  const got = new Map<string, { size: number; sha256: string }>();
  let manifest: OutputsManifest | null = null;

  try {
    const reader = createTarReader(async ({ header, body }) => {
      if (header.path === MANIFEST_PATH) {
        manifest = JSON.parse((await readAll(body)).toString('utf8')) as OutputsManifest;
        return;
      }
      const target = safeJoin(staging, header.path);
      if (header.type === 'directory') {
        mkdirPrivate(target);
        return;
      }
      if (header.type !== 'file') {
        body.resume();
        return;
      }
      mkdirPrivate(dirname(target));
      const hash = createHash('sha256');
      let size = 0;
      const hashing = new Transform({
        transform(chunk: Buffer, _enc, cb) {
          hash.update(chunk);
          size += chunk.length;
          cb(null, chunk);
        },
      });
      await pipeline(
        body,
        hashing,
        createWriteStream(target, { mode: ownerBits(header.mode) || PRIVATE_FILE_MODE }),
      );
      got.set(header.path, { size, sha256: hash.digest('hex') });
    });
    await Promise.all([pipeline(ch.stdout, createMarkerSkipper(), reader), ch.exit]);
    const status = await ch.exit;
    if (held && status.code === 2 && /--have-stdin/.test(stderr)) throw new OldAgentError();
    if (status.code !== 0)
      throw new Error(`pack-outputs exited ${status.code ?? status.signal}: ${lastLine(stderr)}`);
    const m = manifest as OutputsManifest | null;
    if (!m) throw new Error('the output stream ended without its manifest');
    const now = new Map<string, PulledFile>();
    for (const f of m.files) {
      const have = got.get(f.path);
      if (!have || have.sha256 !== f.sha256 || have.size !== f.size) {
        throw new Error(`output ${f.path} arrived damaged (hash mismatch)`);
      }
      now.set(f.path, { size: f.size, sha256: f.sha256, nodeMtimeMs: f.mtimeMs ?? 0 });
    }
    for (const k of m.kept ?? []) {
      const mine = held?.get(k.path);
      if (!mine || mine.size !== k.size)
        throw new Error(`the node kept ${k.path}, which the last pull did not bring`);
      keepFrom(join(base, k.path), safeJoin(staging, k.path));
      now.set(k.path, mine);
    }
    if (existsSync(destDir)) rmSync(destDir, { recursive: true, force: true });
    renameSync(staging, destDir);
    writePullIndex(destDir, now);
    const files = [...now].map(([path, f]) => ({ path, size: f.size, sha256: f.sha256 }));
    return {
      dir: destDir,
      files,
      missing: [...m.missing, ...m.refused],
      bytes: files.reduce((n, f) => n + f.size, 0),
      kept: m.kept?.length ?? 0,
      bytesSent: m.files.reduce((n, f) => n + f.size, 0),
    };
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    ch.close();
    if (err instanceof OldAgentError) throw err;
    throw err instanceof TenderError
      ? err
      : new TenderError('infrastructure', `collecting outputs failed: ${(err as Error).message}`);
  }
}

/** The last pull's copy of a kept file, into the new landing folder: a hard link (the old
 *  folder may be removed after), or a copy where links cannot be made. */
function keepFrom(src: string, dst: string): void {
  mkdirPrivate(dirname(dst));
  try {
    linkSync(src, dst);
  } catch {
    copyFileSync(src, dst);
  }
}

function safeJoin(root: string, rel: string): string {
  const path = landingPath(root, rel);
  if (path === null) throw new Error(`refusing output path outside the landing folder: ${rel}`);
  return path;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}
