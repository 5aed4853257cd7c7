import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { connectTcp, listenTcp } from './local-tcp';
import type { ExecChannel, ExitStatus, NodeShell } from './node-shell';

/** Environment a local node starts from: what a fresh login on a remote machine would have,
 *  and nothing of this process's secrets (API keys, tokens). Job env arrives over the link. */
const PASSED_ENV = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'SHELL',
  'TERM',
];

export function localNodeEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const k of PASSED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k];
  // Without SHLVL, bash given a socket for stdin (Node's pipes are socketpairs) decides it
  // was started by sshd and sources ~/.bashrc: ~100 ms per command, and whatever it prints.
  return { ...env, SHLVL: '1', ...extra };
}

/** NodeShell over local child processes; the "node" is a folder on this machine. It never
 *  creates that folder: the folder is the lease (the local provider's createLease makes it,
 *  its destroy removes it), so a shell opened after a destroy — a link retry, a look for a
 *  teardown record — must fail, not bring back a folder that reads as an orphan. */
export class LocalShell implements NodeShell {
  readonly description: string;
  private readonly children = new Set<ReturnType<typeof spawn>>();

  constructor(
    private readonly dir: string,
    private readonly env: NodeJS.ProcessEnv = localNodeEnv(),
  ) {
    this.description = `local:${dir}`;
  }

  exec(command: string): ExecChannel {
    const child = spawn('bash', ['-c', command], {
      cwd: this.dir,
      env: this.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.children.add(child);
    const exit = new Promise<ExitStatus>((resolve) => {
      child.on('error', () => resolve({ code: 127, signal: null }));
      child.on('close', (code, signal) => {
        this.children.delete(child);
        resolve({ code, signal });
      });
    });
    child.stdin.on('error', () => {}); // EPIPE when the command exits before reading all input
    return {
      stdin: child.stdin,
      stdout: child.stdout,
      stderr: child.stderr,
      exit,
      close: () => {
        child.stdin.end();
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      },
    };
  }

  /** The node is this machine: a plain connection to `host:port` here. */
  openTcp(host: string, port: number): Promise<Duplex> {
    return connectTcp(host, port);
  }

  /** The node's 127.0.0.1 is this machine's: a server on it. */
  listenRemote(port: number, onConnection: (stream: Duplex) => void): Promise<() => Promise<void>> {
    return listenTcp(port, onConnection);
  }

  async close(): Promise<void> {
    for (const c of this.children) if (c.exitCode === null) c.kill('SIGTERM');
    this.children.clear();
  }
}
