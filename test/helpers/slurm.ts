// A real single-host Slurm cluster for tests (Debian's slurm-wlm 22.05 + munge), everything
// in one temp folder: its own munge key and munged (own socket, pid and seed files, so it
// never meets a system munged), a slurm.conf on free ports, `slurmctld -D` and one
// `slurmd -D -N <node>` per node as child processes. Needs root. stop() cancels every job,
// ends every process the cluster caused and removes the folder; an exit hook does the same
// for a test process that never called it. `startLoginNode(cluster)` puts the sshd fixture
// in front of it as the cluster's login node. docs/slurm.md says what it is and what it
// taught us.
//
// Finding what the cluster caused: slurmd starts each job's slurmstepd detached (it is not
// slurmd's descendant), but every daemon, step and job process carries this cluster's
// SLURM_CONF in its environment (Slurm exports it to jobs), so leftovers are found by that
// in /proc/<pid>/environ, by PID, and nothing else is touched.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeClusters, type ClusterEntry } from '../../src-main/providers/slurm/clusters-file';
import { shq } from '../../src-main/transport/exec-helpers';
import { connectSsh, type SshShell } from '../../src-main/transport/ssh-shell';
import { freePort } from './free-port';
import { type ExecResult, type SshdFixture, type SshdOptions, startSshd } from './sshd';

export interface SlurmOptions {
  /** Nodes of the cluster, each its own slurmd on this host (Debian's build allows more
   *  than one, with its own `Port`): the first is named as `hostname -s`, the second
   *  `<host>-2`. 1 by default. */
  nodes?: 1 | 2;
  /** CPUs each node offers; `nproc` by default (a second node offers the same again). */
  cpus?: number;
  /** MiB of memory each node offers (RealMemory). */
  memoryMiB?: number;
  /** Where the cluster's folder is made; the system temp folder by default. */
  baseDir?: string;
}

/** A node state `scontrol update NodeName=… State=…` takes. */
export type NodeStateChange = 'DOWN' | 'DRAIN' | 'RESUME' | 'UNDRAIN';

export interface SlurmCluster {
  /** The slurm.conf path: SLURM_CONF for every client and daemon of this cluster. */
  readonly conf: string;
  readonly env: { SLURM_CONF: string };
  /** The default partition (`debug`: every node, no limits). */
  readonly partition: string;
  /** Every partition: `debug`; `gpu` (every node, MaxTime 60 min; a name only, this machine
   *  has no GPUs); `locked` (AllowAccounts=tender-nobody: every submission is refused with
   *  Slurm's invalid-account error, there being no accounting database here); `urgent`
   *  (a higher PriorityTier: a job there preempts, i.e. cancels, jobs of the others). */
  readonly partitions: readonly string[];
  /** `hostname -s`: the first node's name and the controller's host. */
  readonly hostname: string;
  /** The node names, first one = hostname. */
  readonly nodes: readonly string[];
  /** CPUs per node as configured. */
  readonly cpus: number;
  /** The cluster's folder (state, spool, logs, munge). */
  readonly dir: string;
  /** How long startSlurm took until every node was idle, ms (for docs; never asserted). */
  readonly startMs: number;
  /** Runs `cmd` with bash as root on this machine, in the cluster's folder, with
   *  SLURM_CONF set. */
  run(cmd: string): Promise<ExecResult>;
  /** `scontrol update NodeName=<node> State=<state> Reason=<reason>` (the first node by
   *  default). DOWN and DRAIN need a reason; Slurm refuses them without one. */
  setNodeState(state: NodeStateChange, reason?: string, node?: string): Promise<void>;
  /** Resolves once every node is idle again (after a RESUME, after jobs end). */
  waitIdle(timeoutMs?: number): Promise<void>;
  /** Cancels every job the cluster knows and waits until none holds a node. */
  cancelAll(): Promise<void>;
  /** The last lines of the daemons' output, for failure messages. */
  log(): string;
  /** Cancels every job, ends every process the cluster caused, removes its folder.
   *  Idempotent. */
  stop(): Promise<void>;
}

const BIN = {
  munged: '/usr/sbin/munged',
  mungekey: '/usr/sbin/mungekey',
  slurmctld: '/usr/sbin/slurmctld',
  slurmd: '/usr/sbin/slurmd',
};
const READY_TIMEOUT_MS = 30_000;
const LOG_LINES = 200;

