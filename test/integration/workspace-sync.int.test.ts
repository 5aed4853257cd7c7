// Incremental workspace push against the built agent: syncWorkspace over a LocalShell into
// `recv-workspace` / `workspace-manifest`, with the node's folder inspected directly.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandError, DeltaHeader } from '../../src-agent/wire/protocol';
import { collect } from '../../src-agent/wire/tar/tar-test-helpers';
import { createTarWriter } from '../../src-agent/wire/tar/writer';
import { hashCacheFile } from '../../src-main/jobs/workspace/hash-cache';
import { NodeManifestMemory } from '../../src-main/jobs/workspace/node-manifest-memory';
import { WorkspaceRefusedError } from '../../src-main/jobs/workspace/recv-channel';
import { scanWorkspace } from '../../src-main/jobs/workspace/scan';
import { fetchNodeManifest, syncWorkspace } from '../../src-main/jobs/workspace/sync';
import type { AgentAddress } from '../../src-main/nodes/node-layout';
import { shq } from '../../src-main/transport/exec-helpers';
import { agentBundlePath, markedJson, runAgent } from '../helpers/agent-bundle';
import { RecvTestShell } from '../helpers/recv-test-shell';
import { sha256, snapshot, type Tree, writeTree } from '../helpers/workspace-tree';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'tender-sync-'));
  cleanups.push(() => rm(d, { recursive: true, force: true }));
  return d;
}

async function inodes(root: string, paths: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const p of paths) out[p] = (await lstat(join(root, p))).ino;
  return out;
}

const KB = 1024;
const blob = (seed: string, size: number) =>
  Buffer.alloc(size, createHash('sha256').update(seed).digest());

interface Setup {
  local: string;
  D: string;
  home: string;
  shell: RecvTestShell;
  address: AgentAddress;
}

async function setup(
  files: Tree,
  nodeDir?: string,
  env: Record<string, string> = {},
): Promise<Setup> {
  const root = await tempDir();
  const local = join(root, 'local');
  const D = nodeDir ?? join(root, 'node');
  await mkdir(local);
  await writeTree(local, files);
  const shell = new RecvTestShell(D, env);
  cleanups.push(() => shell.close());
  const address = {
    runtime: shq(process.execPath),
    bundleWord: shq(agentBundlePath()),
    dirWord: shq(D),
  };
  return { local, D, home: join(root, 'home'), shell, address };
}

/** `memory`: what the app remembers it pushed to this node, as a run's pushes pass it;
 *  without, every push starts by offering the full push (`--unless-manifest`). */
async function sync(s: Setup, memory?: NodeManifestMemory) {
  const scan = await scanWorkspace(s.local, []);
  s.shell.recvBytes = 0;
  return syncWorkspace(s.shell, s.address, scan, {
    hashCacheFile: hashCacheFile(s.home),
    memory: memory ? { store: memory, key: 'node-1' } : undefined,
  });
}

const leftovers = (D: string) =>
  readdirSync(D).filter((n) => n.startsWith('.workspace') || n.includes('.tmp-'));

/** Twelve 64 KiB files, a script, an empty folder: unchanged files are worth linking. */
function baseTree(): Tree {
  const tree: Tree = {
    'train.py': { content: 'print("v1")\n', mode: 0o644 },
    'run.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 },
  };
  for (let i = 0; i < 12; i++)
    tree[`data/part-${i}.bin`] = { content: blob(`p${i}`, 64 * KB), mode: 0o644 };
  return tree;
}

