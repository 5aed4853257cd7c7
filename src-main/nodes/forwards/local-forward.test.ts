import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalShell } from '../../transport/local-shell';
import type { NodeShell } from '../../transport/node-shell';
import { connectOutcome, DroppableShell, echo, roundTrip, tcpServer } from './forwards.test-util';
import { LocalForward } from './local-forward';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const localShell = () => new LocalShell(mkdtempSync(join(tmpdir(), 'tender-fwd-')));

async function forward(opts: Parameters<typeof LocalForward.open>[0]): Promise<LocalForward> {
  const f = await LocalForward.open(opts);
  cleanups.push(() => f.close());
  return f;
}

async function server(serve: (s: Socket) => void = echo) {
  const s = await tcpServer(serve);
  cleanups.push(() => s.close());
  return s;
}

describe('LocalForward (a local node: the node is this machine)', () => {
  it("carries connections to the node's port, both ways, with backpressure", async () => {
    const target = await server();
    const shell = localShell();
    const f = await forward({ remotePort: target.port, localPort: 0, shell: async () => shell });
    expect(f.localPort).toBeGreaterThan(0);
    expect(f.localPort).not.toBe(target.port);
    expect((await roundTrip(f.localPort, 'hello node')).toString()).toBe('hello node');
    // 32 MB through and back: nothing lost, nothing reordered.
    const big = randomBytes(32 * 1024 * 1024);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const [a, b] = await Promise.all([roundTrip(f.localPort, big), roundTrip(f.localPort, big)]);
    expect(sha(a)).toBe(sha(big));
    expect(sha(b)).toBe(sha(big));
  });

  it('takes the same local port when free, another when it is taken', async () => {
    const target = await server();
    const shell = localShell();
    // The target holds its port here (a local node shares this machine's ports).
    const f = await forward({ remotePort: target.port, localPort: null, shell: async () => shell });
    expect(f.localPort).not.toBe(target.port);
    expect((await roundTrip(f.localPort, 'x')).toString()).toBe('x');
  });

  it('names the fix when the local port asked for is in use', async () => {
    const busy = await server();
    const err = await LocalForward.open({
      remotePort: 6006,
      localPort: busy.port,
      shell: async () => localShell(),
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'bad_input',
      message: `local port ${busy.port} is in use: pick another (6006:${busy.port + 1})`,
    });
  });

  it('retries once on a fresh shell when the connection dropped', async () => {
    const target = await server();
    const dead = new DroppableShell('dead');
    await dead.drop({ quietly: true }); // gone, and nobody noticed yet
    const fresh = new DroppableShell('fresh');
    const asked: (NodeShell | undefined)[] = [];
    let current: NodeShell = dead;
    const f = await forward({
      remotePort: target.port,
      localPort: 0,
      shell: async (failed) => {
        asked.push(failed);
        if (failed === current) current = fresh;
        return current;
      },
    });
    expect((await roundTrip(f.localPort, 'again')).toString()).toBe('again');
    expect(asked).toEqual([undefined, dead]);
    expect([dead.opens, fresh.opens]).toEqual([1, 1]);
    // The next connection uses the fresh one straight away.
    expect((await roundTrip(f.localPort, 'then')).toString()).toBe('then');
    expect(fresh.opens).toBe(2);
  });

  it('ends only that connection when the node refuses it, and says why', async () => {
    const nothing = await server();
    const port = nothing.port;
    await nothing.close(); // nothing listens on the node's port now
    const errors: string[] = [];
    let shells = 0;
    const shell = localShell();
    const f = await forward({
      remotePort: port,
      localPort: 0,
      shell: async () => (shells++, shell),
      onError: (e) => errors.push(e.message),
    });
    const got = await roundTrip(f.localPort, 'x').then(
      (b) => b.toString(),
      (e: NodeJS.ErrnoException) => e.code,
    );
    expect(['', 'ECONNRESET', 'EPIPE']).toContain(got); // ended, nothing carried
    expect(errors).toEqual([expect.stringContaining(`could not connect to 127.0.0.1:${port}`)]);
    expect(shells).toBe(1); // the node's answer: no fresh shell for it
    expect(await connectOutcome(f.localPort)).toBe('connected'); // still listening
  });

  it('stops listening and ends its connections when closed', async () => {
    const target = await server(() => {}); // accepts, never answers
    const shell = localShell();
    const f = await LocalForward.open({
      remotePort: target.port,
      localPort: 0,
      shell: async () => shell,
    });
    const pending = roundTrip(f.localPort, 'x');
    await new Promise((r) => setTimeout(r, 50));
    expect(f.connections).toBe(1);
    await f.close();
    await pending.catch(() => {}); // ended (or reset)
    expect(await connectOutcome(f.localPort)).toBe('ECONNREFUSED');
  });

  it('rejects a shell without TCP', async () => {
    const target = await server();
    const errors: string[] = [];
    const bare = { description: 'bare', exec: () => null as never, close: async () => {} };
    const f = await forward({
      remotePort: target.port,
      localPort: 0,
      shell: async () => bare,
      onError: (e) => errors.push(e.message),
    });
    await roundTrip(f.localPort).catch(() => {});
    expect(errors).toEqual(['bare cannot forward ports']);
  });
});
