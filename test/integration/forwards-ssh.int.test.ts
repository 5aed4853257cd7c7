// Port forwards over a real OpenSSH sshd (docs/forwards.md): a node serves files with
// `python3 -m http.server` on its 127.0.0.1, a local forward fetches one through this
// machine's 127.0.0.1, survives a cut of the SSH connection (killed sshd sessions), and
// refuses once closed; a reverse forward reaches a server here from the node; a local port
// in use names the fix; and through the core, a run's forward shows the Jupyter token its
// job printed and closes with the run. Needs root.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ForwardsChanged } from '../../src-main/contract';
import { ForwardSet } from '../../src-main/nodes/forwards/forward-set';
import { connectSsh, type SshShell } from '../../src-main/transport/ssh-shell';
import { freePort } from '../helpers/free-port';
import { sshCore, sshJob } from '../helpers/ssh-core';
import { type SshdFixture, startSshd } from '../helpers/sshd';
import { eventuallyAsync, until } from '../helpers/wait';

const fixtures: SshdFixture[] = [];
const cleanups: (() => Promise<unknown> | unknown)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

async function sshd(): Promise<SshdFixture> {
  const f = await startSshd();
  fixtures.push(f);
  return f;
}

/** The fixture's shells, counted: each is one SSH connection. */
function connector(f: SshdFixture) {
  const made: SshShell[] = [];
  const connectFn = async (signal: AbortSignal) => {
    const shell = await connectSsh(
      { host: f.host, port: f.port, user: f.user, privateKey: f.clientKey.privateKey },
      {
        hostKey: (info) =>
          info.fingerprint === f.hostKeyFingerprint ? null : 'not the fixture’s key',
        signal,
        deadlineMs: 20_000,
      },
    );
    made.push(shell);
    return shell;
  };
  return { connect: connectFn, made };
}

function forwardSet(connect: (signal: AbortSignal) => Promise<SshShell>): ForwardSet {
  const set = new ForwardSet(connect);
  cleanups.push(() => set.close());
  return set;
}

/** `python3 -m http.server` on the node's 127.0.0.1, detached from the session that
 *  started it (so killing sessions leaves it running); resolves once it answers. */
async function httpServerOnNode(f: SshdFixture, body: string): Promise<number> {
  const port = await freePort();
  const r = await f.exec(
    `mkdir -p served && printf %s '${body}' > served/hello.txt && cd served && ` +
      `(setsid nohup python3 -m http.server ${port} --bind 127.0.0.1 >/dev/null 2>&1 </dev/null &)`,
  );
  expect(r.code, r.stderr).toBe(0);
  await eventuallyAsync(async () => (await connectOutcome(port)) === 'connected');
  return port;
}

function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // A fresh connection each time (no keep-alive agent): each one crosses the forward anew.
    const req = get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('timed out')));
  });
}

function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const c = connect(port, '127.0.0.1');
    c.on('connect', () => {
      c.destroy();
      resolve('connected');
    });
    c.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

