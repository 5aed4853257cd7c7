// The user's own OpenSSH client, as a user whose home is a temporary folder. ssh reads
// ~/.ssh/config from the passwd entry's home, not $HOME (and `-F` would skip what we test):
// each command runs in a private mount namespace where a temp folder is bound over /root,
// so `ssh <alias>` reads that folder's .ssh/config and nothing of the machine's own.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from './cli';

export interface OwnResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export class OwnSshUser {
  readonly home = mkdtempSync(join(tmpdir(), 'tender-ownssh-'));

  constructor(private readonly tenderHome: string) {}

  /** Runs `cmd args…` with /root (the user's home) being this temp folder. */
  run(
    cmd: string,
    args: string[],
    env: Record<string, string> = {},
    timeoutMs = 30_000,
  ): Promise<OwnResult> {
    return new Promise((resolve) => {
      const child = spawn(
        'unshare',
        [
          '-m',
          '--propagation',
          'private',
          'sh',
          '-c',
          'mount --bind "$0" /root && exec "$@"',
          this.home,
          cmd,
          ...args,
        ],
        {
          env: {
            ...process.env,
            HOME: '/root',
            TENDER_HOME: this.tenderHome,
            NO_COLOR: '1',
            ...env,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  /** `tender <args>` as this user. */
  tender(args: string[], env: Record<string, string> = {}): Promise<OwnResult> {
    return this.run(process.execPath, [CLI, ...args], env);
  }

  /** `ssh -o BatchMode=yes <args>`: never a prompt, host keys checked as configured. */
  ssh(args: string[]): Promise<OwnResult> {
    return this.run('ssh', ['-o', 'BatchMode=yes', ...args]);
  }

  cleanup(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}
