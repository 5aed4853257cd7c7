// `start --dir D`: one daemon per D. Starts it detached (its own session, stdio to
// D/agent.log) unless one answers already, then waits for its hello. Two concurrent
// starts both spawn, the lock lets one daemon live, and both report that one's pid.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type DaemonOptions } from '../daemon/daemon';
import { commandError, printResult } from '../output';
import { encodeHostDeclaration, encodeHostSetupOptions } from '../wire/host-declaration';
import { nodePaths } from '../wire/paths';
import type { StartOutput } from '../wire/protocol';
import { hello } from './socket-client';

const START_TIMEOUT_MS = 15_000;
/** The daemon answers ~0.1 s after its spawn (a Node start): look often, it is one connect. */
const POLL_MS = 10;
/** hello waits for the GPU probe, which may take seconds on a cold driver. */
const HELLO_TIMEOUT_MS = 15_000;
const LOG_TAIL_BYTES = 2_000;

/** `holder`: the daemon is started by what holds the node (a Slurm allocation's batch
 *  script waits for `D/holder.cmd` and runs it as the allocation's own process, so the
 *  daemon lives as long as the allocation — a process started by a job step would end with
 *  the step). This command writes that file and waits for the daemon's hello. */
export async function runStart(options: DaemonOptions, holder = false): Promise<number> {
  const paths = nodePaths(options.dir);
  const running = await hello(paths.socket, HELLO_TIMEOUT_MS);
  if (running) return report({ pid: running.pid, alreadyRunning: true, socket: paths.socket });

  mkdirSync(paths.dir, { recursive: true });
  const args = [resolve(process.argv[1] as string), 'daemon', '--dir', paths.dir];
  if (options.agentId) args.push('--agent-id', options.agentId);
  if (options.hostDeclaration)
    args.push('--host-decl', encodeHostDeclaration(options.hostDeclaration));
  if (options.hostSetup) args.push('--host-setup', encodeHostSetupOptions(options.hostSetup));
  if (holder) return startInHolder(paths, [process.execPath, ...args]);
  const logFd = openSync(paths.agentLog, 'a');
  const child = spawn(process.execPath, args, {
    detached: true, // setsid: survives the SSH session that ran `start`
    stdio: ['ignore', logFd, logFd],
    cwd: paths.dir,
  });
  closeSync(logFd);
  child.unref();
  let childExited = false;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  void exited.then(() => (childExited = true));

  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const answer = await hello(paths.socket, Math.max(1, deadline - Date.now()));
    if (answer && answer.pid === child.pid)
      return report({ pid: answer.pid, alreadyRunning: false, socket: paths.socket });
    if (answer) {
      // Ours lost the race: return once it has exited, so one daemon is left, not two.
      child.ref();
      await Promise.race([
        exited,
        new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()))),
      ]);
      return report({ pid: answer.pid, alreadyRunning: true, socket: paths.socket });
    }
    // Our daemon lost the lock race (it exits 0) or failed; the winner may still be starting.
    if (childExited && lockHolderIsGone(paths.lock)) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  await printResult(
    commandError(
      'start_failed',
      `no tender-agent answered on ${paths.socket} within ${START_TIMEOUT_MS / 1000} s; the end of ${paths.agentLog}:\n${logTail(paths.agentLog)}`,
      paths.agentLog,
    ),
  );
  return 1;
}

/** Hands the daemon's command line to the holder, then waits for the daemon it starts. */
async function startInHolder(paths: ReturnType<typeof nodePaths>, argv: string[]): Promise<number> {
  const line = `exec ${argv.map(shellWord).join(' ')} >> ${shellWord(paths.agentLog)} 2>&1\n`;
  const file = join(paths.dir, HOLDER_FILE);
  writeFileSync(`${file}.tmp`, line, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const answer = await hello(paths.socket, Math.max(1, deadline - Date.now()));
    if (answer) return report({ pid: answer.pid, alreadyRunning: false, socket: paths.socket });
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  await printResult(
    commandError(
      'start_failed',
      `the node's holder did not start the agent within ${START_TIMEOUT_MS / 1000} s (is the allocation's batch script waiting for ${file}?); the end of ${paths.agentLog}:\n${logTail(paths.agentLog)}`,
      paths.agentLog,
    ),
  );
  return 1;
}

/** What a holder waits for in D: the command that starts the daemon. */
export const HOLDER_FILE = 'holder.cmd';

function shellWord(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

async function report(out: StartOutput): Promise<number> {
  await printResult(out);
  return 0;
}

function lockHolderIsGone(lockPath: string): boolean {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

function logTail(path: string): string {
  try {
    const text = readFileSync(path, 'utf8');
    return text.slice(-LOG_TAIL_BYTES);
  } catch {
    return '(no log)';
  }
}