const live = new Set<Cluster>();
let isExitHookSet = false;

/** Starts a cluster; resolves once `sinfo` shows every node idle. */
export async function startSlurm(opts: SlurmOptions = {}): Promise<SlurmCluster> {
  requireRoot();
  const started = Date.now();
  const cluster = new Cluster(opts);
  try {
    await cluster.begin();
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  cluster.startMs = Date.now() - started;
  return cluster;
}

/** What slurm.conf needs to know; `slurmConf` turns it into the file. */
export interface SlurmConfInput {
  dir: string;
  host: string;
  nodes: { name: string; port: number }[];
  cpus: number;
  memoryMiB: number;
  ctldPort: number;
  mungeSocket: string;
}

/** The test cluster's slurm.conf: ../shared/research/slurm-single-node.conf.example with
 *  free ports, this folder's munge socket, nodes reached at 127.0.0.1, and settings that
 *  make a test quick and its outcomes plain (commented inline). */
export function slurmConf(c: SlurmConfInput): string {
  const names = c.nodes.map((n) => n.name).join(',');
  return [
    'ClusterName=tenderlab',
    `SlurmctldHost=${c.host}(127.0.0.1)`,
    `SlurmctldPort=${c.ctldPort}`,
    `SlurmdPort=${c.nodes[0]!.port}`,
    // Slurm's auth/munge (and cred/munge) take the munge socket from here; the munge
    // client library itself would only ever try /run/munge/munge.socket.2.
    'AuthType=auth/munge',
    'CredType=cred/munge',
    `AuthInfo=socket=${c.mungeSocket}`,
    'SlurmUser=root',
    'SlurmdUser=root',
    `StateSaveLocation=${c.dir}/state`,
    `SlurmdSpoolDir=${c.dir}/spool/%n`,
    `SlurmctldPidFile=${c.dir}/slurmctld.pid`,
    `SlurmdPidFile=${c.dir}/slurmd-%n.pid`,
    `SlurmctldLogFile=${c.dir}/log/slurmctld.log`,
    `SlurmdLogFile=${c.dir}/log/slurmd-%n.log`,
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'SelectType=select/cons_tres',
    'SelectTypeParameters=CR_Core',
    'MpiDefault=none',
    // 1, not the example's 2: a node a test sets DOWN stays down until it is RESUMEd (with 2
    // slurmd's next registration brings it back within milliseconds).
    'ReturnToService=1',
    // Schedule a batch job when it is submitted (the default waits up to 3 s).
    'SchedulerParameters=batch_sched_delay=0',
    // A job past its time limit gets SIGKILL 2 s after SIGTERM (default 30 s).
    'KillWait=2',
    // Refuse at submission what a partition never allows (its accounts, time limit, size),
    // as many sites do, instead of leaving the job pending for ever.
    'EnforcePartLimits=ALL',
    // Partition `urgent` (PriorityTier 2) cancels jobs of the others to run: their state
    // becomes PREEMPTED. Only a test that submits to `urgent` preempts anything.
    'PreemptType=preempt/partition_prio',
    'PreemptMode=CANCEL',
    ...c.nodes.map(
      (n) =>
        `NodeName=${n.name} NodeHostname=${c.host} NodeAddr=127.0.0.1 Port=${n.port} ` +
        `CPUs=${c.cpus} RealMemory=${c.memoryMiB} State=UNKNOWN`,
    ),
    `PartitionName=debug Nodes=${names} Default=YES MaxTime=INFINITE PriorityTier=1 State=UP`,
    `PartitionName=gpu Nodes=${names} MaxTime=60 PriorityTier=1 State=UP`,
    `PartitionName=locked Nodes=${names} AllowAccounts=tender-nobody PriorityTier=1 State=UP`,
    `PartitionName=urgent Nodes=${names} PriorityTier=2 PreemptMode=OFF State=UP`,
    '',
  ].join('\n');
}

class Cluster implements SlurmCluster {
  readonly conf: string;
  readonly env: { SLURM_CONF: string };
  readonly partition = 'debug';
  readonly partitions = ['debug', 'gpu', 'locked', 'urgent'] as const;
  readonly hostname: string;
  readonly nodes: string[];
  readonly cpus: number;
  readonly dir: string;
  startMs = 0;
  private readonly memoryMiB: number;
  private readonly children: { name: string; proc: ChildProcess; exited: Promise<void> }[] = [];
  private readonly logLines: string[] = [];
  private isStopped = false;

  constructor(opts: SlurmOptions) {
    this.hostname = hostname().split('.')[0]!;
    this.nodes = opts.nodes === 2 ? [this.hostname, `${this.hostname}-2`] : [this.hostname];
    this.cpus = opts.cpus ?? nproc();
    this.memoryMiB = opts.memoryMiB ?? 1000;
    this.dir = mkdtempSync(join(opts.baseDir ?? tmpdir(), 'tender-slurm-'));
    this.conf = join(this.dir, 'slurm.conf');
    this.env = { SLURM_CONF: this.conf };
    live.add(this);
    setExitHook();
  }

  private get mungeDir(): string {
    return join(this.dir, 'munge');
  }

  async begin(): Promise<void> {
    // Users' jobs read the conf and reach the munge socket: the folder is world-readable.
    chmodSync(this.dir, 0o755);
    for (const d of ['state', 'spool', 'log']) mkdirSync(join(this.dir, d), { mode: 0o755 });
    for (const n of this.nodes) mkdirSync(join(this.dir, 'spool', n), { mode: 0o755 });
    await this.startMunge();
    const ports: number[] = [];
    for (let i = 0; i < this.nodes.length + 1; i++) ports.push(await freePort());
    writeFileSync(
      this.conf,
      slurmConf({
        dir: this.dir,
        host: this.hostname,
        nodes: this.nodes.map((name, i) => ({ name, port: ports[i + 1]! })),
        cpus: this.cpus,
        memoryMiB: this.memoryMiB,
        ctldPort: ports[0]!,
        mungeSocket: join(this.mungeDir, 'munge.sock'),
      }),
      { mode: 0o644 },
    );
    this.spawnDaemon('slurmctld', BIN.slurmctld, ['-D', '-f', this.conf]);
    for (const n of this.nodes)
      this.spawnDaemon(`slurmd ${n}`, BIN.slurmd, ['-D', '-N', n, '-f', this.conf]);
    await this.waitIdle(READY_TIMEOUT_MS);
  }

  /** munged as user munge with a fresh key; its socket folder must be o+x for users. */
  private async startMunge(): Promise<void> {
    const munge = userIds('munge');
    const dir = this.mungeDir;
    mkdirSync(dir, { mode: 0o755 });
    chownSync(dir, munge.uid, munge.gid);
    const key = join(dir, 'munge.key');
    const made = spawnSync(BIN.mungekey, ['-c', '-f', '-k', key], { encoding: 'utf8' });
    if (made.status !== 0) writeFileSync(key, randomBytes(1024));
    chownSync(key, munge.uid, munge.gid);
    chmodSync(key, 0o400);
    const socket = join(dir, 'munge.sock');
    this.spawnDaemon(
      'munged',
      BIN.munged,
      [
        '-F',
        `--socket=${socket}`,
        `--key-file=${key}`,
        `--pid-file=${join(dir, 'munged.pid')}`,
        `--seed-file=${join(dir, 'munged.seed')}`,
        `--log-file=${join(dir, 'munged.log')}`,
      ],
      munge,
    );
    await this.until(() => existsSync(socket), 10_000, 'munged did not create its socket');
  }

  private spawnDaemon(
    name: string,
    bin: string,
    args: string[],
    ids?: { uid: number; gid: number },
  ): void {
    const proc = spawn(bin, args, {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(ids ?? {}),
    });
    // On the daemon's own exit, not on its pipes closing: a job step it forked may hold them
    // until the leftovers are killed, which stop() does only after this wait.
    const exited = new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.once('error', () => resolve()); // never started: no 'exit' comes
    });
    this.children.push({ name, proc, exited });
    let carry = '';
    const onData = (s: string) => {
      carry += s;
      const lines = carry.split('\n');
      carry = lines.pop()!;
      for (const line of lines) this.logLines.push(`${name}: ${line}`);
      if (this.logLines.length > LOG_LINES)
        this.logLines.splice(0, this.logLines.length - LOG_LINES);
    };
    proc.stdout!.setEncoding('utf8').on('data', onData);
    proc.stderr!.setEncoding('utf8').on('data', onData);
    proc.once('error', (err) => this.logLines.push(`${name}: cannot start: ${err.message}`));
    proc.once('close', (code, signal) => {
      if (!this.isStopped) this.logLines.push(`${name}: exited (${code ?? signal})`);
    });
  }

  run(cmd: string): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', cmd], {
        cwd: this.dir, // where a job's default slurm-<id>.out lands
        env: { ...process.env, ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  async setNodeState(state: NodeStateChange, reason?: string, node?: string): Promise<void> {
    const target = node ?? this.hostname;
    const why = reason === undefined ? '' : ` Reason=${shq(reason)}`;
    const r = await this.run(`scontrol update NodeName=${shq(target)} State=${state}${why}`);
    if (r.code !== 0)
      throw new Error(`scontrol update NodeName=${target} State=${state} failed: ${r.stderr}`);
  }

  async waitIdle(timeoutMs = READY_TIMEOUT_MS): Promise<void> {
    let last: string;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.run(`sinfo -h -N -o '%N %T'`);
      last = `${r.stdout}${r.stderr}`.trim();
      const states = new Map(
        r.stdout
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(' ') as [string, string]),
      );
      if (r.code === 0 && this.nodes.every((n) => states.get(n) === 'idle')) return;
      if (this.children.some((c) => c.proc.exitCode !== null || c.proc.signalCode !== null))
        throw new Error(`a Slurm daemon exited while starting:\n${this.log()}`);
      if (Date.now() > deadline)
        throw new Error(`Slurm nodes not idle within ${timeoutMs} ms: ${last}\n${this.log()}`);
      await sleep(100);
    }
  }

  async cancelAll(): Promise<void> {
    const active = async () =>
      (await this.run(`squeue -h -o %i`)).stdout.split('\n').filter((s) => s.trim() !== '');
    const ids = await active();
    if (ids.length === 0) return;
    await this.run(`scancel ${ids.map(shq).join(' ')}`);
    const deadline = Date.now() + 15_000;
    while ((await active()).length > 0 && Date.now() < deadline) await sleep(100);
  }

  log(): string {
    const files = ['slurmctld.log', ...this.nodes.map((n) => `slurmd-${n}.log`)];
    const tails = files.map((f) => {
      const path = join(this.dir, 'log', f);
      if (!existsSync(path)) return '';
      const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
      return `── ${f}\n${lines.slice(-30).join('\n')}`;
    });
    return [this.logLines.slice(-40).join('\n'), ...tails].filter(Boolean).join('\n');
  }

  async stop(): Promise<void> {
    if (this.isStopped) return;
    const isUp = this.children.some((c) => c.name === 'slurmctld' && c.proc.exitCode === null);
    if (isUp) await this.cancelAll().catch(() => {});
    this.isStopped = true;
    // Nodes first, then the controller, then munge: each may still talk to the next.
    for (const c of [...this.children].reverse()) {
      if (c.proc.exitCode !== null || c.proc.signalCode !== null) continue;
      c.proc.kill('SIGTERM');
      const isGone = await Promise.race([
        c.exited.then(() => true),
        sleep(5_000).then(() => false),
      ]);
      if (!isGone) {
        c.proc.kill('SIGKILL');
        await c.exited;
      }
    }
    await killAndReap(this.leftovers());
    rmSync(this.dir, { recursive: true, force: true });
    live.delete(this);
  }

  /** The synchronous part of stop(), for a test process that exits without calling it. */
  stopNow(): void {
    this.isStopped = true;
    for (const c of this.children) if (c.proc.pid) tryKill(c.proc.pid);
    for (const pid of this.leftovers()) tryKill(pid);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Every process (a job step, a job's own children) whose environment names this conf. */
  private leftovers(): number[] {
    const marker = `SLURM_CONF=${this.conf}\0`;
    const found: number[] = [];
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
      try {
        if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(marker))
          found.push(Number(name));
      } catch {
        // exited while we looked, or a kernel thread
      }
    }
    return found;
  }

  private async until(f: () => boolean, ms: number, what: string): Promise<void> {
    const deadline = Date.now() + ms;
    while (!f()) {
      if (Date.now() > deadline) throw new Error(`${what} within ${ms} ms:\n${this.log()}`);
      await sleep(25);
    }
  }
}