/** A TCP server here (the laptop's side of a reverse forward) that greets each client. */
async function greeter(line: string): Promise<Server & { port: number }> {
  const server = createServer((s) => {
    s.on('error', () => {});
    s.end(`${line}\n`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return Object.assign(server, { port: (server.address() as { port: number }).port });
}

/** What the node reads from its own 127.0.0.1:`port` (bash's /dev/tcp). */
function readOnNode(f: SshdFixture, port: number) {
  return f.exec(`exec 3<>/dev/tcp/127.0.0.1/${port} && head -n 1 <&3`);
}

describe('port forwards over a real sshd', () => {
  it('fetches through a local forward, again after the connection is cut, and refuses once closed', async () => {
    const f = await sshd();
    const port = await httpServerOnNode(f, 'hello through the forward');
    const { connect: connectFn, made } = connector(f);
    const set = forwardSet(connectFn);

    const fwd = await set.openLocal({ remotePort: port, localPort: 0 });
    expect(fwd.localPort).not.toBe(port);
    expect(made).toHaveLength(1); // connected at open, not at first use
    expect(await httpGet(fwd.localPort, '/hello.txt')).toEqual({
      status: 200,
      body: 'hello through the forward',
    });
    // Browsers open several at once: all on the one connection.
    const many = await Promise.all(
      Array.from({ length: 12 }, () => httpGet(fwd.localPort, '/hello.txt')),
    );
    expect(many.every((r) => r.body === 'hello through the forward')).toBe(true);
    expect(made).toHaveLength(1);

    // The link is cut: every sshd session dies (the http server, detached, lives on).
    await f.killSessions();
    await made[0]!.closed;
    expect(await httpGet(fwd.localPort, '/hello.txt')).toEqual({
      status: 200,
      body: 'hello through the forward',
    });
    expect(made).toHaveLength(2); // a fresh connection carried it

    // Cut again and fetch at once, noticed or not: an open that fails on the dead
    // connection is retried once on a fresh one.
    await f.killSessions();
    expect((await httpGet(fwd.localPort, '/hello.txt')).body).toBe('hello through the forward');
    expect(made).toHaveLength(3);

    await set.close();
    expect(await connectOutcome(fwd.localPort)).toBe('ECONNREFUSED');
    expect(await connectOutcome(port)).toBe('connected'); // the node's server is untouched
  });

  it('reaches a server here from the node through a reverse forward, again after a cut', async () => {
    const f = await sshd();
    const laptop = await greeter('hello from the laptop');
    const nodePort = await freePort();
    const { connect: connectFn, made } = connector(f);
    const set = forwardSet(connectFn);

    const rev = await set.openRemote({ nodePort, host: 'localhost', localPort: laptop.port });
    expect(rev.isListening).toBe(true);
    expect(await readOnNode(f, nodePort)).toMatchObject({
      code: 0,
      stdout: 'hello from the laptop\n',
    });

    await f.killSessions(); // sshd drops the node's listener with the connection
    await made[0]!.closed;
    await until(() => rev.isListening, 30_000);
    expect(made.length).toBeGreaterThanOrEqual(2);
    expect(await readOnNode(f, nodePort)).toMatchObject({
      code: 0,
      stdout: 'hello from the laptop\n',
    });

    await set.closeOne('remote', nodePort);
    const after = await readOnNode(f, nodePort);
    expect(after.code).not.toBe(0); // nothing listens on the node's port any more
  });

  it('names the fix when the local port asked for is in use', async () => {
    const f = await sshd();
    const port = await httpServerOnNode(f, 'x');
    const busy = await greeter('busy');
    const set = forwardSet(connector(f).connect);
    await expect(set.openLocal({ remotePort: port, localPort: busy.port })).rejects.toMatchObject({
      code: 'bad_input',
      message: `local port ${busy.port} is in use: pick another (${port}:${busy.port + 1})`,
    });
    // The node port alone takes a free one instead.
    const fwd = await set.openLocal({ remotePort: port, localPort: null });
    expect((await httpGet(fwd.localPort, '/hello.txt')).body).toBe('x');
  });

  it("forwards a run's port through the core, shows its Jupyter token, and closes with the run", async () => {
    const f = await sshd();
    const t = sshCore([f]);
    cleanups.push(() => t.close());
    const { core, work } = t;
    writeFileSync(join(work, 'hello.txt'), 'hello from the job\n');
    const port = await freePort();
    const token = randomBytes(24).toString('hex');
    const started = await core.client.invoke('run.start', {
      job: sshJob(work, {
        run:
          `python3 -m http.server ${port} --bind 127.0.0.1 >/dev/null 2>&1 & ` +
          `sleep 0.3; echo "    http://127.0.0.1:${port}/lab?token=${token}"; wait`,
      }),
      pool: { provider: 'ssh', hosts: ['h0'] },
      keep: false,
    });
    if (!started.ok) throw new Error(started.error.message);
    const runId = started.value.id;
    const changes: ForwardsChanged[] = [];
    core.bus.on('forward.changed', (e) => changes.push(e));

    const missing = await core.client.invoke('forward.open', { runId: 'r-nope', remotePort: port });
    expect(missing).toMatchObject({ ok: false, error: { code: 'not_found' } });

    await core.waitJobsStarted(runId);
    await eventuallyAsync(async () => (await connectOutcome(port)) === 'connected');
    const opened = await core.client.invoke('forward.open', { runId, remotePort: port });
    if (!opened.ok) throw new Error(opened.error.message);
    const view = opened.value;
    expect(view).toMatchObject({
      runId,
      nodeId: `${runId}/node-0`,
      direction: 'local',
      remotePort: port,
      label: `port ${port}`,
      url: `http://127.0.0.1:${view.localPort}`,
    });
    expect(await httpGet(view.localPort, '/hello.txt')).toEqual({
      status: 200,
      body: 'hello from the job\n',
    });
    // The token the job printed, by the port its URL names.
    await eventuallyAsync(async () => {
      const list = await core.client.invoke('forward.list', { runId });
      return list.ok && list.value[0]?.token === token;
    });
    expect(changes.at(-1)?.forwards.map((v) => v.localPort)).toEqual([view.localPort]);

    const cancelled = await core.client.invoke('run.cancel', { runId });
    expect(cancelled.ok).toBe(true);
    await core.waitRun(runId);
    await eventuallyAsync(async () => (await connectOutcome(view.localPort)) === 'ECONNREFUSED');
    expect(changes.at(-1)).toEqual({ runId, forwards: [] });
    const ended = await core.client.invoke('forward.open', { runId, remotePort: port });
    expect(ended).toMatchObject({
      ok: false,
      error: { code: 'bad_input', message: expect.stringContaining('has ended (cancelled)') },
    });
  });
});
