import type { HelloResult } from '../../src-agent/wire/protocol';
import type { BootstrapStage } from '../contract';
import type { HostSetupOption } from '../../src-agent/wire/host-declaration';
import type { HostKeyInput } from '../../src-agent/wire/host-key';
import { randomBytes } from 'node:crypto';
import type { NodeRuntime } from './runtime-bundle';
import { execCapture } from '../transport/exec-helpers';
import type { NodeShell, ShellConnector } from '../transport/node-shell';
import type { AgentClient } from './agent-client';
import { attachTo } from './agent-attach';
import { BootstrapError, outputTail, withDeadline } from './bootstrap-errors';
import { runBootstrapScript } from './bootstrap-script';
import { parseConstraint, unmet, unmetText } from '../contract/constraint';
import type { AgentAddress, NodeLayout } from './node-layout';
import {
  type FoundRuntime,
  firstWorking,
  MIN_NODE_MAJOR,
  runtimeCandidates,
} from './runtime-probe';
import { speculativeServe } from './speculative-serve';
import { startAhead, type StartedAhead } from './speculative-start';
import { startAgent, startArgs } from './agent-start';
import {
  cachedFileProblem,
  cachedFileScript,
  parseCachedFile,
  PRIVATE_UMASK,
} from './cached-file-check';
import { checkCachedAgent, ensureCachedAgent } from './cached-agent';

export interface BootstrapDeadlines {
  connectMs: number;
  checkMs: number;
  startMs: number;
  joinMs: number;
}

export const DEFAULT_DEADLINES: BootstrapDeadlines = {
  connectMs: 5 * 60_000, // a fresh cloud image can take minutes to start sshd
  checkMs: 5 * 60_000, // includes pushing the agent (and later a runtime) over a slow link
  startMs: 60_000,
  joinMs: 60_000,
};

export interface BootstrapSpec {
  connect: ShellConnector;
  layout: NodeLayout;
  agentBundle: { bytes: Buffer; sha256: string; version: string };
  /** The pinned runtime for a node's `uname -m`, installed when the node has no Node >= 18. */
  runtimeFor: (unameM: string) => NodeRuntime | null;
  verify: string[];
  agentId: string;
  /** What the machine is declared as; the agent recomputes its key and must advertise
   *  `hostKey`. */
  hostDeclaration: HostKeyInput;
  hostKey: string;
  /** The job's capability constraints: a node whose agent's probe fails one never joins
   *  (a failed boot: destroyed, confirmed, its host remembered, another tried). */
  constraints?: string[];
  /** Runs once per machine after the verify commands (bootstrap-script.ts). */
  bootstrapScript?: string;
  /** Names and refresh_capabilities of the declaration's host_setup entries, which the
   *  key does not carry; the agent seeds its host-setup FIFO with them. */
  hostSetup?: HostSetupOption[];
  deadlines: BootstrapDeadlines;
}

export interface BootstrapCallbacks {
  observed(stage: BootstrapStage): void;
  log(stream: 'stdout' | 'stderr' | 'info', line: string): void;
  joined(hello: HelloResult, address: AgentAddress): void;
  /** The runtime and the agent bundle are on the node (the boot checks passed); the
   *  daemon is not started yet. A job's first push may begin here (jobs/node-job/early-push.ts),
   *  on this session's own connection: `share` hands out a handle on it (null where the
   *  connection cannot be shared) that keeps it open after the session closes its own.
   *  Called first with `serveCommand` as soon as the connection is up, before the checks:
   *  the push's node side started on a guess the node checks itself (speculative-serve.ts). */
  prepared?(address: AgentAddress, share: () => NodeShell | null, serveCommand?: string): void;
}

/** The transient SSH-era of a node: connect, probe, make sure a runtime and
 *  the agent are there, verify, start the agent detached, wait for its hello, and close once
 *  the NodeManager has recorded the join. Every line the node prints is logged. */
export class BootstrapSession {
  /** Marks the lines our probes print. A login shell may print anything (a noisy .bashrc),
   *  but it cannot print a nonce it never saw. */
  private readonly nonce = randomBytes(6).toString('hex');
  private converged!: () => void;
  private readonly convergence = new Promise<void>((r) => (this.converged = r));

  constructor(
    private readonly spec: BootstrapSpec,
    private readonly cb: BootstrapCallbacks,
  ) {}

  /** Called when the NodeManager has recorded AgentJoined (NotifyConvergence). */
  convergenceObserved(): void {
    this.converged();
  }

