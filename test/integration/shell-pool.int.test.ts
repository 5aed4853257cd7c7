// ShellPool (transport/shell-pool.ts) over real OpenSSH: a connection returned by one user
// is lent to the next (the same TCP connection, by its client port), never one that carried
// a port forward, kept a channel open, dropped while parked, or outlived its linger; a
// spare dials behind the first; light users share one; closeAll closes what is parked.
// No mocks of ssh2.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execCapture } from '../../src-main/transport/exec-helpers';
import type { NodeShell } from '../../src-main/transport/node-shell';
import { FRESH_MS, ShellPool, type Dial } from '../../src-main/transport/shell-pool';
import { connectSsh, type SshShell } from '../../src-main/transport/ssh-shell';
import { startSshd, type SshdFixture } from '../helpers/sshd';
import { runOnHosts, sshCore, sshJob } from '../helpers/ssh-core';
import { eventually } from '../helpers/wait';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(opts: { lingerMs?: () => number; now?: () => number } = {}) {
  const f: SshdFixture = await startSshd();
  cleanups.push(() => f.stop());
  const pool = new ShellPool(opts);
  cleanups.push(() => pool.closeAll());
  const dialed: SshShell[] = [];
  /** Every command run on a dialed connection, the pool's own `exit 0` included. */
  const execs: string[] = [];
  /** Dials begun (counted as they start, before any handshake ends). */
  const begun = { dials: 0 };
  const dial: Dial = async (signal) => {
    begun.dials++;
    const s = await connectSsh(
      { host: f.host, port: f.port, user: f.user, privateKey: f.clientKey.privateKey },
      {
        hostKey: (i) => (i.fingerprint === f.hostKeyFingerprint ? null : 'not the fixture'),
        signal,
        deadlineMs: 20_000,
      },
    );
    dialed.push(s);
    const exec = s.exec.bind(s);
    s.exec = (command) => (execs.push(command), exec(command));
    return s;
  };
  return { f, pool, dialed, execs, begun, dial, connect: pool.connector('k', dial) };
}

/** The client port of the connection a shell runs over: the same port, the same connection. */
async function clientPort(shell: NodeShell): Promise<string> {
  const r = await execCapture(shell, 'echo "$SSH_CLIENT"');
  return r.stdout.trim().split(' ')[1]!;
}

const signal = () => AbortSignal.timeout(20_000);

