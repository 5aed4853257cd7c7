// A real OpenSSH sshd on 127.0.0.1 for tests: its own port, host key, config, client key
// and (by default) a throw-away Unix user, all removed again by stop(). Needs root.
//
// sshd runs under a tiny python3 "subreaper" (prctl PR_SET_CHILD_SUBREAPER): when the
// listener is killed to simulate an sshd restart, its sessions and any daemon a session
// detached are re-parented to that wrapper instead of to PID 1. The wrapper reaps them (an
// init that does not reap would leave `[sshd] <defunct>` behind) and keeps them findable,
// so stop() ends every process this fixture caused, by PID, and nothing else.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { freePort } from './free-port';
import {
  descendantsOf,
  killAndReap,
  pidsOfUser,
  processTable,
  sleep,
  tryKill,
} from './process-table';
import { generateEd25519 } from '../../src-main/transport/keys';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SshdOptions {
  /** `fresh` (default): a new user `tnd…` with an empty temp HOME. `root`: HOME is /root. */
  user?: 'fresh' | 'root';
  /** Written to the user's ~/.bashrc, which Debian's bash sources for every ssh command. */
  bashrc?: string;
  /** The PATH sessions get (e.g. `minimalBin()` to hide `node`). */
  path?: string;
  /** Reserve the port now, start listening only after this long. */
  startDelayMs?: number;
  /** Where the fixture's folder (and the fresh user's HOME) is made: the node's disk.
   *  The system temp folder by default. */
  baseDir?: string;
  /** sshd_config lines put before the fixture's own (sshd keeps a keyword's first value),
   *  e.g. `AllowStreamLocalForwarding no`. */
  config?: string[];
  /** The loopback address it listens on (127.0.0.1 by default): `127.0.0.2` … give test
   *  nodes distinct addresses, as machines of a distributed run have. */
  address?: string;
}

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const SSHD = '/usr/sbin/sshd';
const READY_TIMEOUT_MS = 10_000;
/** How long stop() lets a wrapper end by itself (its children killed) before killing it. */
const WRAPPER_EXIT_MS = 5_000;
const LOG_LINES = 300;

// Forks sshd, prints its pid, forwards SIGTERM to it alone, and reaps every process that
// lands on it until none is left.
const SUBREAPER = `
import ctypes, os, signal, sys
if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:
    sys.exit("prctl(PR_SET_CHILD_SUBREAPER) failed")
child = os.fork()
if child == 0:
    os.execv(sys.argv[1], sys.argv[1:])
print(child, flush=True)
def forward(signum, frame):
    try:
        os.kill(child, signum)
    except ProcessLookupError:
        pass
signal.signal(signal.SIGTERM, forward)
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
`;

interface Listener {
  wrapper: ChildProcess;
  /** On the wrapper's own exit, not on its pipes closing: a process that escaped the
   *  wrapper may hold them open for ever. */
  wrapperExited: Promise<void>;
  /** The sshd listener's pid (0 until the wrapper has said it). */
  pid: number;
}

const live = new Set<SshdFixture>();
/** Folders minimalBin() made on its own; a fixture given one as `path` takes it over. */
const scratchDirs = new Set<string>();
let isExitHookSet = false;

/** Starts sshd; resolves once it listens (or at once with `startDelayMs`). */
export async function startSshd(opts: SshdOptions = {}): Promise<SshdFixture> {
  requireRoot();
  const fixture = new SshdFixture(opts, await freePort());
  try {
    await fixture.begin(opts.startDelayMs ?? 0);
  } catch (err) {
    await fixture.stop();
    throw err;
  }
  return fixture;
}

export class SshdFixture {
  readonly host: string;
  readonly user: string;
  readonly home: string;
  readonly clientKey: { privateKey: string; publicKey: string };
  private readonly dir: string;
  private readonly ownedDirs: string[] = [];
  private readonly isFreshUser: boolean;
  private uid = 0;
  private hostPub = '';
  private hostFp = '';
  private current: Listener | null = null;
  private readonly listeners: Listener[] = [];
  private ready: Promise<void> = Promise.resolve();
  private pending: { timer: NodeJS.Timeout; cancel: () => void } | null = null;
  private logLines: string[] = [];
  private isStopped = false;