describe('syncWorkspace against the built agent', () => {
  it('pushes in full first, then only what changed, into an exact copy', async () => {
    const s = await setup(baseTree());
    await mkdir(join(s.local, 'empty/inner'), { recursive: true });
    const memory = new NodeManifestMemory(null);

    const first = await sync(s, memory);
    expect(first).toMatchObject({ mode: 'full', filesSent: 14, deleted: 0, unchanged: 0 });
    expect(first.fullReason).toBe('first');
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(await snapshot(s.local));
    const fullBytes = s.shell.recvBytes;
    expect(fullBytes).toBe(first.streamBytes);

    const kept = ['data/part-5.bin', 'data/part-6.bin', 'data/part-7.bin', 'data/part-8.bin'];
    const before = await inodes(join(s.D, 'workspace'), kept);

    // 3 changed, 2 deleted, 1 new, 1 mode change; an empty folder goes, another comes.
    await writeFile(join(s.local, 'train.py'), 'print("v2")\n');
    await writeFile(join(s.local, 'data/part-0.bin'), blob('changed-0', 64 * KB));
    await writeFile(join(s.local, 'data/part-1.bin'), blob('changed-1', 3 * KB));
    await rm(join(s.local, 'data/part-2.bin'));
    await rm(join(s.local, 'data/part-3.bin'));
    await writeTree(s.local, { 'new/notes.md': 'new file\n' });
    await chmod(join(s.local, 'data/part-4.bin'), 0o744); // the owner's bits changed
    await rm(join(s.local, 'empty/inner'), { recursive: true });
    await mkdir(join(s.local, 'other'));

    s.shell.commands = [];
    const second = await sync(s, memory);
    expect(s.shell.commands).toEqual(['recv-workspace']); // no manifest request: remembered
    expect(second).toMatchObject({ mode: 'delta', filesSent: 5, deleted: 2, unchanged: 8 });
    const changedBytes = 12 + 64 * KB + 3 * KB + 9 + 64 * KB;
    expect(second.bytesSent).toBe(changedBytes);
    // Only the changed files travelled: their bytes, the delta entry and tar headers.
    expect(s.shell.recvBytes).toBe(second.streamBytes);
    expect(s.shell.recvBytes).toBeLessThan(changedBytes + 16 * KB);
    expect(s.shell.recvBytes).toBeLessThan(fullBytes / 4);

    expect(await snapshot(join(s.D, 'workspace'))).toEqual(await snapshot(s.local));
    // Unchanged files are the previous generation's inodes: nothing was copied.
    expect(await inodes(join(s.D, 'workspace'), kept)).toEqual(before);
    expect(leftovers(s.D)).toEqual([]);

    const scan = await scanWorkspace(s.local, []);
    const nodeManifest = await fetchNodeManifest(s.shell, s.address);
    expect([...nodeManifest!.files.keys()]).toEqual(scan.files.map((f) => f.path));
    expect(nodeManifest!.dirs).toEqual(scan.dirs);
  });

  it('a re-push with nothing changed sends no file and drops what a job added', async () => {
    const s = await setup(baseTree());
    await sync(s);
    // A job wrote into its workspace: edited a pushed file in place and added one.
    await writeFile(join(s.D, 'workspace', 'train.py'), 'edited on the node\n');
    await writeFile(join(s.D, 'workspace', 'out.log'), 'job output\n');

    const again = await sync(s);
    expect(again).toMatchObject({ mode: 'delta', filesSent: 1, unchanged: 13, deleted: 0 });
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(await snapshot(s.local));

    const third = await sync(s);
    expect(third).toMatchObject({ mode: 'delta', filesSent: 0, unchanged: 14, hashed: 0 });
  });

  it('falls back to a full push when the node changed after reporting its manifest', async () => {
    const s = await setup(baseTree());
    await sync(s);
    await writeFile(join(s.local, 'train.py'), 'print("v3")\n');
    // The full push offered first is declined with the node's manifest; between that and
    // the delta made against it, another push lands on the node.
    s.shell.beforeRecv = () => {
      s.shell.beforeRecv = async () => {
        const other = await tempDir();
        await writeTree(other, { 'someone-else.txt': 'x' });
        const tar = execFileSync('tar', ['-c', '-C', other, '.']);
        expect((await runAgent(['recv-workspace', '--dir', s.D], tar)).code).toBe(0);
      };
    };

    const res = await sync(s);
    expect(res).toMatchObject({ mode: 'full', fullReason: 'stale_base', filesSent: 14 });
    // The first sync's push; then the offer, the delta, the full push.
    expect(s.shell.commands.filter((c) => c === 'recv-workspace')).toHaveLength(4);
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(await snapshot(s.local));
  });

  it('a first push to a fresh node is one exec: the full push, offered without asking first', async () => {
    const s = await setup(baseTree());
    const res = await sync(s);
    expect(res).toMatchObject({ mode: 'full', fullReason: 'first', filesSent: 14 });
    expect(s.shell.commands).toEqual(['recv-workspace']);
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(await snapshot(s.local));
  });

  it('an agent older than the offer (a run started by an older Tender) is asked for its manifest, as before', async () => {
    const s = await setup(baseTree());
    // The agent of before --unless-manifest: its argument parser refuses the word.
    const old = join(await tempDir(), 'old-agent.cjs');
    await writeFile(
      old,
      `if (process.argv.includes('--unless-manifest')) {
        process.stderr.write('tender-agent: expected "--flag value" pairs, got "--unless-manifest"\\n');
        process.exit(2);
      }
      require(${JSON.stringify(agentBundlePath())});\n`,
    );
    const res = await syncWorkspace(
      s.shell,
      { ...s.address, bundleWord: shq(old) },
      await scanWorkspace(s.local, []),
      { hashCacheFile: hashCacheFile(s.home) },
    );
    expect(res).toMatchObject({ mode: 'full', fullReason: 'first', filesSent: 14 });
    expect(s.shell.commands).toEqual(['recv-workspace', 'workspace-manifest', 'recv-workspace']);
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(await snapshot(s.local));
  });

  it('a node that holds a workspace the app does not remember declines the full push, and gets a delta', async () => {
    const s = await setup(baseTree());
    await sync(s);
    const kept = ['data/part-5.bin', 'run.sh'];
    const before = await inodes(join(s.D, 'workspace'), kept);
    await writeFile(join(s.local, 'train.py'), 'print("v2")\n');
    s.shell.commands = [];

    const res = await sync(s); // no memory of the first push
    expect(s.shell.commands).toEqual(['recv-workspace', 'recv-workspace']);
    expect(res).toMatchObject({ mode: 'delta', filesSent: 1, unchanged: 13 });
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(await snapshot(s.local));
    expect(await inodes(join(s.D, 'workspace'), kept)).toEqual(before);
    expect(leftovers(s.D)).toEqual([]);
  });

  it('a truncated delta leaves the previous workspace and manifest byte-identical', async () => {
    const s = await setup(baseTree());
    await sync(s);
    const tree = await snapshot(join(s.D, 'workspace'));
    const manifest = await readFile(join(s.D, 'workspace.manifest.json'));
    await writeFile(join(s.local, 'data/part-0.bin'), blob('big', 512 * KB));
    await writeFile(join(s.local, 'train.py'), 'print("v4")\n');
    s.shell.tamper = () => cutAfter(200 * KB);

    await expect(sync(s)).rejects.toThrow(/truncated|refused/);
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(tree);
    expect((await readFile(join(s.D, 'workspace.manifest.json'))).equals(manifest)).toBe(true);
    expect(leftovers(s.D)).toEqual([]);
  });

  it('refuses a file damaged in transit, naming it', async () => {
    const s = await setup(baseTree());
    await sync(s);
    const tree = await snapshot(join(s.D, 'workspace'));
    await writeFile(join(s.local, 'data/part-9.bin'), Buffer.alloc(8 * KB, 0x41));
    s.shell.tamper = () => flipFirst(0x41, 0x42);

    const err = await sync(s).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceRefusedError);
    expect(err).toMatchObject({ nodeCode: 'hash_mismatch', path: 'data/part-9.bin' });
    expect((err as Error).message).toMatch(/data\/part-9\.bin arrived damaged/);
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(tree);
    expect(leftovers(s.D)).toEqual([]);
  });

  it('a full disk on the node fails naming the file, with nothing half-applied', async () => {
    const { mnt, isMounted } = await smallDisk();
    const s = await setup(
      { 'train.py': 'print(1)\n', 'small.bin': { content: blob('s', 100 * KB), mode: 0o644 } },
      join(mnt, 'node'),
    );
    await sync(s);
    const tree = await snapshot(join(s.D, 'workspace'));
    const manifest = await readFile(join(s.D, 'workspace.manifest.json'));
    await writeTree(s.local, {
      'data/big.bin': { content: blob('big', 2 * 1024 * KB), mode: 0o644 },
    });
    const err = await syncOntoFullDisk(s, isMounted);
    if (isMounted) {
      expect(err.message).toMatch(/bytes free under .* once the partial copy was removed/);
    }
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(tree);
    expect((await readFile(join(s.D, 'workspace.manifest.json'))).equals(manifest)).toBe(true);
    expect(leftovers(s.D)).toEqual([]);
  });
});

