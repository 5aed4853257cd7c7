// SshShell against a real OpenSSH sshd (test/helpers/sshd.ts): streams and exit codes, the
// channel cap, bulk output, connect retries and their error classes, host key pinning, a
// noisy login shell, dropped connections and a pty. No mocks of ssh2. Needs root.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateEd25519 } from '../../src-main/transport/keys';
import { MarkerScanner } from '../../src-agent/wire/marker';
import { Ledger } from '../../src-main/ledger/ledger';
import { execCapture } from '../../src-main/transport/exec-helpers';
import {
  hostKeyCheck,
  type HostKeyPins,
  ledgerPins,
} from '../../src-main/transport/host-key-check';
import {
  connectSsh,
  type ConnectSshOptions,
  type HostKeyCheck,
  SshError,
  type SshShell,
} from '../../src-main/transport/ssh-shell';
import { minimalBin, type SshdFixture, startSshd } from '../helpers/sshd';
import { eventually } from '../helpers/wait';

const fixtures: SshdFixture[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  for (const f of fixtures.splice(0)) await f.stop();
});

async function sshd(opts: Parameters<typeof startSshd>[0] = {}): Promise<SshdFixture> {
  const f = await startSshd(opts);
  fixtures.push(f);
  return f;
}

function memoryPins(): HostKeyPins & {
  map: Map<string, { fingerprint: string; keyType: string }>;
} {
  const map = new Map<string, { fingerprint: string; keyType: string }>();
  return { map, get: (s) => map.get(s), pin: (p) => void map.set(p.scope, p) };
}

function trustOnFirstUse(f: { host: string; port: number }): HostKeyCheck {
  const endpoint = `${f.host}:${f.port}`;
  return hostKeyCheck({ scope: endpoint, endpoint, pins: memoryPins() });
}

async function connect(
  f: SshdFixture,
  opts: Partial<ConnectSshOptions> & { privateKey?: string } = {},
): Promise<SshShell> {
  const shell = await connectSsh(
    {
      host: f.host,
      port: f.port,
      user: f.user,
      privateKey: opts.privateKey ?? f.clientKey.privateKey,
    },
    {
      hostKey: opts.hostKey ?? trustOnFirstUse(f),
      signal: opts.signal ?? new AbortController().signal,
      deadlineMs: opts.deadlineMs ?? 20_000,
      ...(opts.onRetry ? { onRetry: opts.onRetry } : {}),
      ...(opts.authRetries !== undefined ? { authRetries: opts.authRetries } : {}),
    },
  );
  cleanups.push(() => shell.close());
  return shell;
}

async function connectError(promise: Promise<unknown>): Promise<SshError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SshError);
  return err as SshError;
}

/** A port nothing listens on (bound, read, closed), dressed as a fixture to connect to. */
function nothingListening(): Promise<SshdFixture> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      const clientKey = {
        privateKey: generateEd25519('nobody').private,
        publicKey: '',
      };
      srv.close(() => resolve({ host: '127.0.0.1', port, user: 'root', clientKey } as SshdFixture));
    });
  });
}

