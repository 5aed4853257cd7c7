import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll } from 'vitest';

export const REPO = resolve(import.meta.dirname, '..', '..');
export const CLI = join(REPO, 'out', 'cli', 'tender.js');
export const EXAMPLES = join(REPO, 'resources', 'examples');

export function requireBuilt(): void {
  if (!existsSync(CLI)) throw new Error('the CLI is not built: run `npm run build` first');
}

/** A fresh TENDER_HOME path (not created: Tender creates it). */
export function tempHome(prefix = 'tender-e2e-'): {
  home: string;
  root: string;
  cleanup: () => void;
} {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return {
    home: join(root, 'home'),
    root,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment a user would have, minus anything that points Tender elsewhere. */
export function cliEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TENDER_HOME: home, NO_COLOR: '1', ...extra };
  delete env.TENDER_TEST_CRASH_AT;
  for (const [k, v] of Object.entries(extra)) env[k] = v;
  return env;
}

export function runCli(
  args: string[],
  opts: { home: string; env?: Record<string, string>; cwd?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: cliEnv(opts.home, opts.env),
      cwd: opts.cwd ?? REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

/** A CLI process to talk to: wait for text on its output, send signals, answer prompts. */
export class CliProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly exited: Promise<CliResult>;

  constructor(args: string[], opts: { home: string; env?: Record<string, string> }) {
    this.child = spawn(process.execPath, [CLI, ...args], {
      env: cliEnv(opts.home, opts.env),
      cwd: REPO,
    });
    this.child.stdout.on('data', (c: Buffer) => (this.stdout += c.toString()));
    this.child.stderr.on('data', (c: Buffer) => (this.stderr += c.toString()));
    this.exited = new Promise((r) =>
      this.child.on('close', (code, signal) =>
        r({ code, signal, stdout: this.stdout, stderr: this.stderr }),
      ),
    );
  }

  async waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this[stream])) {
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${pattern} on ${stream}:\n${this[stream].slice(-2000)}`,
        );
      if (this.child.exitCode !== null)
        throw new Error(
          `exited (${this.child.exitCode}) before ${pattern}:\n${this.stderr.slice(-2000)}`,
        );
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/** Kills anything still running from a test home (agents, jobs) so a failed test leaks nothing. */
export function killLeftovers(home: string): void {
  spawnSync('pkill', ['-KILL', '-f', home]);
}

/** Processes whose command line mentions `text` (e.g. a lease folder). */
export function processesMentioning(text: string): string[] {
  const r = spawnSync('pgrep', ['-af', text], { encoding: 'utf8' });
  return r.stdout.split('\n').filter((l) => l.trim() && !l.includes('pgrep'));
}

/** For an e2e file: checks the CLI is built, and hands out temp homes that are cleaned up
 *  (their leftover processes killed first) after each test. */
export function useTempHomes(): () => ReturnType<typeof tempHome> {
  const homes: ReturnType<typeof tempHome>[] = [];
  beforeAll(() => requireBuilt());
  afterEach(() => {
    for (const h of homes.splice(0)) {
      killLeftovers(h.home);
      h.cleanup();
    }
  });
  return () => {
    const h = tempHome();
    homes.push(h);
    return h;
  };
}