/** The agent extracts a sealed first push with the node's GNU tar, or itself without one. */
const EXTRACTORS: [string, Record<string, string>][] = [
  ['tar', {}],
  ['agent', { TENDER_AGENT_TAR: '0' }],
];

describe('sealed first pushes', () => {
  it.each(EXTRACTORS)('extracted by the %s: an exact copy, then deltas on it', async (_, env) => {
    const s = await setup(baseTree(), undefined, env);
    await mkdir(join(s.local, 'empty/inner'), { recursive: true });
    expect(await sync(s)).toMatchObject({ mode: 'full', filesSent: 14 });
    expect(s.shell.commands).toContain('recv-workspace');
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(await snapshot(s.local));
    expect(readdirSync(s.D).sort()).toEqual(['workspace', 'workspace.manifest.json']);

    await writeFile(join(s.local, 'train.py'), 'print("v9")\n');
    expect(await sync(s)).toMatchObject({ mode: 'delta', filesSent: 1, unchanged: 13 });
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(await snapshot(s.local));
  });

  it.each(EXTRACTORS)(
    'extracted by the %s: a full disk names the file and leaves nothing',
    async (_, env) => {
      const { mnt, isMounted } = await smallDisk();
      const s = await setup(
        {
          'train.py': 'print(1)\n',
          'data/big.bin': { content: blob('big', 2048 * KB), mode: 0o644 },
        },
        join(mnt, 'node'),
        env,
      );
      await mkdir(s.D, { recursive: true });
      await syncOntoFullDisk(s, isMounted);
      expect(existsSync(join(s.D, 'workspace'))).toBe(false);
      expect(existsSync(join(s.D, 'workspace.manifest.json'))).toBe(false);
      expect(leftovers(s.D)).toEqual([]);
    },
  );

  it.each(EXTRACTORS)(
    'extracted by the %s: a file unlike its manifest entry is refused',
    async (_, env) => {
      const D = join(await tempDir(), 'node');
      const tar = createTarWriter();
      const bytes = collect(tar);
      await tar.addDirectory('w', { mode: 0o755 });
      await tar.addFile('w/a.txt', { size: 4, mode: 0o644 }, Buffer.from('abcd'));
      const manifest = {
        version: 1,
        files: { 'a.txt': { size: 5, mode: 0o644, sha256: sha256(Buffer.from('abcde')) } },
        dirs: [],
      };
      const body = Buffer.from(JSON.stringify(manifest));
      await tar.addFile('manifest.json', { size: body.length, mode: 0o600 }, body);
      await tar.finish();

      const res = await runAgent(['recv-workspace', '--dir', D, '--sealed'], await bytes, env);
      expect(res.code).toBe(1);
      expect(markedJson<CommandError>(res.stdout).error).toMatchObject({
        code: 'hash_mismatch',
        path: 'a.txt',
      });
      expect(existsSync(join(D, 'workspace'))).toBe(false);
    },
  );

  it('reports which extractor ran', async () => {
    for (const [by, env] of EXTRACTORS) {
      const D = join(await tempDir(), 'node');
      const tar = createTarWriter();
      const bytes = collect(tar);
      const body = Buffer.from(JSON.stringify({ version: 1, files: {}, dirs: [] }));
      await tar.addFile('manifest.json', { size: body.length, mode: 0o600 }, body);
      await tar.finish();
      const res = await runAgent(['recv-workspace', '--dir', D, '--sealed'], await bytes, env);
      expect(markedJson(res.stdout)).toMatchObject({ mode: 'full', files: 0, extractor: by });
      expect(readdirSync(join(D, 'workspace'))).toEqual([]);
    }
  });
});