// ── the login node ────────────────────────────────────────────────────────────────────

export interface LoginNode {
  /** The sshd fixture: its throw-away user submits as itself (`ssh.exec`, or `connect`). */
  ssh: SshdFixture;
  /** An SshShell to the login node as that user, its host key pinned to the fixture's;
   *  closed by stop(). */
  connect(signal?: AbortSignal): Promise<SshShell>;
  /** Cancels the user's jobs, closes the shells, stops sshd (and deletes the user). */
  stop(): Promise<void>;
}

/** The sshd fixture as the cluster's login node: every session (exec ones too) gets
 *  SLURM_CONF from sshd's `SetEnv`, and the fixture's throw-away user (a real Unix user
 *  with a HOME) submits jobs that run as that user on the cluster's nodes. sshd keeps only
 *  the first `SetEnv` line, so a `path` given here is set on the same line. */
export async function startLoginNode(
  cluster: SlurmCluster,
  opts: Omit<SshdOptions, 'user'> = {},
): Promise<LoginNode> {
  const { path, config = [], ...rest } = opts;
  const setEnv = [`"SLURM_CONF=${cluster.conf}"`, ...(path ? [`"PATH=${path}"`] : [])];
  const ssh = await startSshd({ ...rest, config: [`SetEnv ${setEnv.join(' ')}`, ...config] });
  const shells: SshShell[] = [];
  return {
    ssh,
    async connect(signal = new AbortController().signal) {
      const shell = await connectSsh(
        { host: ssh.host, port: ssh.port, user: ssh.user, privateKey: ssh.clientKey.privateKey },
        {
          hostKey: (info) =>
            info.fingerprint === ssh.hostKeyFingerprint ? null : 'not the fixture’s host key',
          signal,
          deadlineMs: 20_000,
        },
      );
      shells.push(shell);
      return shell;
    },
    // The user's jobs first: the fixture deletes the user, and Slurm would be left with
    // jobs of a uid nobody has.
    async stop() {
      await cluster.run(`scancel -u ${shq(ssh.user)}`).catch(() => {});
      for (const s of shells.splice(0)) await s.close();
      await ssh.stop();
    },
  };
}

