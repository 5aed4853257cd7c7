import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
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

export interface PulledOutputs {
  dir: string;
  files: { path: string; size: number; sha256: string }[];
  missing: string[];
  bytes: number;
}

/** Pulls the declared outputs (and everything under TENDER_OUTPUT, as `_output/`) into
 *  `destDir`. Lands atomically: a staging folder is verified against the agent's manifest
 *  of hashes, then renamed into place. */
export async function pullOutputs(
  shell: NodeShell,
  address: AgentAddress,
  paths: string[],
  destDir: string,
): Promise<PulledOutputs> {
  const spec: OutputsSpec = { paths };
  const b64 = Buffer.from(JSON.stringify(spec)).toString('base64url');
  const ch = shell.exec(`${agentCommand(address, 'pack-outputs')} --spec ${b64}`);
  let stderr = '';
  ch.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  ch.stdin.end();

  mkdirSync(dirname(destDir), { recursive: true });
  const staging = `${destDir}.partial-${randomBytes(4).toString('hex')}`;
  mkdirSync(staging, { recursive: true });
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
        mkdirSync(target, { recursive: true });
        return;
      }
      if (header.type !== 'file') {
        body.resume();
        return;
      }
      mkdirSync(dirname(target), { recursive: true });
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
        createWriteStream(target, { mode: header.mode & 0o777 || 0o644 }),
      );
      got.set(header.path, { size, sha256: hash.digest('hex') });
    });
    await Promise.all([pipeline(ch.stdout, createMarkerSkipper(), reader), ch.exit]);
    const status = await ch.exit;
    if (status.code !== 0)
      throw new Error(`pack-outputs exited ${status.code ?? status.signal}: ${lastLine(stderr)}`);
    const m = manifest as OutputsManifest | null;
    if (!m) throw new Error('the output stream ended without its manifest');
    for (const f of m.files) {
      const have = got.get(f.path);
      if (!have || have.sha256 !== f.sha256 || have.size !== f.size) {
        throw new Error(`output ${f.path} arrived damaged (hash mismatch)`);
      }
    }
    if (existsSync(destDir)) rmSync(destDir, { recursive: true, force: true });
    renameSync(staging, destDir);
    return {
      dir: destDir,
      files: m.files,
      missing: [...m.missing, ...m.refused],
      bytes: m.files.reduce((n, f) => n + f.size, 0),
    };
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    ch.close();
    throw err instanceof TenderError
      ? err
      : new TenderError('infrastructure', `collecting outputs failed: ${(err as Error).message}`);
  }
}

function safeJoin(root: string, rel: string): string {
  const n = normalize(rel);
  if (n.startsWith('..') || n.startsWith(sep) || n.includes(`${sep}..${sep}`)) {
    throw new Error(`refusing output path outside the landing folder: ${rel}`);
  }
  return join(root, n);
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}