describe('recv-workspace deltas', () => {
  async function fullPush(files: Tree): Promise<string> {
    const root = await tempDir();
    const src = join(root, 'src');
    await writeTree(src, files);
    const D = join(root, 'node');
    expect(
      (await runAgent(['recv-workspace', '--dir', D], execFileSync('tar', ['-c', '-C', src, '.'])))
        .code,
    ).toBe(0);
    return D;
  }

  async function deltaTar(header: Partial<DeltaHeader>, files: Record<string, Buffer> = {}) {
    const tar = createTarWriter();
    const bytes = collect(tar);
    const body = Buffer.from(
      JSON.stringify({ version: 1, deletions: [], files: {}, dirs: [], ...header }),
    );
    await tar.addFile('.tender/delta.json', { size: body.length }, body);
    for (const [p, data] of Object.entries(files))
      await tar.addFile(p, { size: data.length, mode: 0o644 }, data);
    await tar.finish();
    return bytes;
  }

  it('refuses a delta made against another manifest (stale_base)', async () => {
    const D = await fullPush({ 'a.txt': 'a' });
    const res = await runAgent(
      ['recv-workspace', '--dir', D],
      await deltaTar({ base: '0'.repeat(64), target: '0'.repeat(64) }),
    );
    expect(res.code).toBe(1);
    expect(markedJson<CommandError>(res.stdout).error.code).toBe('stale_base');
    expect(await readFile(join(D, 'workspace', 'a.txt'), 'utf8')).toBe('a');
  });

  it('refuses a delta when the node has no manifest', async () => {
    const D = join(await tempDir(), 'node');
    const res = await runAgent(
      ['recv-workspace', '--dir', D],
      await deltaTar({ base: '0'.repeat(64), target: '0'.repeat(64) }),
    );
    expect(markedJson<CommandError>(res.stdout).error.code).toBe('stale_base');
    expect(existsSync(join(D, 'workspace'))).toBe(false);
  });

  it('recv-workspace --unless-manifest declines, reading and changing nothing, where a workspace is', async () => {
    const D = await fullPush({ 'a/b.txt': 'b', 'c.txt': 'cc' });
    const tree = await snapshot(join(D, 'workspace'));
    const manifest = markedJson((await runAgent(['workspace-manifest', '--dir', D])).stdout);
    const res = await runAgent(
      ['recv-workspace', '--dir', D, '--sealed', '--unless-manifest'],
      Buffer.from('not a tar at all'),
    );
    expect(res.code).toBe(0);
    expect(markedJson(res.stdout)).toEqual({ declined: 'has_workspace', manifest });
    expect(await snapshot(join(D, 'workspace'))).toEqual(tree);
    expect(leftovers(D)).toEqual([]);
  });

  it('workspace-manifest prints nothing without a workspace, and the manifest after a push', async () => {
    const empty = await runAgent(['workspace-manifest', '--dir', join(await tempDir(), 'n')]);
    expect(empty.code).toBe(0);
    expect(empty.stdout.toString()).toBe('TENDER-STREAM/1\n');
    const D = await fullPush({ 'a/b.txt': 'b' });
    const res = await runAgent(['workspace-manifest', '--dir', D]);
    expect(markedJson(res.stdout)).toEqual({
      version: 1,
      files: { 'a/b.txt': { size: 1, mode: 0o600, sha256: sha256(Buffer.from('b')) } },
      dirs: ['a'],
    });
  });
});