/** Registers a login node as the cluster `lab` of a Tender home (its clusters.toml), reached
 *  with the fixture's client key, written to `keyFile` (0600); the cluster's default
 *  partition unless `over` says otherwise. */
export function registerCluster(
  home: string,
  cluster: SlurmCluster,
  login: LoginNode,
  keyFile: string,
  over: Partial<ClusterEntry> = {},
): void {
  writeFileSync(keyFile, login.ssh.clientKey.privateKey, { mode: 0o600 });
  writeClusters(home, [
    {
      name: 'lab',
      host: login.ssh.host,
      port: login.ssh.port,
      user: login.ssh.user,
      identityFile: keyFile,
      partition: cluster.partition,
      account: null,
      qos: null,
      gpuHourUsd: null,
      ...over,
    },
  ]);
}

// ── small things ──────────────────────────────────────────────────────────────────────

function requireRoot(): void {
  if (process.getuid?.() !== 0)
    throw new Error(
      'the Slurm tests need root: they run munged, slurmctld and slurmd. Run them as root ' +
        '(the CI container does), or on a machine where you can.',
    );
  const missing = Object.values(BIN).filter((p) => !existsSync(p));
  if (missing.length > 0)
    throw new Error(`${missing.join(', ')} missing: apt-get install slurm-wlm munge`);
}

function userIds(name: string): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`no user ${name}: apt-get install munge`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function nproc(): number {
  const r = spawnSync('nproc', { encoding: 'utf8' });
  const n = Number.parseInt(r.stdout, 10);
  return Number.isFinite(n) && n > 0 ? n : 1;
}

function tryKill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** SIGKILLs `pids` and waits until /proc no longer lists them. */
async function killAndReap(pids: number[]): Promise<void> {
  for (const pid of pids) tryKill(pid);
  const deadline = Date.now() + 5_000;
  while (pids.some(isAlive) && Date.now() < deadline) await sleep(20);
}

/** Listed in /proc and not a zombie (PID 1 here reaps orphans only every ~2 s). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function setExitHook(): void {
  if (isExitHookSet) return;
  isExitHookSet = true;
  process.on('exit', () => {
    for (const c of live) c.stopNow();
  });
}