describe('SshShell over a real sshd', () => {
  it('runs a command with stdin, stdout, stderr and its exit code', async () => {
    const f = await sshd();
    const shell = await connect(f);
    expect(shell.description).toBe(`${f.user}@127.0.0.1:${f.port}`);

    const r = await execCapture(shell, 'tr a-z A-Z; echo "to stderr" >&2; exit 7', {
      stdin: 'hello node\n',
    });
    expect(r).toMatchObject({ code: 7, stdout: 'HELLO NODE\n', stderr: 'to stderr\n' });

    const pwd = await execCapture(shell, 'pwd; exit 0');
    expect(pwd).toMatchObject({ code: 0, stdout: `${f.home}\n` });

    // A quick command's status can arrive in the same read as the channel's confirmation:
    // none may be lost.
    for (let i = 0; i < 30; i++) {
      expect((await execCapture(shell, `exit ${i}`)).code).toBe(i);
      const killed = await execCapture(shell, 'kill -KILL $$');
      expect(killed).toMatchObject({ code: null, signal: 'SIGKILL' }); // as Node names it
    }
  });

  it('sends a command’s input right behind its request (not after the answer), 20 at once, each to its own command', async () => {
    const f = await sshd();
    const shell = await connect(f);
    const before = shell.earlyInputs;
    // The same command line twenty times: each input must reach its own command.
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        execCapture(shell, 'cat', { stdin: `input ${i}\n`.repeat(1000) }),
      ),
    );
    runs.forEach((r, i) => expect(r.stdout).toBe(`input ${i}\n`.repeat(1000)));
    expect(shell.earlyInputs - before).toBe(20);
    // A command the server cannot start loses nothing of the next one's.
    const refused = await execCapture(shell, 'exec /nonexistent/command', { stdin: 'x' });
    expect(refused.code).toBe(127);
    expect((await execCapture(shell, 'cat', { stdin: 'after\n' })).stdout).toBe('after\n');
  });

  it('runs 20 commands at once on one connection: all succeed, never more than 8 open', async () => {
    const f = await sshd();
    const shell = await connect(f);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        execCapture(
          shell,
          `mkdir -p running; touch running/${i}; sleep 0.3; echo "${i} $(ls running | wc -l)"; rm running/${i}`,
        ),
      ),
    );
    for (const [i, r] of results.entries()) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split(' ')[0]).toBe(String(i));
    }
    const concurrent = results.map((r) => Number(r.stdout.trim().split(' ')[1]));
    expect(Math.max(...concurrent)).toBeLessThanOrEqual(8);
    expect(Math.max(...concurrent)).toBeGreaterThan(1); // they did overlap
  });

  it('delivers 50 MB of output intact', async () => {
    const f = await sshd();
    const shell = await connect(f);
    const ch = shell.exec(
      'head -c 52428800 /dev/urandom > blob && sha256sum blob >&2 && cat blob && rm blob',
    );
    ch.stdin.end();
    const hash = createHash('sha256');
    let bytes = 0;
    let stderr = '';
    ch.stdout.on('data', (c: Buffer) => {
      hash.update(c);
      bytes += c.length;
    });
    ch.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const status = await ch.exit;
    expect(status.code, stderr).toBe(0);
    expect(bytes).toBe(52_428_800);
    expect(stderr.split(' ')[0]).toBe(hash.digest('hex'));
  });

  it('ends a channel on close() and settles its exit', async () => {
    const f = await sshd();
    const shell = await connect(f);
    const ch = shell.exec('sleep 30');
    ch.close();
    expect((await ch.exit).code).toBeNull();
    expect((await execCapture(shell, 'echo still here')).stdout).toBe('still here\n');
  });
});

/** A unix socket the sshd user may reach, answering each line in two writes (the case
 *  where Nagle on the server's side would hold the second piece). */