  constructor(
    opts: SshdOptions,
    readonly port: number,
  ) {
    this.host = opts.address ?? '127.0.0.1';
    this.isFreshUser = (opts.user ?? 'fresh') === 'fresh';
    if (!this.isFreshUser && opts.bashrc !== undefined)
      throw new Error(
        "sshd fixture: `bashrc` needs user 'fresh' (it would overwrite /root/.bashrc)",
      );
    this.dir = mkdtempSync(join(opts.baseDir ?? tmpdir(), 'tender-sshd-'));
    this.user = this.isFreshUser ? `tnd${randomBytes(4).toString('hex')}` : 'root';
    this.home = this.isFreshUser ? join(this.dir, 'home') : '/root';
    const pair = generateEd25519('tender-test-client');
    this.clientKey = { privateKey: pair.private, publicKey: pair.public };
    live.add(this);
    setExitHook();
    try {
      chmodSync(this.dir, 0o755); // sshd reads authorized_keys as the user
      writeFileSync(join(this.dir, 'client_ed25519'), pair.private, { mode: 0o600 });
      writeFileSync(join(this.dir, 'authorized_keys'), `${pair.public}\n`, { mode: 0o644 });
      this.newHostKey();
      if (this.isFreshUser) this.createUser(opts.bashrc);
      writeFileSync(join(this.dir, 'sshd_config'), this.config(opts.path, opts.config ?? []));
      if (opts.path !== undefined && scratchDirs.delete(opts.path)) this.ownedDirs.push(opts.path);
    } catch (err) {
      this.stopNow();
      live.delete(this);
      throw err;
    }
  }

  get hostPublicKey(): string {
    return this.hostPub;
  }

  /** `SHA256:…`, as `ssh-keygen -l` prints it. */
  get hostKeyFingerprint(): string {
    return this.hostFp;
  }

  /** Resolves once sshd accepts connections (after a delayed start, pause or restart). */
  listening(): Promise<void> {
    return this.ready;
  }

  /** The last lines sshd logged, for failure messages. */
  log(): string {
    return this.logLines.join('\n');
  }

  /** Starts listening now (resolves once it does) or after `delayMs`. Either start is
   *  `ready`, so a stop() called meanwhile waits for the wrapper it spawns. */
  async begin(delayMs: number): Promise<void> {
    if (delayMs > 0) {
      this.listenLater(delayMs);
      return;
    }
    this.ready = this.listen(3);
    return this.ready;
  }

  /** Kills every per-connection sshd (and what its session runs); the listener stays, and
   *  so do daemons a session detached. Clients see their connection drop. */
  /** Sets the keys sshd accepts from now on (a node that installs its keys late). */
  setAuthorizedKeys(publicKeys: string[]): void {
    writeFileSync(
      join(this.dir, 'authorized_keys'),
      publicKeys.map((k) => `${k.trim()}\n`).join(''),
      { mode: 0o644 },
    );
  }

  killSessions(): Promise<void> {
    const table = processTable();
    const victims: number[] = [];
    for (const l of this.listeners) {
      // Only pids still ours: a stopped listener's or an ended wrapper's pid may belong to
      // any process by now (pid_max is 32768 here), whose children are not sessions.
      const listener = listenerPidOf(l, table);
      const wrapper = wrapperPidOf(l);
      for (const [pid, p] of table) {
        const isSession =
          (listener !== undefined && p.ppid === listener && pid !== listener) ||
          (wrapper !== undefined && p.ppid === wrapper && pid !== l.pid && p.comm === 'sshd');
        if (isSession) victims.push(pid, ...descendantsOf(table, pid));
      }
    }
    return killAndReap(victims);
  }

  /** Stops accepting (the listener dies; sessions live), listens again after `ms`. */
  async pauseListener(ms: number): Promise<void> {
    await this.stopListener();
    this.listenLater(ms);
  }

  /** Restarts sshd on the same port, as `systemctl restart ssh` does: sessions live.
   *  `previousHostKey`: back to the key it had before the last `newHostKey`. */
  async restart(opts: { newHostKey?: boolean; previousHostKey?: boolean } = {}): Promise<void> {
    this.cancelPending();
    await this.stopListener();
    if (opts.newHostKey) this.newHostKey();
    if (opts.previousHostKey) this.previousHostKey();
    this.ready = this.listen(1);
    await this.ready;
  }