  /** Resolves when the session has closed after convergence; throws BootstrapError. */
  async run(signal: AbortSignal): Promise<void> {
    const { deadlines } = this.spec;
    this.stage('ssh_connecting');
    const shell = await withDeadline(
      deadlines.connectMs,
      signal,
      () => new BootstrapError('ssh_timeout', `no connection within ${secs(deadlines.connectMs)}`),
      (s) => this.spec.connect(s),
    ).catch((err: unknown) => {
      if (err instanceof BootstrapError) throw err;
      throw new BootstrapError('ssh_timeout', (err as Error).message);
    });
    let client: AgentClient | null = null;
    try {
      this.stage('ssh_ready');
      // A first push may begin now, on a guess the node checks itself (speculative-serve.ts).
      const share = () => shell.share?.() ?? null;
      const guess = shell.share && speculativeServe(this.spec.layout, this.spec.agentBundle);
      if (guess) this.cb.prepared?.(guess.address, share, guess.command);
      const args = startArgs(this.spec);
      const ahead = this.startAhead(shell, args, signal);
      const address = await withDeadline(
        deadlines.checkMs,
        signal,
        () =>
          new BootstrapError(
            'boot_check_failed',
            `boot checks took longer than ${secs(deadlines.checkMs)}`,
          ),
        (s) => this.probeAndPrepare(shell, s),
      );
      this.cb.prepared?.(address, share);
      const { bootstrapScript } = this.spec;
      if (bootstrapScript) {
        // Its own budget: a driver install takes longer than the checks before it.
        await withDeadline(
          deadlines.checkMs,
          signal,
          () =>
            new BootstrapError(
              'boot_check_failed',
              `bootstrap_script took longer than ${secs(deadlines.checkMs)}`,
            ),
          (s) =>
            runBootstrapScript({
              shell,
              layout: this.spec.layout,
              script: bootstrapScript,
              nonce: this.nonce,
              signal: s,
              log: (stream, line) => this.cb.log(stream, line),
            }),
        );
      }
      this.stage('agent_starting');
      const started = await withDeadline(
        deadlines.startMs,
        signal,
        () =>
          new BootstrapError(
            'start_failed',
            `the agent did not start within ${secs(deadlines.startMs)}`,
          ),
        (s) =>
          startAgent({
            shell,
            address,
            holder: this.spec.layout.holder === true,
            args,
            ahead,
            signal: s,
            log: (stream, line) => this.cb.log(stream, line),
          }),
      );
      this.stage('waiting_for_agent_join');
      client = (await attachTo(shell, address, started.socket)).client;
      const hello = await withDeadline(
        deadlines.joinMs,
        signal,
        () =>
          new BootstrapError(
            'join_timeout',
            `no hello from the agent within ${secs(deadlines.joinMs)}`,
          ),
        () => client!.request('hello', {}, 0),
      );
      this.cb.log('info', `agent ${hello.agentId} v${hello.version} joined (pid ${hello.pid})`);
      if (hello.hostKey !== this.spec.hostKey)
        throw new BootstrapError(
          'start_failed',
          `the agent advertises host key ${hello.hostKey ?? 'none'}, not ${this.spec.hostKey}: an agent launched with another declaration holds this node folder`,
        );
      const failed = unmet((this.spec.constraints ?? []).map(parseConstraint), hello.capabilities);
      if (failed.length > 0)
        throw new BootstrapError(
          'boot_check_failed',
          `the node does not meet the job's constraints: ${unmetText(failed)}`,
        );
      this.cb.joined(hello, hello.socket ? { ...address, socket: hello.socket } : address);
      await withDeadline(
        deadlines.joinMs,
        signal,
        () => new BootstrapError('join_timeout', 'the join was not recorded in time'),
        () => this.convergence,
      );
      this.stage('converged');
    } catch (err) {
      if (err instanceof BootstrapError) throw err;
      throw new BootstrapError('stream_error', (err as Error).message);
    } finally {
      client?.close('bootstrap finished');
      await shell.close();
    }
    this.stage('closed');
  }

  private async probeAndPrepare(shell: NodeShell, signal: AbortSignal): Promise<AgentAddress> {
    const { layout } = this.spec;
    const log = (stream: 'stdout' | 'stderr', line: string) => this.cb.log(stream, line);
    // Three questions at once, one round trip: what the machine is, which Node runs there,
    // and whether the cached agent is this bundle (each its own channel on the connection).
    const candidates = runtimeCandidates(layout);
    const found = firstWorking(shell, candidates, this.nonce, signal);
    const agent = checkCachedAgent({
      shell,
      layout,
      bundle: this.spec.agentBundle,
      nonce: this.nonce,
      log: (line) => this.cb.log('info', line),
      signal,
    });
    found.catch(() => {}); // awaited below, unless the probe fails first
    agent.catch(() => {});
    // Prove the machine is touchable, and record what it is. Everything the node prints is
    // logged (a .bashrc's words included), except our own marker line.
    const marker = `TENDER-PROBE-${this.nonce}`;
    const probe = await execCapture(
      shell,
      `echo "${marker} $(uname -sm)"; (nvidia-smi -L 2>/dev/null || echo "no NVIDIA GPU visible")`,
      { signal, onLine: (stream, line) => !line.startsWith(marker) && log(stream, line) },
    );
    const probed = new RegExp(`${marker} (\\S+) (\\S+)`).exec(probe.stdout);
    if (!probed) {
      throw new BootstrapError(
        'boot_check_failed',
        `the probe command failed (exit ${probe.code}): ${outputTail(probe.stderr)}`,
      );
    }
    this.cb.log('info', `machine: ${probed[1]} ${probed[2]}`);
    this.stage('stdout_streaming');
    this.stage('boot_checking');
    const runtime = await this.findRuntime(shell, probed[2]!, candidates, await found, signal);
    const bundleWord = await ensureCachedAgent(
      {
        shell,
        layout,
        bundle: this.spec.agentBundle,
        runtime,
        nonce: this.nonce,
        log: (line) => this.cb.log('info', line),
        signal,
      },
      await agent,
    );
    for (const cmd of this.spec.verify) {
      this.cb.log('info', `verify: ${cmd}`);
      const r = await execCapture(
        shell,
        `${PRIVATE_UMASK} && mkdir -p ${layout.dirWord} && cd ${layout.dirWord} && { ${cmd}\n}`,
        {
          signal,
          onLine: log,
        },
      );
      if (r.code !== 0) {
        throw new BootstrapError(
          'boot_check_failed',
          `verify command \`${cmd}\` exited ${r.code ?? r.signal}`,
        );
      }
    }
    return { runtime, bundleWord, dirWord: layout.dirWord };
  }