describe('ShellPool over real sshd', () => {
  it('lends a returned connection to the next user; the first user cannot use it again', async () => {
    const { pool, dialed, connect } = await setup();
    const a = await connect(signal());
    const port = await clientPort(a);
    await a.close();
    expect(await a.closed).toBe('closed by Tender'); // closed for its user
    expect(() => a.exec('true')).toThrow('was closed');
    expect(pool.parkedFor('k')).toBe(1);

    const b = await connect(signal());
    expect(await clientPort(b)).toBe(port);
    expect(dialed).toHaveLength(1);
    await b.close();
  });

  it('two users at once get two connections, and both are parked after', async () => {
    const { pool, dialed, connect } = await setup();
    const [a, b] = await Promise.all([connect(signal()), connect(signal())]);
    expect(await clientPort(a)).not.toBe(await clientPort(b));
    await Promise.all([a.close(), b.close()]);
    expect(pool.parkedFor('k')).toBe(2);
    expect(dialed).toHaveLength(2);
  });

  it('never lends a connection that carried a port forward', async () => {
    const { pool, dialed, connect } = await setup();
    const server = createServer((s) => s.end('hi'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    const a = await connect(signal());
    const tcp = await a.openTcp!('127.0.0.1', (server.address() as { port: number }).port);
    tcp.resume();
    tcp.destroy();
    await a.close();
    expect(pool.parkedFor('k')).toBe(0);
    await dialed[0]!.closed;
    const b = await connect(signal());
    expect(dialed).toHaveLength(2);
    await b.close();
  });

  it('closes, rather than lends, a connection whose user left a command running', async () => {
    const { pool, dialed, connect } = await setup();
    const a = await connect(signal());
    const ch = a.exec('sleep 30');
    ch.stdout.resume();
    ch.stderr.resume();
    await a.close(); // waits the settle time for the channel, which never ends
    expect(pool.parkedFor('k')).toBe(0);
    expect(await dialed[0]!.closed).toBe('closed by Tender');
  });

  it('parks a connection whose user closed its channels just before returning it', async () => {
    const { pool, connect } = await setup();
    const a = await connect(signal());
    const ch = a.exec('sleep 30');
    ch.stdout.resume();
    ch.stderr.resume();
    ch.close(); // the close is one round trip away when the connection comes back
    await a.close();
    expect(pool.parkedFor('k')).toBe(1);
  });

  it('a parked connection that drops leaves the pool; the next user dials a fresh one', async () => {
    const { f, pool, dialed, connect } = await setup();
    const a = await connect(signal());
    await a.close();
    expect(pool.parkedFor('k')).toBe(1);
    await f.killSessions();
    await dialed[0]!.closed;
    await eventually(() => pool.parkedFor('k') === 0);
    const b = await connect(signal());
    expect((await execCapture(b, 'echo ok')).stdout).toBe('ok\n');
    expect(dialed).toHaveLength(2);
    await b.close();
  });

  it('a parked connection killed just before it is asked for is not lent (its close not seen yet)', async () => {
    const { f, dialed, connect } = await setup();
    const a = await connect(signal());
    await a.close();
    await f.killSessions(); // and straight on: the pool may not have seen the close
    const b = await connect(signal());
    expect((await execCapture(b, 'echo ok')).stdout).toBe('ok\n');
    expect(dialed).toHaveLength(2);
    await b.close();
  });

  it('a connection parked longer than its linger (a laptop that slept) is closed, not lent', async () => {
    let now = 1_000_000;
    const { dialed, connect } = await setup({ lingerMs: () => 15_000, now: () => now });
    const a = await connect(signal());
    await a.close();
    now += 60_000; // the wall clock moved; the linger timer had no chance to fire
    const b = await connect(signal());
    expect(dialed).toHaveLength(2);
    expect(await dialed[0]!.closed).toBe('closed by Tender');
    await b.close();
  });

  it('a shared handle keeps the connection for its holder after the first user closes; parked once both are done', async () => {
    const { pool, dialed, connect } = await setup();
    const a = await connect(signal());
    const b = a.share!(); // the bootstrap's connection, taken by its first push
    const port = await clientPort(a);
    await a.close();
    expect(() => a.share!()).toThrow('was closed');
    expect(pool.parkedFor('k')).toBe(0); // still held by b
    expect(await clientPort(b)).toBe(port);
    await b.close();
    expect(pool.parkedFor('k')).toBe(1);
    expect(dialed).toHaveLength(1);
  });

  it('a light user takes a connection parked a moment ago without asking it; an older one, or a bulk user, asks `exit 0` first', async () => {
    let now = 1_000_000;
    const { pool, dialed, execs, dial } = await setup({ now: () => now });
    const light = pool.connector('k', dial, { light: true });
    const bulk = pool.connector('k', dial);
    await (await light(signal())).close();
    const fresh = await light(signal()); // a destroy right after the link let go
    expect(execs).toEqual([]);
    await fresh.close();
    now += FRESH_MS + 1;
    const older = await light(signal());
    expect(execs).toEqual(['exit 0']);
    await older.close();
    await (await bulk(signal())).close();
    expect(execs).toEqual(['exit 0', 'exit 0']);
    expect(dialed).toHaveLength(1);
  });

  it('a spare dials behind the first connection and is parked for the next user', async () => {
    const { pool, dialed, dial } = await setup();
    const withSpare = pool.connector('s', dial, { spare: true });
    const a = await withSpare(signal());
    await eventually(() => pool.parkedFor('s') === 1);
    const plain = pool.connector('s', dial);
    const b = await plain(signal()); // the spare, no handshake
    expect(dialed).toHaveLength(2);
    expect(await clientPort(b)).not.toBe(await clientPort(a));
    await Promise.all([a.close(), b.close()]);
  });

  it('no spare while a light user holds or dials a connection: the link’s control joins that one', async () => {
    const { pool, begun, dial } = await setup();
    const light = pool.connector('s', dial, { light: true });
    const dialing = light(signal()); // a BYO provider's listing, beside the run
    const a = await pool.connector('s', dial, { spare: true })(signal()); // the bootstrap
    const held = await dialing;
    const link = await light(signal()); // shares the listing's
    expect(await clientPort(link)).toBe(await clientPort(held));
    expect(begun.dials).toBe(2);
    expect(pool.parkedFor('s')).toBe(0);
    await Promise.all([a.close(), held.close(), link.close()]);
  });

  it('light users share one connection (one joins the other’s dial); a bulk user gets its own; the last light user parks it', async () => {
    const { pool, dialed, dial } = await setup();
    const light = pool.connector('l', dial, { light: true });
    const bulk = pool.connector('l', dial);
    const [a, b] = await Promise.all([light(signal()), light(signal())]); // b joins a's dial
    expect(dialed).toHaveLength(1);
    const c = await bulk(signal()); // never shares: a connection of its own
    expect(dialed).toHaveLength(2);
    const port = await clientPort(a);
    expect(await clientPort(b)).toBe(port);
    expect(await clientPort(c)).not.toBe(port);
    await a.close(); // b still holds it: not parked, still up for b
    expect(pool.parkedFor('l')).toBe(0);
    expect((await execCapture(b, 'echo still')).stdout).toBe('still\n');
    await b.close();
    await c.close();
    expect(pool.parkedFor('l')).toBe(2);
  });

  it('closeAll closes what is parked, and a connection returned after it closes too', async () => {
    const { pool, dialed, connect } = await setup();
    const [a, b] = await Promise.all([connect(signal()), connect(signal())]);
    await a.close(); // parked
    await pool.closeAll();
    expect(dialed.filter((s) => s.isGone)).toHaveLength(1); // a's, not b's (still held)
    await b.close();
    expect(dialed.every((s) => s.isGone)).toBe(true);
    expect(pool.parkedFor('k')).toBe(0);
  });
});

describe('ShellPool.adopt: a connection dialed before the pool had users', () => {
  it('goes to the first user while still being dialed: that user dials nothing, and gives it back as its own', async () => {
    const { pool, dialed, begun, dial, connect } = await setup();
    const abort = new AbortController();
    pool.adopt('k', dial(abort.signal), () => abort.abort());
    expect(begun.dials).toBe(1);
    const a = await connect(signal()); // asked before the handshake ended
    expect(begun.dials).toBe(1);
    expect(dialed).toHaveLength(1);
    expect(await execCapture(a, 'echo hi')).toMatchObject({ stdout: 'hi\n' });
    await a.close();
    expect(pool.parkedFor('k')).toBe(1); // parked like any returned connection
    const b = await connect(signal()); // the next user: the early one, asked `exit 0` as usual
    expect(begun.dials).toBe(1);
    await b.close();
  });

  it('one that failed leaves its user to dial as always', async () => {
    const { pool, begun, connect } = await setup();
    pool.adopt('k', Promise.reject(new Error('refused')), () => {});
    const a = await connect(signal());
    expect(begun.dials).toBe(1); // the user's own
    await a.close();
  });

  it('one nobody takes within the linger is closed; closeAll cancels one still being dialed', async () => {
    const { pool, dial } = await setup({ lingerMs: () => 300 });
    const early = await dial(signal());
    pool.adopt('k', Promise.resolve(early), () => {});
    expect(await early.closed).toBe('closed by Tender'); // nobody came
    expect(pool.parkedFor('k')).toBe(0);

    let cancelled = false;
    pool.adopt('k', new Promise(() => {}), () => (cancelled = true));
    await pool.closeAll();
    expect(cancelled).toBe(true);
  });
});

describe('a run on a machine you already have, through the pool', () => {
  /** Connections sshd accepted so far (one "Accepted publickey" line each). */
  const accepted = (f: SshdFixture) => (f.log().match(/Accepted publickey/g) ?? []).length;

  it('opens two connections where it opened five (listing, bootstrap, link, bulk, destroy), and a second run soon after opens none', async () => {
    const f = await startSshd();
    cleanups.push(() => f.stop());
    const t = sshCore([f]);
    cleanups.push(() => t.close());
    writeFileSync(join(t.work, 'hello.txt'), 'hello over ssh\n');
    const before = accepted(f);
    const first = await runOnHosts(t.core, sshJob(t.work, { outputs: ['hello.txt'] }), ['h0']);
    expect(first.status, first.failedReason ?? '').toBe('completed');
    // The start's listing (beside the run, not waited for) and the bootstrap's: the push
    // rides on the bootstrap's, the link takes the listing's, the destroy the link's.
    const firstRun = accepted(f) - before;
    expect(firstRun).toBeLessThanOrEqual(2);

    // Edit and run again (the researcher's loop): the kept connections carry it all.
    writeFileSync(join(t.work, 'hello.txt'), 'hello again\n');
    const second = await runOnHosts(t.core, sshJob(t.work, { outputs: ['hello.txt'] }), ['h0']);
    expect(second.status, second.failedReason ?? '').toBe('completed');
    expect(accepted(f) - before - firstRun).toBe(0);
    expect(
      readFileSync(join(t.home, 'runs', second.id, 'node-0', 'outputs', 'hello.txt'), 'utf8'),
    ).toBe('hello again\n');
    expect(t.core.ledger.liveLeases()).toEqual([]);
  }, 90_000);
});