  /** Runs `cmd` as the user through the system ssh client (for assertions). */
  exec(cmd: string): Promise<ExecResult> {
    writeFileSync(
      join(this.dir, 'known_hosts'),
      `[${this.host}]:${this.port} ${this.hostPub.split(' ').slice(0, 2).join(' ')}\n`,
    );
    return sshAs({
      keyFile: join(this.dir, 'client_ed25519'),
      port: this.port,
      knownHostsFile: join(this.dir, 'known_hosts'),
      target: `${this.user}@${this.host}`,
      cmd,
    });
  }

  /** Ends every process this fixture caused, deletes its user and its folder. Idempotent. */
  async stop(): Promise<void> {
    if (this.isStopped) return;
    this.isStopped = true;
    this.cancelPending();
    await this.ready.catch(() => {});
    const table = processTable();
    const victims = this.listeners.flatMap((l) => {
      const wrapper = wrapperPidOf(l); // an ended wrapper's pid is someone else's now
      return wrapper !== undefined ? descendantsOf(table, wrapper) : [];
    });
    if (this.isFreshUser && this.uid > 0) victims.push(...pidsOfUser(table, this.uid));
    await killAndReap(victims);
    for (const l of this.listeners) await endWrapper(l);
    if (this.isFreshUser && this.uid > 0) await removeUser(this.user);
    for (const d of [this.dir, ...this.ownedDirs]) rmSync(d, { recursive: true, force: true });
    live.delete(this);
  }

  /** The synchronous part of stop(), for a test process that exits without calling it. */
  stopNow(): void {
    this.cancelPending();
    const table = processTable();
    for (const l of this.listeners) {
      const wrapper = wrapperPidOf(l);
      const pids = wrapper !== undefined ? [...descendantsOf(table, wrapper), wrapper] : [];
      for (const pid of pids) tryKill(pid, 'SIGKILL');
    }
    if (this.isFreshUser && this.uid > 0) {
      for (const pid of pidsOfUser(table, this.uid)) tryKill(pid, 'SIGKILL');
      spawnSync('userdel', ['-f', this.user], { stdio: 'ignore' });
    }
    for (const d of [this.dir, ...this.ownedDirs]) rmSync(d, { recursive: true, force: true });
  }

  private listenLater(ms: number): void {
    this.ready = new Promise((resolve, reject) => {
      this.pending = {
        timer: setTimeout(() => {
          this.pending = null;
          this.listen(1).then(resolve, reject);
        }, ms),
        cancel: () => reject(new Error('sshd fixture: stopped before it listened')),
      };
    });
    this.ready.catch(() => {}); // reported to whoever awaits listening()
  }

  private cancelPending(): void {
    if (!this.pending) return;
    clearTimeout(this.pending.timer);
    this.pending.cancel();
    this.pending = null;
  }

