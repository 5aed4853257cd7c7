// Compressed workspace pushes over a real OpenSSH sshd into the built agent, installed as a
// bootstrap installs it (by this build's bundle hash): text, noise and already-compressed
// files arrive byte-exact, first push and delta alike, over an exec and over a session;
// a damaged compressed stream is refused with `bad_encoding` and changes nothing; an agent
// that is not this build's gets the plain tar. Needs root.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FRAME_HEAD_BYTES, frame } from '../../src-agent/wire/frames';
import { STREAM_MARKER } from '../../src-agent/wire/marker';
import {
  type CommandError,
  type RecvWorkspaceOutput,
  SEALED_MANIFEST,
  type WorkspaceManifest,
} from '../../src-agent/wire/protocol';
import {
  decodeSegmentHead,
  ENCODED_MAGIC,
  PUSH_ENCODING_ENV,
  SEGMENT_HEAD_BYTES,
} from '../../src-agent/wire/push-encoding';
import { createTarWriter } from '../../src-agent/wire/tar';
import { collect } from '../../src-agent/wire/tar/tar-test-helpers';
import { NodeManifestMemory } from '../../src-main/jobs/workspace/node-manifest-memory';
import { PushEncoder } from '../../src-main/jobs/workspace/push-encoder';
import { scanWorkspace } from '../../src-main/jobs/workspace/scan';
import { syncWorkspace } from '../../src-main/jobs/workspace/sync';
import { WorkspaceSession } from '../../src-main/jobs/workspace/sync-session';
import { loadAgentBundle } from '../../src-main/nodes/agent-bundle';
import type { AgentAddress } from '../../src-main/nodes/node-layout';
import { execCapture } from '../../src-main/transport/exec-helpers';
import { forgetExecRoundTrips, noteExecRoundTrip } from '../../src-main/transport/exec-round-trip';
import { connectSsh, type SshShell } from '../../src-main/transport/ssh-shell';
import { type SshdFixture, startSshd } from '../helpers/sshd';
import { sha256, snapshot, type Tree, writeTree } from '../helpers/workspace-tree';

let fixture: SshdFixture;
/** One connection for every test. Each push here puts out less than the pace's warm-up
 *  (4 MiB), so none judges the loopback link fast and turns compression off over it.
 *  Pushes ask for compression `on`: under `auto`, a link measured fast goes plain. */
let shell: SshShell;
/** The agent as bootstrap installs it: named by this build's bundle hash. */
let bundleWord: string;