async function twoPieceEcho(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tender-sock-'));
  chmodSync(dir, 0o777);
  const path = join(dir, 's.sock');
  const srv = createServer((s) =>
    s
      .on('error', () => {})
      .on('data', (d: Buffer) => {
        s.write(`got ${d.toString().trim()}`);
        setImmediate(() => s.write('!\n'));
      }),
  );
  await new Promise<void>((r) => srv.listen(path, () => r()));
  chmodSync(path, 0o777);
  cleanups.push(() => {
    srv.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return path;
}

describe('SshShell.openSocket (OpenSSH direct-streamlocal)', () => {
  it('reaches a unix socket on the node with no command started there, both ways', async () => {
    const f = await sshd();
    const shell = await connect(f);
    const ch = await shell.openSocket(await twoPieceEcho());
    let got = '';
    ch.stdout.on('data', (c: Buffer) => (got += c.toString()));
    for (const word of ['one', 'two', 'three']) {
      ch.stdin.write(`${word}\n`);
      await eventually(() => got.includes(`got ${word}!\n`));
    }
    ch.close();
    expect(await ch.exit).toEqual({ code: null, signal: null });
    await shell.close();
  });

  it('rejects, naming the socket, when the server forbids it or nothing listens there', async () => {
    const forbidding = await sshd({ config: ['AllowStreamLocalForwarding no'] });
    const path = await twoPieceEcho();
    const shell = await connect(forbidding);
    await expect(shell.openSocket(path)).rejects.toThrow(`could not reach ${path}`);
    // The connection is still good for commands.
    expect((await execCapture(shell, 'echo ok')).stdout).toBe('ok\n');
    await shell.close();

    const f = await sshd();
    const open = await connect(f);
    await expect(open.openSocket(join(tmpdir(), 'tender-nobody-here.sock'))).rejects.toThrow(
      /could not reach .*tender-nobody-here\.sock/,
    );
    await open.close();
  });
});

describe('connectSsh', () => {
  it('waits for an sshd that starts listening 5 s late', async () => {
    const f = await sshd({ startDelayMs: 5_000 });
    const retries: string[] = [];
    const shell = await connect(f, {
      deadlineMs: 30_000,
      onRetry: (_attempt, err) => retries.push(err.kind),
    });
    expect(retries).toContain('refused');
    expect((await execCapture(shell, 'echo up')).stdout).toBe('up\n');
  });

  it('gives up after the deadline with a "refused" error naming the endpoint', async () => {
    const nobody = await nothingListening();
    const port = nobody.port;
    const err = await connectError(connect(nobody, { deadlineMs: 1_500 }));
    expect(err.kind).toBe('refused');
    expect(err.endpoint).toBe(`127.0.0.1:${port}`);
    expect(err.message).toMatch(new RegExp(`SSH to 127\\.0\\.0\\.1:${port} refused for \\d+ s`));
    expect(err.message).toContain("check the node's boot log");
  });

  it('stops retrying when its signal aborts', async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('cancelled by the test')), 300);
    await expect(
      connect(await nothingListening(), { deadlineMs: 60_000, signal: ctl.signal }),
    ).rejects.toThrow('cancelled by the test');
  });

  it('logs in with the key at once, without first asking for method "none" (a round trip)', async () => {
    const f = await sshd({ config: ['LogLevel DEBUG1'] });
    const shell = await connect(f);
    expect((await execCapture(shell, 'echo in')).stdout).toBe('in\n');
    const requests = f.log().match(/userauth-request for user \S+ service \S+ method \S+/g);
    expect(requests?.map((r) => r.split(' ').pop())).toEqual(['publickey', 'publickey']);
  });

  it('reports a key the node does not accept as "auth", naming the user', async () => {
    const f = await sshd();
    const stranger = generateEd25519('stranger').private;
    let retries = 0;
    const err = await connectError(
      connect(f, { privateKey: stranger, deadlineMs: 15_000, onRetry: () => retries++ }),
    );
    expect(err.kind).toBe('auth');
    expect(err.message).toContain(`user ${f.user}`);
    expect(err.message).toContain('authorized_keys');
    expect(retries).toBeLessThanOrEqual(2);
    expect(err.message).not.toContain(stranger.split('\n')[1]!);
  });

  it('keeps retrying a rejected key until the deadline when asked (a rented node installs its keys late)', async () => {
    const f = await sshd();
    f.setAuthorizedKeys([]); // the container has not installed our key yet
    let authRetries = 0;
    setTimeout(() => f.setAuthorizedKeys([f.clientKey.publicKey]), 6_000).unref();
    const shell = await connect(f, {
      deadlineMs: 30_000,
      authRetries: Number.POSITIVE_INFINITY,
      onRetry: (_n, err) => void (err.kind === 'auth' && authRetries++),
    });
    const r = shell.exec('echo in');
    r.stderr.resume();
    const out: Buffer[] = [];
    r.stdout.on('data', (c: Buffer) => out.push(c));
    await r.exit;
    expect(Buffer.concat(out).toString()).toBe('in\n');
    expect(authRetries).toBeGreaterThan(2); // more than the default would have allowed
  });

  it('refuses a host whose key changed since it was pinned, without retrying', async () => {
    const f = await sshd();
    const home = mkdtempSync(join(tmpdir(), 'tender-ssh-ledger-'));
    const ledger = Ledger.openWriter(home);
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    cleanups.push(() => ledger.close());
    const check = () =>
      hostKeyCheck({
        scope: 'host:gpu-1',
        endpoint: `127.0.0.1:${f.port}`,
        pins: ledgerPins(ledger),
      });

    const first = await connect(f, { hostKey: check() });
    await first.close();
    const pinned = f.hostKeyFingerprint;
    expect(ledger.getHostKey('host:gpu-1')?.fingerprint).toBe(pinned);

    await f.restart({ newHostKey: true });
    let retries = 0;
    const err = await connectError(
      connect(f, { hostKey: check(), deadlineMs: 30_000, onRetry: () => retries++ }),
    );
    expect(err.kind).toBe('host_key');
    expect(retries).toBe(0);
    expect(err.message).toContain(`pinned ${pinned}`);
    expect(err.message).toContain(`offered ${f.hostKeyFingerprint}`);
    expect(err.message).toContain('tender hosts forget-key host:gpu-1');
    expect(ledger.getHostKey('host:gpu-1')?.fingerprint).toBe(pinned); // never re-pinned
  });
});