  private async listen(tries: number): Promise<void> {
    if (this.isStopped) throw new Error('sshd fixture: stopped');
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 }); // sshd's privsep chroot
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.spawnListener();
      } catch (err) {
        // The port was free when picked; another process may have taken it since.
        if (attempt >= tries || !/Address already in use/.test(this.log())) throw err;
        if (this.isStopped) throw new Error('sshd fixture: stopped', { cause: err });
        (this as { port: number }).port = await freePort();
      }
    }
  }

  private spawnListener(): Promise<void> {
    const args = [SSHD, '-D', '-e', '-f', join(this.dir, 'sshd_config'), '-p', String(this.port)];
    const wrapper = spawn('python3', ['-c', SUBREAPER, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const wrapperExited = new Promise<void>((resolve) => {
      wrapper.once('exit', () => resolve());
      wrapper.once('error', () => resolve()); // never started: no 'exit' comes
    });
    const listener: Listener = { wrapper, wrapperExited, pid: 0 };
    this.listeners.push(listener);
    this.current = listener;
    return new Promise((resolve, reject) => {
      let isDone = false;
      const done = (err?: Error) => {
        if (isDone) return;
        isDone = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      const timer = setTimeout(
        () => done(new Error(`sshd did not start within ${READY_TIMEOUT_MS} ms:\n${this.log()}`)),
        READY_TIMEOUT_MS,
      );
      wrapper.stdout!.setEncoding('utf8');
      wrapper.stdout!.on('data', (s: string) => {
        const pid = Number.parseInt(s, 10);
        if (listener.pid === 0 && pid > 0) listener.pid = pid;
      });
      let carry = '';
      wrapper.stderr!.setEncoding('utf8');
      wrapper.stderr!.on('data', (s: string) => {
        carry += s;
        const lines = carry.split('\n');
        carry = lines.pop()!;
        for (const line of lines) {
          this.logLines.push(line);
          if (/^Server listening on /.test(line)) done();
        }
        if (this.logLines.length > LOG_LINES)
          this.logLines.splice(0, this.logLines.length - LOG_LINES);
      });
      wrapper.once('error', (err) =>
        done(new Error(`cannot run python3 for the sshd fixture: ${err.message}`)),
      );
      wrapper.once('close', (code) =>
        done(new Error(`sshd exited (${code}) before listening:\n${this.log()}`)),
      );
    });
  }

  /** Kills the listener alone (SIGTERM, through the wrapper) and waits until it is gone. */
  private async stopListener(): Promise<void> {
    await this.ready.catch(() => {});
    const l = this.current;
    this.current = null;
    if (!l || l.wrapper.exitCode !== null || l.wrapper.signalCode !== null) return;
    const pid = l.pid;
    l.wrapper.kill('SIGTERM');
    const until = Date.now() + 5_000;
    while (pid > 0 && processTable().has(pid) && Date.now() < until) await sleep(20);
    if (pid > 0 && listenerPidOf(l, processTable()) === pid) await killAndReap([pid]);
  }

  private previousKey: { priv: string; pub: string } | null = null;

  private previousHostKey(): void {
    if (!this.previousKey) throw new Error('no earlier host key to go back to');
    const key = join(this.dir, 'host_ed25519');
    writeFileSync(key, this.previousKey.priv, { mode: 0o600 });
    writeFileSync(`${key}.pub`, this.previousKey.pub);
    this.hostPub = this.previousKey.pub.trim();
    this.hostFp = run('ssh-keygen', ['-l', '-f', `${key}.pub`]).split(' ')[1]!;
  }

  private newHostKey(): void {
    const key = join(this.dir, 'host_ed25519');
    if (existsSync(key))
      this.previousKey = {
        priv: readFileSync(key, 'utf8'),
        pub: readFileSync(`${key}.pub`, 'utf8'),
      };
    rmSync(key, { force: true });
    rmSync(`${key}.pub`, { force: true });
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'tender-test-host', '-f', key]);
    this.hostPub = readFileSync(`${key}.pub`, 'utf8').trim();
    this.hostFp = run('ssh-keygen', ['-l', '-f', `${key}.pub`]).split(' ')[1]!;
  }

  private createUser(bashrc: string | undefined): void {
    mkdirSync(this.home, { mode: 0o755 });
    runRetrying('useradd', ['-M', '-d', this.home, '-s', '/bin/bash', this.user]);
    this.uid = Number(run('id', ['-u', this.user]).trim());
    // A user with no password is "locked" to sshd even for key logins.
    runRetrying('usermod', ['-p', '*', this.user]);
    const gid = Number(run('id', ['-g', this.user]).trim());
    chownSync(this.home, this.uid, gid);
    if (bashrc !== undefined) {
      const rc = join(this.home, '.bashrc');
      writeFileSync(rc, bashrc);
      chownSync(rc, this.uid, gid);
    }
  }

  private config(path: string | undefined, first: string[]): string {
    const lines = [
      ...first,
      `ListenAddress ${this.host}`,
      `HostKey ${join(this.dir, 'host_ed25519')}`,
      `PidFile ${join(this.dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(this.dir, 'authorized_keys')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'AllowStreamLocalForwarding yes',
      'MaxSessions 10',
      'PrintMotd no',
      // As every stock sshd (and rented image) does: scp speaks SFTP since OpenSSH 9.
      'Subsystem sftp internal-sftp',
    ];
    if (path !== undefined) lines.push(`SetEnv "PATH=${path}"`);
    return `${lines.join('\n')}\n`;
  }
}

/** A folder of symlinks to the tools a bootstrap needs, and no `node`: give it as `path`
 *  to simulate a node without Node. Without `dir`, a temp folder removed at exit. */
export function minimalBin(dir?: string): string {
  const bin = dir ?? mkdtempSync(join(tmpdir(), 'tender-minbin-'));
  if (!dir) scratchDirs.add(bin);
  setExitHook();
  mkdirSync(bin, { recursive: true });
  chmodSync(bin, 0o755);
  for (const tool of MINIMAL_TOOLS) {
    const target = SYSTEM_BIN.map((d) => join(d, tool)).find((p) => existsSync(p));
    if (!target) throw new Error(`minimalBin: ${tool} is not installed on this machine`);
    if (!existsSync(join(bin, tool))) symlinkSync(target, join(bin, tool));
  }
  return bin;
}

const MINIMAL_TOOLS = (
  'sh bash cat mkdir mv rm ls test uname tar gzip sha256sum sleep env id chmod head tail grep ' +
  'sed awk dirname basename kill nohup setsid df'
).split(' ');
const SYSTEM_BIN = ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin'];

function requireRoot(): void {
  if (process.getuid?.() !== 0)
    throw new Error(
      'the SSH tests need root: they run /usr/sbin/sshd and create throw-away users. ' +
        'Run them as root (the CI container does), or on a machine where you can.',
    );
  if (!existsSync(SSHD))
    throw new Error(`${SSHD} is missing: apt-get install openssh-server openssh-client`);
}

function run(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.error}`);
  return r.stdout;
}

/** useradd and friends lock /etc/passwd; parallel test files may hold the lock a moment. */
function runRetrying(cmd: string, args: string[]): void {
  for (let i = 0; ; i++) {
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.status === 0) return;
    if (i >= 50 || !/lock/i.test(r.stderr))
      throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
}

async function removeUser(user: string): Promise<void> {
  for (let i = 0; ; i++) {
    const r = spawnSync('userdel', [user], { encoding: 'utf8' });
    if (r.status === 0 || /does not exist/.test(r.stderr)) return;
    if (i >= 50) throw new Error(`userdel ${user} failed (${r.status}): ${r.stderr}`);
    await sleep(100);
  }
}

/** Ends a listener's wrapper and everything under it. The wrapper exits by itself once it
 *  has no child left; until then its descendants are looked up again each round, because a
 *  wrapper still starting forks sshd after any first look (and a killed sshd's orphans land
 *  on it). Past WRAPPER_EXIT_MS the wrapper is killed as well, which always ends it. */
/** The wrapper's pid while it has not ended (its pid is its own until Node reaps it). */
function wrapperPidOf(l: Listener): number | undefined {
  const alive = l.wrapper.exitCode === null && l.wrapper.signalCode === null;
  return alive && l.wrapper.pid ? l.wrapper.pid : undefined;
}

/** The listener's pid while it is still the wrapper's child (not stopped, not reused). */
function listenerPidOf(l: Listener, table: ReturnType<typeof processTable>): number | undefined {
  const wrapper = wrapperPidOf(l);
  if (wrapper === undefined || l.pid <= 0) return undefined;
  return table.get(l.pid)?.ppid === wrapper ? l.pid : undefined;
}

async function endWrapper(l: Listener): Promise<void> {
  const pid = l.wrapper.pid;
  const until = Date.now() + WRAPPER_EXIT_MS;
  for (;;) {
    if (l.wrapper.exitCode !== null || l.wrapper.signalCode !== null || !pid) break;
    for (const child of descendantsOf(processTable(), pid)) tryKill(child, 'SIGKILL');
    if (Date.now() > until) tryKill(pid, 'SIGKILL');
    const isGone = await Promise.race([l.wrapperExited.then(() => true), sleep(20)]);
    if (isGone) break;
  }
  await l.wrapperExited;
}

function setExitHook(): void {
  if (isExitHookSet) return;
  isExitHookSet = true;
  process.on('exit', () => {
    for (const f of live) f.stopNow();
    for (const d of scratchDirs) rmSync(d, { recursive: true, force: true });
  });
}

/** Runs `cmd` through the system ssh client with one key and one pinned host key: no user
 *  config, no agent, no prompts (what tests assert with). */
export function sshAs(o: {
  keyFile: string;
  port: number;
  knownHostsFile: string;
  target: string;
  cmd: string;
  connectTimeoutS?: number;
}): Promise<ExecResult> {
  const args = [
    ...['-F', '/dev/null', '-i', o.keyFile, '-p', String(o.port)],
    ...['-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'StrictHostKeyChecking=yes'],
    ...['-o', `UserKnownHostsFile=${o.knownHostsFile}`, '-o', 'GlobalKnownHostsFile=/dev/null'],
    ...['-o', 'LogLevel=ERROR'],
    ...(o.connectTimeoutS ? ['-o', `ConnectTimeout=${o.connectTimeoutS}`] : []),
    o.target,
    o.cmd,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('ssh', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
