// The built agent bundle (out/agent/tender-agent.cjs) and small ways for tests to drive
// it as real processes: one-shot commands, and an `attach` client speaking NDJSON.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createMarkerSkipper } from '../../src-agent/wire/marker';
import { socketPath } from '../../src-agent/wire/paths';
import type {
  AgentEvent,
  AgentLogRecord,
  OpName,
  Ops,
  Response,
} from '../../src-agent/wire/protocol';

const BUNDLE = resolve(import.meta.dirname, '../../out/agent/tender-agent.cjs');

/** Absolute path of the built bundle; throws when it has not been built. */
export function agentBundlePath(): string {
  if (!existsSync(BUNDLE))
    throw new Error(`${BUNDLE} is missing: run \`npm run build:agent\` first`);
  return BUNDLE;
}

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs `node bundle …args` to completion, feeding `stdin` (a Buffer, or nothing), with
 *  `env` added to this process's environment. */
export function runAgent(
  args: string[],
  stdin?: Buffer,
  env: Record<string, string> = {},
): Promise<RunResult> {
  return runProcess(process.execPath, [agentBundlePath(), ...args], stdin, env);
}

export function runProcess(
  cmd: string,
  args: string[],
  stdin?: Buffer,
  env: Record<string, string> = {},
): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout: Buffer.concat(out), stderr: err }));
    child.stdin.on('error', () => {}); // the command may exit before reading everything
    child.stdin.end(stdin);
  });
}

/** The JSON a one-shot command printed after its marker. */
export function markedJson<T>(stdout: Buffer): T {
  const text = stdout.toString();
  const at = text.indexOf('TENDER-STREAM/1\n');
  if (at < 0) throw new Error(`no marker in output: ${text}`);
  return JSON.parse(text.slice(at + 'TENDER-STREAM/1\n'.length)) as T;
}

/** Kills everything an agent in `dir` started (every group in pids/, and the daemon) and
 *  resolves once they are dead, so the folder can be removed without a late write. */
export async function killAgent(dir: string): Promise<void> {
  // The agent may be exiting (and removing these) while we look: a missing file is fine.
  const read = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch {
      return fallback;
    }
  };
  const targets = read(() => readdirSync(join(dir, 'pids')).map(Number), [] as number[]);
  const lockPid = read(
    () => Number.parseInt(readFileSync(join(dir, 'agent.lock'), 'utf8'), 10),
    NaN,
  );
  if (Number.isInteger(lockPid)) targets.push(lockPid);
  for (const pid of targets) tryKill(-pid);
  for (const pid of targets) tryKill(pid);
  for (const pid of targets) {
    for (let i = 0; i < 250 && isRunning(pid); i++) await new Promise((r) => setTimeout(r, 20));
  }
  // A killed daemon leaves its socket; one in tmpdir (long folder paths) is outside `dir`.
  rmSync(socketPath(dir), { force: true });
}

function tryKill(target: number): void {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Alive and not a zombie (an orphan's zombie waits for init, but writes nothing). */
/** Alive and not a zombie (PID 1 here reaps orphans only every few seconds). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** A client over `attach --dir D`: requests by id, and every event it was sent. */
export class AttachClient {
  readonly events: AgentEvent[] = [];
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<number | null>;
  private nextId = 1;
  private readonly pending = new Map<number, (res: Response) => void>();
  private readonly watchers = new Set<() => void>();
  stderr = '';

  constructor(dir: string) {
    this.child = spawn(process.execPath, [agentBundlePath(), 'attach', '--dir', dir]);
    this.child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.child.stdin.on('error', () => {});
    let partial = '';
    const lines = this.child.stdout.pipe(createMarkerSkipper());
    lines.on('error', () => {});
    lines.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) this.onMessage(JSON.parse(line) as Response | AgentEvent);
    });
    this.exited = new Promise((r) => this.child.on('close', (code) => r(code)));
  }

  async request<K extends OpName>(op: K, params?: Ops[K]['params']): Promise<Ops[K]['result']> {
    const res = await this.send(op, params);
    if (!res.ok) throw Object.assign(new Error(res.error.message), { code: res.error.code });
    return res.result as Ops[K]['result'];
  }

  send(op: string, params?: object): Promise<Response> {
    const id = this.nextId++;
    return new Promise((resolvePromise) => {
      this.pending.set(id, resolvePromise);
      this.child.stdin.write(`${JSON.stringify({ id, op, ...params })}\n`);
    });
  }

  /** Every log record received, in arrival order. */
  records(): AgentLogRecord[] {
    return this.events.flatMap((e) => (e.ev === 'log' ? e.records : []));
  }

  /** Resolves once `predicate` holds over what has been received. */
  waitFor(predicate: (c: AttachClient) => boolean): Promise<void> {
    if (predicate(this)) return Promise.resolve();
    return new Promise((resolvePromise) => {
      const check = () => {
        if (!predicate(this)) return;
        this.watchers.delete(check);
        resolvePromise();
      };
      this.watchers.add(check);
    });
  }

  /** Ends stdin: attach then exits once the daemon closes its side. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }

  private onMessage(msg: Response | AgentEvent): void {
    if ('ev' in msg) this.events.push(msg);
    else if (typeof msg.id === 'number') {
      this.pending.get(msg.id)?.(msg);
      this.pending.delete(msg.id);
    }
    for (const w of [...this.watchers]) w();
  }
}

/** Some process of the group is alive (zombies count: signalled, not yet reaped). */
export function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