  /** The first candidate that runs Node >= 18: the hints, then `node` / `nodejs` on PATH.
   *  With none, the runtime Tender installed before, once its sha256 is checked (a cached
   *  binary that does not match is installed again, never run), else a fresh install. */
  private async findRuntime(
    shell: NodeShell,
    unameM: string,
    candidates: string[],
    found: FoundRuntime | null,
    signal: AbortSignal,
  ): Promise<string> {
    const pinned = this.spec.runtimeFor(unameM);
    if (found) return this.useRuntime(found);
    if (!pinned) {
      throw new BootstrapError(
        'boot_check_failed',
        `no Node.js ${MIN_NODE_MAJOR} or newer on the node (tried ${candidates.join(', ')}), and ` +
          `Tender has no runtime to install for ${unameM}: install Node ${MIN_NODE_MAJOR}+ on the image`,
      );
    }
    const installedWord = `${this.spec.layout.cacheWord}/runtime/node-${pinned.version}-${pinned.gzSha256.slice(0, 12)}/bin/node`;
    const marker = `TENDER-RUNTIME-SHA-${this.nonce}`;
    const check = await execCapture(shell, cachedFileScript(installedWord, marker), { signal });
    const problem = cachedFileProblem(
      `Node ${pinned.version} runtime`,
      parseCachedFile(check.stdout, marker),
      pinned.binarySha256(),
    );
    if (problem !== null) {
      this.cb.log('info', problem);
      await this.installRuntime(shell, pinned, installedWord, signal);
    }
    const installed = await firstWorking(shell, [installedWord], this.nonce, signal);
    if (!installed)
      throw new BootstrapError(
        'boot_check_failed',
        `the installed runtime at ${installedWord} does not run`,
      );
    return this.useRuntime(installed);
  }

  /** Logs the runtime found, and returns its command. */
  private useRuntime(found: FoundRuntime): string {
    this.cb.log('info', `runtime: Node ${found.version} (${found.runtime})`);
    return found.runtime;
  }

  /** Pushes the gzipped runtime once; it stays cached on the node by hash across leases. */
  private async installRuntime(
    shell: NodeShell,
    rt: NodeRuntime,
    nodeWord: string,
    signal: AbortSignal,
  ): Promise<void> {
    const gz = rt.gz();
    this.cb.log(
      'info',
      `no Node ${MIN_NODE_MAJOR}+ here: installing Node ${rt.version} (${rt.arch}, ${(gz.length / 1e6).toFixed(0)} MB)`,
    );
    const dir = nodeWord.replace(/\/bin\/node$/, '');
    const tmp = `${dir}/bin/node.tmp.$$`;
    const r = await execCapture(
      shell,
      `${PRIVATE_UMASK} && mkdir -p ${dir}/bin && gzip -dc > ${tmp} && chmod 700 ${tmp} && mv -f ${tmp} ${nodeWord}`,
      { signal, stdin: gz },
    );
    if (r.code !== 0)
      throw new BootstrapError(
        'boot_check_failed',
        `installing Node ${rt.version} failed: ${outputTail(r.stderr)}`,
      );
  }

  /** The agent started while the checks answer, where nothing must run before it
   *  (speculative-start.ts); null where it is not tried. */
  private startAhead(
    shell: NodeShell,
    args: string,
    signal: AbortSignal,
  ): Promise<StartedAhead | null> | null {
    const { layout, verify, bootstrapScript, agentBundle } = this.spec;
    if (layout.holder || bootstrapScript || verify.length > 0) return null;
    return startAhead({ shell, layout, bundle: agentBundle, args, nonce: this.nonce, signal });
  }

  private stage(stage: BootstrapStage): void {
    this.cb.observed(stage);
  }
}

function secs(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}
