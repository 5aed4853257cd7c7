// Live workspace sync: syncWorkspace(…, { inPlace: true }) over a LocalShell into the built
// agent's `recv-workspace --in-place`, while a job-like process runs in D/workspace.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { hashCacheFile } from '../../src-main/jobs/workspace/hash-cache';
import { WorkspaceRefusedError } from '../../src-main/jobs/workspace/recv-channel';
import { scanWorkspace } from '../../src-main/jobs/workspace/scan';
import { fetchNodeManifest, syncWorkspace } from '../../src-main/jobs/workspace/sync';
import { shq } from '../../src-main/transport/exec-helpers';
import { agentBundlePath } from '../helpers/agent-bundle';
import { RecvTestShell } from '../helpers/recv-test-shell';
import { snapshot, writeTree } from '../helpers/workspace-tree';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Node {
  local: string;
  D: string;
  ws: string;
  shell: RecvTestShell;
  sync: () => ReturnType<typeof syncWorkspace>;
}

/** A local folder with `files`, pushed once (in place: the first push swaps it in). */
async function pushedNode(files: Record<string, string>): Promise<Node> {
  const root = await mkdtemp(join(tmpdir(), 'tender-live-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const local = join(root, 'local');
  const D = join(root, 'node');
  await writeTree(local, files);
  const shell = new RecvTestShell(D);
  cleanups.push(() => shell.close());
  const address = {
    runtime: shq(process.execPath),
    bundleWord: shq(agentBundlePath()),
    dirWord: shq(D),
  };
  const sync = async () =>
    syncWorkspace(shell, address, await scanWorkspace(local, []), {
      inPlace: true,
      hashCacheFile: hashCacheFile(join(root, 'home')),
    });
  const first = await sync();
  expect(first).toMatchObject({ mode: 'full', fullReason: 'first' });
  return { local, D, ws: join(D, 'workspace'), shell, sync };
}

/** A job in D/workspace that appends `line N` to out/log.txt until killed. */
function startJob(ws: string): ChildProcess {
  const job = spawn(
    'sh',
    [
      '-c',
      'mkdir -p out; i=0; while :; do i=$((i+1)); echo "line $i" >> out/log.txt; sleep 0.005; done',
    ],
    { cwd: ws, detached: true, stdio: 'ignore' },
  );
  const exited = new Promise((r) => job.once('exit', r));
  cleanups.push(async () => {
    if (job.exitCode === null && job.signalCode === null) {
      process.kill(-job.pid!, 'SIGKILL');
      await exited;
    }
  });
  return job;
}

/** Complete lines of the job's log so far. */
async function logLines(ws: string): Promise<number> {
  const text = await readFile(join(ws, 'out', 'log.txt'), 'utf8').catch(() => '');
  return text.split('\n').length - 1;
}

/** Waits (no deadline of its own: the test timeout is the limit) until the job has written
 *  more than `n` lines. */
async function linesBeyond(ws: string, n: number): Promise<number> {
  for (;;) {
    const now = await logLines(ws);
    if (now > n) return now;
    await new Promise((r) => setTimeout(r, 10));
  }
}

const leftovers = (D: string) =>
  readdirSync(D).filter((n) => n.startsWith('.workspace') || n.includes('.tmp-'));

const BASE = {
  'a.txt': 'a1\n',
  'b.txt': 'b1\n',
  'c.txt': 'c1\n',
  'keep.txt': 'keep\n',
  'sub/d.txt': 'd1\n',
};

describe('syncWorkspace in place, while a job runs in the workspace', () => {
  it('applies a delta around the running job: same folder, its files and its log intact', async () => {
    const n = await pushedNode(BASE);
    const folderIno = (await lstat(n.ws)).ino;
    const keptIno = (await lstat(join(n.ws, 'keep.txt'))).ino;
    const job = startJob(n.ws);
    await writeFile(join(n.ws, 'job-made.txt'), 'made by the job\n');
    await linesBeyond(n.ws, 10);

    await writeTree(
      n.local,
      { 'a.txt': 'a2\n', 'b.txt': 'b2\n', 'new/e.txt': 'e\n' },
      { isOld: false },
    );
    await rm(join(n.local, 'c.txt'));
    const res = await n.sync();

    expect(res).toMatchObject({ mode: 'delta', filesSent: 3, deleted: 1, unchanged: 2 });
    expect((await lstat(n.ws)).ino).toBe(folderIno);
    // The job still writes into the same folder after the sync: its cwd never went away.
    await linesBeyond(n.ws, await logLines(n.ws));
    process.kill(-job.pid!, 'SIGKILL');
    await new Promise((r) => job.once('exit', r));

    expect((await lstat(join(n.ws, 'keep.txt'))).ino).toBe(keptIno);
    const log = (await readFile(join(n.ws, 'out', 'log.txt'), 'utf8')).trimEnd().split('\n');
    expect(log).toEqual(log.map((_, i) => `line ${i + 1}`));
    expect(await readFile(join(n.ws, 'job-made.txt'), 'utf8')).toBe('made by the job\n');
    const tree = await snapshot(n.ws);
    const local = await snapshot(n.local);
    for (const path of Object.keys(local)) expect(tree[path]).toBe(local[path]);
    expect(
      Object.keys(tree)
        .filter((p) => !(p in local))
        .sort(),
    ).toEqual(['job-made.txt', 'out/', 'out/log.txt']);
    expect(leftovers(n.D)).toEqual([]);

    // The node's manifest is the local folder's: the job's files are not in it.
    const manifest = await fetchNodeManifest(n.shell, agentAddressOf(n));
    expect([...manifest!.files.keys()].sort()).toEqual(
      (await scanWorkspace(n.local, [])).files.map((f) => f.path),
    );
    const again = await n.sync();
    expect(again).toMatchObject({ mode: 'delta', filesSent: 0, deleted: 0, unchanged: 5 });
    expect(await readFile(join(n.ws, 'job-made.txt'), 'utf8')).toBe('made by the job\n');
  });

  it('on a stale base pushes in full in place, deleting what the last manifest listed', async () => {
    const n = await pushedNode(BASE);
    const folderIno = (await lstat(n.ws)).ino;
    await writeFile(join(n.ws, 'job-made.txt'), 'made by the job\n');
    await writeTree(n.local, { 'a.txt': 'a3\n' }, { isOld: false });
    await rm(join(n.local, 'c.txt'));
    await rm(join(n.local, 'sub'), { recursive: true });
    // Between `workspace-manifest` and `recv-workspace` the job edits two tracked files: the
    // node's manifest no longer matches what the app diffed against.
    n.shell.beforeRecv = async () => {
      await writeFile(join(n.ws, 'keep.txt'), 'edited by the job\n');
      await writeFile(join(n.ws, 'sub', 'd.txt'), 'edited by the job\n');
    };

    const res = await n.sync();

    expect(res).toMatchObject({ mode: 'full', fullReason: 'stale_base', filesSent: 3 });
    expect(n.shell.commands).toEqual([
      'workspace-manifest',
      'recv-workspace --in-place',
      'workspace-manifest',
      'recv-workspace --in-place',
      'recv-workspace --in-place',
    ]);
    expect((await lstat(n.ws)).ino).toBe(folderIno);
    // sub/d.txt was listed, then edited by the job: the lstat-checked view drops it, the
    // manifest file still lists it, and the local folder lacks it, so it goes (with sub/).
    const { 'job-made.txt': jobMade, ...tracked } = await snapshot(n.ws);
    expect(tracked).toEqual(await snapshot(n.local));
    expect(jobMade).toBeDefined();
    expect(await readFile(join(n.ws, 'keep.txt'), 'utf8')).toBe('keep\n');
    expect(await readFile(join(n.ws, 'job-made.txt'), 'utf8')).toBe('made by the job\n');
    expect(res.deleted).toBe(2); // c.txt, sub/d.txt
    expect(leftovers(n.D)).toEqual([]);
    expect(await n.sync()).toMatchObject({ mode: 'delta', filesSent: 0 });
  });

  it('a stream cut before anything moved leaves workspace and manifest byte-identical', async () => {
    const n = await pushedNode(BASE);
    await writeFile(join(n.ws, 'job-made.txt'), 'made by the job\n');
    const tree = await snapshot(n.ws);
    const manifest = await readFile(join(n.D, 'workspace.manifest.json'));
    await writeTree(
      n.local,
      { 'big.bin': 'x'.repeat(256 * 1024), 'a.txt': 'a4\n' },
      { isOld: false },
    );
    await rm(join(n.local, 'c.txt'));
    n.shell.tamper = () => cutAfter(64 * 1024);

    await expect(n.sync()).rejects.toThrow(/truncated|refused/);

    expect(await snapshot(n.ws)).toEqual(tree);
    expect((await readFile(join(n.D, 'workspace.manifest.json'))).equals(manifest)).toBe(true);
    expect(leftovers(n.D)).toEqual([]);
  });

  it('refuses to replace what the job made where a pushed file goes, changing nothing', async () => {
    const n = await pushedNode(BASE);
    await mkdir(join(n.ws, 'results'));
    await writeFile(join(n.ws, 'results', 'r.txt'), 'job result\n');
    await writeTree(n.local, { results: 'a local file\n', 'a.txt': 'a5\n' }, { isOld: false });
    const tree = await snapshot(n.ws);
    const manifest = await readFile(join(n.D, 'workspace.manifest.json'));

    const err = await n.sync().catch((e: unknown) => e);

    expect(err).toBeInstanceOf(WorkspaceRefusedError);
    expect(err).toMatchObject({ nodeCode: 'in_place_conflict', path: 'results' });
    expect((err as Error).message).toMatch(/cannot update results in place/);
    expect(await snapshot(n.ws)).toEqual(tree);
    expect((await readFile(join(n.D, 'workspace.manifest.json'))).equals(manifest)).toBe(true);
    expect(leftovers(n.D)).toEqual([]);
  });
});

function agentAddressOf(n: Node) {
  return {
    runtime: shq(process.execPath),
    bundleWord: shq(agentBundlePath()),
    dirWord: shq(n.D),
  };
}

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
