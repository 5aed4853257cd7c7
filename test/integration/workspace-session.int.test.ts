// Workspace sessions against the built agent: one `serve-workspace` process serving pushes
// and manifest requests in turn, staying in step after a refusal, and replaced by the pool
// when it dies.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DELTA_ENTRY } from '../../src-agent/wire/protocol';
import { hashCacheFile } from '../../src-main/jobs/workspace/hash-cache';
import { WorkspaceRefusedError } from '../../src-main/jobs/workspace/recv-channel';
import { scanWorkspace } from '../../src-main/jobs/workspace/scan';
import { WorkspaceSessions } from '../../src-main/jobs/workspace/session-pool';
import { fetchNodeManifest, syncWorkspace } from '../../src-main/jobs/workspace/sync';
import { SessionOpenError, WorkspaceSession } from '../../src-main/jobs/workspace/sync-session';
import type { AgentAddress } from '../../src-main/nodes/node-layout';
import { shq } from '../../src-main/transport/exec-helpers';
import { LocalShell } from '../../src-main/transport/local-shell';
import type { ExecChannel, NodeShell } from '../../src-main/transport/node-shell';
import { agentBundlePath } from '../helpers/agent-bundle';
import { until } from '../helpers/wait';
import { snapshot, writeTree } from '../helpers/workspace-tree';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A shell in the node's folder, made first (a LocalShell never makes it). */
function localShell(dir: string): LocalShell {
  mkdirSync(dir, { recursive: true });
  return new LocalShell(dir);
}