describe('what the node does to the connection', () => {
  it('is not fooled by a noisy, slow .bashrc: the marker finds the payload', async () => {
    const f = await sshd({
      bashrc: 'echo "welcome to the cluster"\nprintf "{\\"motd\\":1}"\nsleep 1\n',
    });
    const shell = await connect(f);
    const r = await execCapture(shell, `printf 'TENDER-STREAM/1\\n{"ok":1}\\n'`);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('welcome to the cluster');
    const rest = new MarkerScanner().push(Buffer.from(r.stdout));
    expect(rest?.toString()).toBe('{"ok":1}\n');
  });

  it('settles every channel, open or queued, when the sessions are killed', async () => {
    const f = await sshd();
    const shell = await connect(f);
    // 8 open (the cap) and 2 queued behind them.
    const channels = Array.from({ length: 10 }, () => shell.exec('echo up; exec sleep 30'));
    let started = 0;
    const allOpen = new Promise<void>((resolve) => {
      for (const ch of channels) {
        ch.stdout.once('data', () => ++started === 8 && resolve());
        ch.stdout.resume();
        ch.stderr.resume();
      }
    });
    await allOpen;
    await f.killSessions();
    expect(typeof (await shell.closed)).toBe('string');
    const statuses = await Promise.all(channels.map((ch) => ch.exit));
    expect(statuses.map((s) => s.code)).toEqual(Array(10).fill(null));
    expect((await execCapture(shell, 'echo late')).code).toBeNull(); // no hang after the drop
  });

  it('opens a pty: echo round trip, then a resize the shell sees', async () => {
    const f = await sshd();
    const shell = await connect(f);
    const pty = await shell.openPty({ cols: 80, rows: 24, term: 'xterm-256color' });
    let screen = '';
    pty.stdout.on('data', (c: Buffer) => (screen += c.toString('utf8')));
    const waitFor = async (re: RegExp) => {
      const until = Date.now() + 10_000;
      while (!re.test(screen)) {
        if (Date.now() > until) throw new Error(`no ${re} in: ${JSON.stringify(screen)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await pty.write(Buffer.from('stty size; echo "sum=$((40+2))"\n'));
    await waitFor(/sum=42/);
    expect(screen).toMatch(/^24 80\r?$/m);
    pty.resize(100, 40);
    await pty.write(Buffer.from('stty size\n'));
    await waitFor(/^40 100\r?$/m);
    await pty.write(Buffer.from('exit 0\n'));
    expect(await pty.exit).toBe(0);

    const cmd = await shell.openPty({
      cols: 90,
      rows: 30,
      term: 'xterm',
      command: 'stty size; exit 3',
    });
    let out = '';
    cmd.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    // The exit code can come before the last output has been passed on: read to the end.
    const ended = new Promise((resolve) => cmd.stdout.once('end', resolve));
    expect(await cmd.exit).toBe(3);
    await ended;
    expect(out).toMatch(/^30 90\r?$/m);
  });
});

describe('the sshd fixture itself', () => {
  it('keeps sessions through a listener pause, and new connections wait for it', async () => {
    const f = await sshd();
    const shell = await connect(f);
    await f.pauseListener(1_500);
    expect((await execCapture(shell, 'echo alive')).stdout).toBe('alive\n');
    const retries: string[] = [];
    const second = await connect(f, { onRetry: (_n, e) => retries.push(e.kind) });
    expect(retries).toContain('refused');
    expect((await execCapture(second, 'echo second')).stdout).toBe('second\n');
  });

  it('hides node behind a minimal PATH, and can log in as root', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'tender-minbin-test-'));
    chmodSync(bin, 0o755); // the test user must reach it
    cleanups.push(() => rmSync(bin, { recursive: true, force: true }));
    const f = await sshd({ path: minimalBin(join(bin, 'bin')) });
    const r = await f.exec('echo "$PATH"; command -v tar; command -v node || echo no-node');
    expect(r.stdout).toBe(`${join(bin, 'bin')}\n${join(bin, 'bin', 'tar')}\nno-node\n`);
    const root = await sshd({ user: 'root' });
    expect((await root.exec('id -u')).stdout).toBe('0\n');
  });

  it('ends what sessions detached only on stop(), and leaves no user or folder behind', async () => {
    const f = await startSshd();
    const tag = `${30 + Math.floor(Math.random() * 1000)}.${process.pid}`; // a unique sleep
    await f.exec(`setsid nohup sleep ${tag} >/dev/null 2>&1 < /dev/null &`);
    const detached = () => pgrep(`sleep ${tag}`);
    // The shell returns once it has forked; setsid and nohup exec `sleep` a moment later.
    await eventually(() => detached().length > 0);
    expect(detached()).toHaveLength(1);
    await f.killSessions();
    expect(detached()).toHaveLength(1); // a daemon outlives the connection, as on a node
    await f.stop();
    expect(detached()).toEqual([]);
    expect(existsSync(f.home)).toBe(false);
    expect(spawnSync('id', [f.user]).status).not.toBe(0);
  });

  it('stops before a delayed start, taking the minimalBin() folder it was given with it', async () => {
    const bin = minimalBin();
    const f = await startSshd({ startDelayMs: 60_000, path: bin });
    await f.stop();
    await expect(f.listening()).rejects.toThrow(/stopped before it listened/);
    expect(existsSync(bin)).toBe(false);
  });
});

function pgrep(pattern: string): string[] {
  const r = spawnSync('pgrep', ['-f', `^${pattern}$`], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean);
}