beforeAll(async () => {
  fixture = await startSshd();
  shell = await connectSsh(
    {
      host: fixture.host,
      port: fixture.port,
      user: fixture.user,
      privateKey: fixture.clientKey.privateKey,
    },
    {
      hostKey: (info) =>
        info.fingerprint === fixture.hostKeyFingerprint ? null : 'not the fixture',
      signal: AbortSignal.timeout(30_000),
      deadlineMs: 20_000,
    },
  );
  const bundle = loadAgentBundle();
  bundleWord = `"$HOME"/.tender/cache/agent/tender-agent-${bundle.sha256.slice(0, 16)}.cjs`;
  await execCapture(shell, `mkdir -p "$HOME"/.tender/cache/agent && cat > ${bundleWord}`, {
    stdin: bundle.bytes,
  });
  return async () => {
    await shell.close();
    await fixture.stop();
  };
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const KB = 1024;

/** Seeded CSV lines: compress about 4×. */
function csv(bytes: number, seed: number): Buffer {
  let x = seed;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
  const labels = ['cat', 'dog', 'bird', 'ship', 'truck', 'plane'];
  const lines: string[] = ['id,label,score,loss\n'];
  for (let i = 0, n = 0; n < bytes; i++) {
    const line = `${i},${labels[Math.floor(next() * labels.length)]},${next().toFixed(4)},${(next() * 3).toFixed(5)}\n`;
    lines.push(line);
    n += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
}

/** Text, noise under a weights name, already-compressed formats, an empty file, modes. */
function mixedTree(): Tree {
  const tree: Tree = {
    'train.py': 'import torch\n'.repeat(400),
    'run.sh': { content: '#!/bin/sh\nexec python train.py "$@"\n', mode: 0o755 },
    'data/train.csv': { content: csv(3 * 1024 * KB, 1), mode: 0o644 },
    'ckpt/model.pt': { content: randomBytes(1536 * KB), mode: 0o600 },
    'data/images.zip': { content: randomBytes(300 * KB), mode: 0o644 },
    'logs/old.log.gz': { content: gzipSync(csv(400 * KB, 2)), mode: 0o644 },
    'assets/logo.png': { content: randomBytes(20 * KB), mode: 0o644 },
    'empty.txt': '',
  };
  for (let i = 0; i < 40; i++)
    tree[`src/pkg${i % 4}/mod${i}.py`] = `def f${i}(x):\n    return x * ${i}\n`.repeat(30);
  return tree;
}

async function localWorkspace(tree: Tree): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tender-zpush-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await writeTree(join(dir, 'ws'), tree);
  return join(dir, 'ws');
}

let nodes = 0;
function node(word = bundleWord): { address: AgentAddress; dir: string } {
  const name = `z-${process.pid}-${nodes++}`;
  return {
    address: { runtime: 'node', bundleWord: word, dirWord: `"$HOME"/.tender/nodes/${name}` },
    dir: join(fixture.home, '.tender', 'nodes', name),
  };
}

const push = async (
  ws: string,
  address: AgentAddress,
  extra: Parameters<typeof syncWorkspace>[3] = {},
) => syncWorkspace(shell, address, await scanWorkspace(ws, []), { compression: 'on', ...extra });

/** What `recv-workspace` (or a session's answer line) printed. */
function answerOf(stdout: string): RecvWorkspaceOutput | CommandError {
  const at = stdout.lastIndexOf(STREAM_MARKER);
  return JSON.parse(
    (at >= 0 ? stdout.slice(at + STREAM_MARKER.length) : stdout).trim().split('\n')[0]!,
  ) as RecvWorkspaceOutput | CommandError;
}

/** A sealed push of `files` (name → bytes), encoded; `isDamaged`: with one byte of its
 *  first compressed segment flipped. */
async function encodedSealedPush(files: Record<string, Buffer>, isDamaged = true): Promise<Buffer> {
  const tar = createTarWriter();
  const encoder = new PushEncoder();
  const encoded = collect(tar.pipe(encoder));
  await tar.addDirectory('w', { mode: 0o755 });
  const manifest: WorkspaceManifest = { version: 1, files: {}, dirs: [] };
  for (const [name, body] of Object.entries(files)) {
    await tar.addFile(`w/${name}`, { size: body.length, mode: 0o644 }, body);
    manifest.files[name] = { size: body.length, mode: 0o644, sha256: sha256(body) };
  }
  const body = Buffer.from(JSON.stringify(manifest));
  await tar.addFile(SEALED_MANIFEST, { size: body.length, mode: 0o600 }, body);
  await tar.finish();
  const bytes = Buffer.from(await encoded);
  if (!isDamaged) return bytes;
  for (let at = ENCODED_MAGIC.length; at < bytes.length;) {
    const head = decodeSegmentHead(bytes.subarray(at, at + SEGMENT_HEAD_BYTES));
    if (head.kind === 'brotli') {
      bytes[at + SEGMENT_HEAD_BYTES + Math.floor(head.bytes / 2)]! ^= 0x5a;
      return bytes;
    }
    at += SEGMENT_HEAD_BYTES + head.bytes;
  }
  throw new Error('the push has no compressed segment to damage');
}

describe('compressed workspace push over sshd', () => {
  it('sends text compressed and noise as it is, and the node holds an exact copy', async () => {
    const ws = await localWorkspace(mixedTree());
    const n = node();
    const first = await push(ws, n.address);
    expect(first).toMatchObject({ mode: 'full', fullReason: 'first' });
    expect(await snapshot(join(n.dir, 'workspace'))).toEqual(await snapshot(ws));
    // Compressed: 3 MiB of CSV (to ~40%) and the code shrink, 2 MiB of noise does not.
    expect(first.tarBytes).toBeGreaterThan(5 * 1024 * KB);
    expect(first.streamBytes).toBeLessThan(first.tarBytes! - 1536 * KB);
    expect(first.streamBytes).toBeGreaterThan(2 * 1024 * KB);

    const plain = node();
    const uncompressed = await push(ws, plain.address, { compression: 'off' });
    expect(uncompressed.tarBytes).toBeUndefined();
    expect(uncompressed.streamBytes).toBe(first.tarBytes);
  });

  it('times exec grants to the endpoint, and under auto compresses across a LAN round trip whose link is not measured', async () => {
    const ws = await localWorkspace(mixedTree());
    // The execs so far (the agent's install, the pushes) were timed: a few ms each here,
    // more on a loaded machine.
    const seen = shell.execRoundTripMs()!;
    expect(seen).toBeGreaterThan(0);
    expect(seen).toBeLessThan(1000);
    // A LAN's grants (what an idle loopback shows: ~1.5 ms).
    noteExecRoundTrip(`${fixture.host}:${fixture.port}`, 1.5);
    expect(shell.execRoundTripMs()).toBe(1.5);
    // A short round trip is not a fast link (a 100 Mbit/s uplink to a nearby region grants
    // execs as fast): only a measured link rate sends plain (workspace-link-compression).
    const auto = await push(ws, node().address, { compression: 'auto' });
    expect(auto.compression).toMatchObject({ isEncoded: true, why: 'unmeasured' });
    expect(auto.tarBytes).toBeGreaterThan(5 * 1024 * KB);
    forgetExecRoundTrips();
  });

  it('sends a delta compressed, over an exec and over a session', async () => {
    const ws = await localWorkspace(mixedTree());
    const n = node();
    const memory = { store: new NodeManifestMemory(null), key: 'n' };
    await push(ws, n.address, { memory });

    await writeFile(join(ws, 'data/train.csv'), csv(2 * 1024 * KB, 3));
    await writeFile(join(ws, 'data/val.csv'), csv(512 * KB, 4));
    await writeFile(join(ws, 'ckpt/model.pt'), randomBytes(700 * KB));
    const delta = await push(ws, n.address, { memory });
    expect(delta).toMatchObject({ mode: 'delta', filesSent: 3 });
    expect(delta.streamBytes).toBeLessThan(delta.tarBytes! - 1024 * KB);
    expect(await snapshot(join(n.dir, 'workspace'))).toEqual(await snapshot(ws));

    const session = await WorkspaceSession.open(shell, n.address);
    cleanups.push(() => session.close());
    await writeFile(join(ws, 'data/train.csv'), csv(1024 * KB, 5));
    await utimes(join(ws, 'train.py'), new Date(), new Date());
    await writeFile(join(ws, 'notes.md'), '# notes\n'.repeat(5000));
    const viaSession = await push(ws, n.address, { memory, via: session });
    expect(viaSession).toMatchObject({ mode: 'delta', filesSent: 2 });
    expect(viaSession.streamBytes).toBeLessThan(viaSession.tarBytes! / 2);
    expect(await snapshot(join(n.dir, 'workspace'))).toEqual(await snapshot(ws));

    // Live sync into a running job: in place, over the session.
    await writeFile(join(ws, 'data/val.csv'), csv(900 * KB, 8));
    const inPlace = await push(ws, n.address, { memory, via: session, inPlace: true });
    expect(inPlace).toMatchObject({ mode: 'delta', filesSent: 1 });
    expect(inPlace.streamBytes).toBeLessThan(inPlace.tarBytes! / 2);
    expect(await snapshot(join(n.dir, 'workspace'))).toEqual(await snapshot(ws));
  });

  it.each(['1', '0'])(
    'decodes into GNU tar or the agent itself (TENDER_AGENT_TAR=%s)',
    async (useTar) => {
      const n = node();
      const files = { 'a.csv': csv(1500 * KB, 6), 'b.bin': randomBytes(1200 * KB) };
      const r = await execCapture(
        shell,
        `TENDER_AGENT_TAR=${useTar} ${PUSH_ENCODING_ENV}=sb1 node ${bundleWord} recv-workspace --sealed --dir ${n.address.dirWord}`,
        { stdin: await encodedSealedPush(files, false) },
      );
      expect(answerOf(r.stdout)).toMatchObject({
        mode: 'full',
        files: 2,
        extractor: useTar === '1' ? 'tar' : 'agent',
      });
      for (const [name, body] of Object.entries(files)) {
        expect((await snapshot(join(n.dir, 'workspace')))[name]).toBe(`600 ${sha256(body)}`);
      }
    },
  );

  it('refuses a damaged compressed push with bad_encoding and keeps the workspace as it was', async () => {
    const ws = await localWorkspace(mixedTree());
    const n = node();
    await push(ws, n.address);
    const before = await snapshot(join(n.dir, 'workspace'));

    const damaged = await encodedSealedPush({ 'train.py': csv(200 * KB, 9) });
    const r = await execCapture(
      shell,
      `${PUSH_ENCODING_ENV}=sb1 node ${bundleWord} recv-workspace --sealed --dir ${n.address.dirWord}`,
      { stdin: damaged },
    );
    expect(r.code).toBe(1);
    const answer = answerOf(r.stdout) as CommandError;
    expect(answer.error.code).toBe('bad_encoding');
    expect(answer.error.message).toMatch(/compressed push is damaged at byte \d+ .*push again/);
    expect(await snapshot(join(n.dir, 'workspace'))).toEqual(before);
    expect(readdirSync(n.dir).filter((e) => e.startsWith('.workspace-'))).toEqual([]);
  });

  it('refuses a damaged push in a session, which stays in step', async () => {
    const ws = await localWorkspace(mixedTree());
    const n = node();
    await push(ws, n.address);
    const before = await snapshot(join(n.dir, 'workspace'));

    const damaged = await encodedSealedPush({ 'train.py': csv(200 * KB, 9) });
    const frames: Buffer[] = [
      ...frame(
        Buffer.from(JSON.stringify({ op: 'recv', inPlace: false, sealed: true, encoding: 'sb1' })),
      ),
    ];
    for (let at = 0; at < damaged.length; at += 32 * KB - FRAME_HEAD_BYTES) {
      frames.push(...frame(damaged.subarray(at, at + 32 * KB - FRAME_HEAD_BYTES)));
    }
    frames.push(...frame(Buffer.alloc(0)), ...frame(Buffer.from('{"op":"manifest"}')));
    const r = await execCapture(
      shell,
      `node ${bundleWord} serve-workspace --dir ${n.address.dirWord}`,
      {
        stdin: Buffer.concat(frames),
      },
    );
    expect(r.code).toBe(0);
    const lines = r.stdout
      .slice(r.stdout.indexOf(STREAM_MARKER) + STREAM_MARKER.length)
      .trim()
      .split('\n');
    expect((JSON.parse(lines[0]!) as CommandError).error.code).toBe('bad_encoding');
    const manifest = JSON.parse(lines[1]!) as { manifest: { files: Record<string, unknown> } };
    expect(Object.keys(manifest.manifest.files)).toContain('data/train.csv');
    expect(await snapshot(join(n.dir, 'workspace'))).toEqual(before);
  });

  it('sends an agent that is not this build the plain tar; one that takes it as tar fails and writes nothing', async () => {
    const ws = await localWorkspace(mixedTree());
    // Another build's agent (a run started by an older Tender): same code, another name.
    const old = `"$HOME"/.tender/cache/agent/tender-agent-${'0'.repeat(16)}.cjs`;
    await execCapture(shell, `cp ${bundleWord} ${old}`);
    const n = node(old);
    const res = await push(ws, n.address);
    expect(res.tarBytes).toBeUndefined();
    expect(await snapshot(join(n.dir, 'workspace'))).toEqual(await snapshot(ws));

    // What an agent from before compression makes of a compressed stream: not a tar.
    const fresh = node();
    const encoded = await encodedSealedPush({ 'a.txt': csv(100 * KB, 1) }, false);
    const r = await execCapture(
      shell,
      `node ${bundleWord} recv-workspace --sealed --dir ${fresh.address.dirWord}`,
      {
        stdin: encoded,
      },
    );
    expect(r.code).toBe(1);
    expect((answerOf(r.stdout) as CommandError).error.code).toMatch(/^(tar_failed|bad_tar)$/);
    expect(existsSync(join(fresh.dir, 'workspace'))).toBe(false);
  });
});