/** A LocalShell that counts the commands it runs. */
class CountingShell implements NodeShell {
  readonly inner: LocalShell;
  readonly description = 'counting';
  commands: string[] = [];
  constructor(dir: string) {
    this.inner = localShell(dir);
  }
  exec(command: string): ExecChannel {
    this.commands.push(command.split(' ')[2] ?? command);
    return this.inner.exec(command);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

async function setup() {
  const root = await mkdtemp(join(tmpdir(), 'tender-session-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const local = join(root, 'local');
  const D = join(root, 'node');
  await writeTree(local, { 'train.py': 'print(1)\n', 'data/a.txt': 'a\n', 'data/b.txt': 'b\n' });
  const shell = new CountingShell(join(root, 'home'));
  cleanups.push(() => shell.close());
  const address: AgentAddress = {
    runtime: shq(process.execPath),
    bundleWord: shq(agentBundlePath()),
    dirWord: shq(D),
  };
  const opts = { hashCacheFile: hashCacheFile(join(root, 'app')) };
  return { root, local, D, shell, address, opts };
}

describe('a workspace session', () => {
  it('serves a full push, a prepared delta and manifests over one process', async () => {
    const s = await setup();
    const session = await WorkspaceSession.open(s.shell, s.address);
    cleanups.push(() => session.close());
    const sync = async () =>
      syncWorkspace(s.shell, s.address, await scanWorkspace(s.local, []), {
        ...s.opts,
        via: session,
      });

    expect(await sync()).toMatchObject({ mode: 'full', filesSent: 3 });
    // A job wrote into its workspace; the app changed a file, removed one, added one.
    await writeFile(join(s.D, 'workspace', 'job-output.log'), 'from the job\n');
    await writeTree(s.local, { 'train.py': 'print(22)\n', 'new/c.txt': 'c\n' });
    await rm(join(s.local, 'data/b.txt'));
    session.prepare();
    expect(await sync()).toMatchObject({ mode: 'delta', filesSent: 2, deleted: 1, unchanged: 1 });

    expect(await snapshot(join(s.D, 'workspace'))).toEqual(await snapshot(s.local));
    const scan = await scanWorkspace(s.local, []);
    const manifest = await fetchNodeManifest(s.shell, s.address, session);
    expect([...manifest!.files.keys()]).toEqual(scan.files.map((f) => f.path));
    expect(s.shell.commands).toEqual(['serve-workspace']);
  });

  it('opened eagerly on a node side that never starts (a guess that missed): the push fails with why, nothing unhandled', async () => {
    const s = await setup();
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown) => unhandled.push(err);
    process.on('unhandledRejection', onUnhandled);
    cleanups.push(async () => void process.off('unhandledRejection', onUnhandled));
    const session = await WorkspaceSession.open(s.shell, s.address, {
      isEager: true,
      command: 'exit 97',
    });
    cleanups.push(() => session.close());
    const pushed = syncWorkspace(s.shell, s.address, await scanWorkspace(s.local, []), {
      ...s.opts,
      via: session,
      isFreshNode: true,
    });
    await expect(pushed).rejects.toThrow(
      /the workspace session with the node ended: it exited \(97\)/,
    );
    await new Promise((r) => setImmediate(r)); // where an unhandled rejection would show
    expect(unhandled).toEqual([]);
  });

  it('reads answers whole when a character is split between two reads', async () => {
    const s = await setup();
    // A manifest answer of ~150 kB, mostly two-byte characters: pipe reads split some.
    const tree: Record<string, string> = {};
    for (let i = 0; i < 600; i++) tree[`données/${'é'.repeat(100)}-${i}.txt`] = `${i}\n`;
    await writeTree(s.local, tree);
    const session = await WorkspaceSession.open(s.shell, s.address);
    cleanups.push(() => session.close());
    await syncWorkspace(s.shell, s.address, await scanWorkspace(s.local, []), {
      ...s.opts,
      via: session,
    });
    const manifest = await fetchNodeManifest(s.shell, s.address, session);
    const scan = await scanWorkspace(s.local, []);
    expect([...manifest!.files.keys()]).toEqual(scan.files.map((f) => f.path));
  });

  it('will not open on an agent from before sessions, saying why', async () => {
    const s = await setup();
    const old = join(s.root, 'old-agent.cjs');
    await writeFile(
      old,
      "process.stderr.write('tender-agent: unknown command'); process.exit(2);\n",
    );
    const err = await WorkspaceSession.open(s.shell, { ...s.address, bundleWord: shq(old) }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SessionOpenError);
    expect((err as Error).message).toMatch(/no workspace session .*exited \(2\).*unknown command/);
  });

  it('stays in step after a refused push', async () => {
    const s = await setup();
    const session = await WorkspaceSession.open(s.shell, s.address);
    cleanups.push(() => session.close());
    // A delta against a base the node does not have, with a file after its header.
    const refused = session.recv(async (tar) => {
      const header = Buffer.from(
        JSON.stringify({
          version: 1,
          base: '0'.repeat(64),
          target: '0'.repeat(64),
          deletions: [],
          files: {},
          dirs: [],
        }),
      );
      await tar.addFile(DELTA_ENTRY, { size: header.length }, header);
      await tar.addFile('x.bin', { size: 300_000 }, Buffer.alloc(300_000, 1));
    }, false);
    await expect(refused).rejects.toBeInstanceOf(WorkspaceRefusedError);
    await expect(refused).rejects.toMatchObject({ nodeCode: 'stale_base' });

    const res = await syncWorkspace(s.shell, s.address, await scanWorkspace(s.local, []), {
      ...s.opts,
      via: session,
    });
    expect(res).toMatchObject({ mode: 'full', filesSent: 3 });
    expect(await snapshot(join(s.D, 'workspace'))).toEqual(await snapshot(s.local));
    expect(session.isOpen).toBe(true);
  });

  it('fails its request clearly when the process dies; the pool opens a new one', async () => {
    const s = await setup();
    const pool = new WorkspaceSessions();
    cleanups.push(() => pool.closeAll());
    let connects = 0;
    const connect = async () => {
      connects++;
      return localShell(join(s.root, 'home'));
    };
    const push = () =>
      pool.with('node-1\0x', connect, s.address, async (session) =>
        syncWorkspace(session.shell, s.address, await scanWorkspace(s.local, []), {
          ...s.opts,
          via: session,
        }),
      );
    await push();
    const pid = () =>
      execFileSync('pgrep', ['-f', `serve-workspace --dir ${s.D}`])
        .toString()
        .trim();
    const first = pid();
    process.kill(Number(first), 'SIGKILL');

    const seen: WorkspaceSession[] = [];
    const manifest = await pool.with('node-1\0x', connect, s.address, async (session) => {
      seen.push(session);
      if (seen.length === 1) await until(() => !session.isOpen);
      return session.manifest();
    });
    expect(seen).toHaveLength(2);
    await expect(seen[0]!.manifest()).rejects.toThrow(/workspace session with the node ended/);
    expect(manifest?.files.size).toBe(3);
    expect(connects).toBe(2);

    await writeTree(s.local, { 'train.py': 'print(333)\n' });
    expect(await push()).toMatchObject({ mode: 'delta', filesSent: 1 });
    expect(pid()).not.toBe(first);
    expect(connects).toBe(2); // the new session is kept
  });

  it("closes a node's session when the node goes, and any session once unused", async () => {
    const s = await setup();
    const running = () => {
      try {
        return execFileSync('pgrep', ['-f', `serve-workspace --dir ${s.D}`])
          .toString()
          .trim();
      } catch {
        return ''; // pgrep exits 1 when nothing matches
      }
    };
    const use = (pool: WorkspaceSessions, key: string) =>
      pool.with(
        key,
        async () => localShell(join(s.root, 'home')),
        s.address,
        (session) => session.manifest(),
      );

    const pool = new WorkspaceSessions();
    cleanups.push(() => pool.closeAll());
    await use(pool, 'node-7\0x');
    expect(running()).not.toBe('');
    await pool.closeNode('node-7');
    await until(() => running() === '');

    const brief = new WorkspaceSessions(50);
    cleanups.push(() => brief.closeAll());
    await use(brief, 'node-8\0x');
    expect(running()).not.toBe('');
    await until(() => running() === ''); // closed 50 ms after its last use
  });
});