/** Passes the first `n` bytes, then ends the stream as if the connection dropped. */
function cutAfter(n: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const room = n - seen;
      seen += chunk.length;
      if (room <= 0) return done();
      if (chunk.length <= room) return done(null, chunk);
      this.push(chunk.subarray(0, room));
      this.push(null);
      done();
    },
  });
}

/** Replaces the first byte `from` after the first 1 KiB (the delta entry) with `to`. */
function flipFirst(from: number, to: number): Transform {
  let offset = 0;
  let isDone = false;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (!isDone) {
        const skip = Math.max(0, 1024 - offset);
        const at = chunk.indexOf(from, skip);
        if (at >= 0) {
          chunk = Buffer.from(chunk);
          chunk[at] = to;
          isDone = true;
        }
      }
      offset += chunk.length;
      done(null, chunk);
    },
  });
}

/** Syncs `s` onto a disk too small for it (`smallDisk`): refused, naming data/big.bin. */
async function syncOntoFullDisk(s: Setup, isMounted: boolean): Promise<Error> {
  // Without mount privileges, an unwritable node folder stands in for the full disk.
  if (!isMounted) await chmod(s.D, 0o555);
  const err = await sync(s).catch((e: unknown) => e);
  if (!isMounted) await chmod(s.D, 0o755);
  expect(err).toBeInstanceOf(WorkspaceRefusedError);
  if (isMounted) {
    expect(err).toMatchObject({ nodeCode: 'ENOSPC' });
    expect((err as Error).message).toMatch(/while writing data\/big\.bin/);
  } else {
    expect(err).toMatchObject({ nodeCode: 'EACCES' });
  }
  return err as Error;
}

/** A 1 MB tmpfs to fill (unmounted after the test); without mount privileges, a plain
 *  folder (`isMounted` false: the test then makes the node folder unwritable instead). */
async function smallDisk(): Promise<{ mnt: string; isMounted: boolean }> {
  const mnt = join(await tempDir(), 'mnt');
  await mkdir(mnt);
  const isMounted = tryMountTmpfs(mnt, '1m');
  if (isMounted) cleanups.push(async () => void execFileSync('umount', [mnt]));
  return { mnt, isMounted };
}

function tryMountTmpfs(dir: string, size: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
