// One phase's process: `bash -c <command>` (or `sh -c`) in its own process group, output
// split into log lines, exit recorded once the output is in the log.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LogSource } from '../../wire/protocol';
import { LineSplitter } from './line-splitter';
import type { LogStore } from '../logs/log-store';
import type { Redactor } from '../logs/redact';
import { StreamRedactor } from '../logs/stream-redact';

/** After the leader exits, how long its pipes may stay open before the exit is recorded
 *  (a background child that inherited them keeps them open for as long as it lives). */
const STDIO_SETTLE_MS = 500;

export interface PhaseLaunch {
  command: string;
  env: Record<string, string>;
  cwd: string;
  redact: Redactor;
  /** The job's run_setup, run first (run phase only; run-setup.ts). */
  runSetup?: string;
}

export interface PhaseExit {
  code: number | null;
  signal: string | null;
}

/** Spawns the phase (or a host-setup entry, or run_setup: `src` is what its lines are
 *  logged as); resolves with its pid once it runs, rejects when it cannot start. */
export async function spawnPhase(
  src: LogSource,
  launch: PhaseLaunch,
  log: LogStore,
  onExit: (exit: PhaseExit) => void,
): Promise<number> {
  const child = spawn(findShell(), ['-c', launch.command], {
    cwd: launch.cwd,
    env: launch.env,
    detached: true, // its own process group: cancel signals `-pgid` and reaches every child
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) {
    const err = await new Promise<Error>((resolve) => child.once('error', resolve));
    throw new Error(`could not start ${src}: ${err.message}`);
  }
  child.on('error', () => {}); // after a successful spawn only kill() can fail: not fatal
  const settled = capture(src, child, launch.redact, log);
  child.once('exit', (code, signal) => {
    const timer = setTimeout(() => settled.flush(), STDIO_SETTLE_MS);
    void settled.closed.then(() => clearTimeout(timer));
    void settled.flushed.then(() => onExit({ code, signal }));
  });
  return child.pid;
}

/** Pipes stdout and stderr into the log, redacted before they are split into lines (so no
 *  line cut splits a secret); `flushed` resolves once both ended or `flush()`. */
function capture(src: LogSource, child: ChildProcess, redact: Redactor, log: LogStore) {
  const splitters = (['stdout', 'stderr'] as const).map((stream) => {
    const redactor = new StreamRedactor(redact);
    const lines = new LineSplitter((line) => log.append(src, stream, line));
    const splitter = {
      push: (chunk: Buffer) => lines.push(redactor.push(chunk)),
      flush: () => {
        lines.push(redactor.flush());
        lines.flush();
      },
    };
    const source = child[stream];
    source?.on('data', (chunk: Buffer) => splitter.push(chunk));
    const ended = new Promise<void>((resolve) => {
      if (!source) return resolve();
      source.once('close', resolve);
    });
    return { splitter, ended };
  });
  let flush!: () => void;
  const flushed = new Promise<void>((resolve) => (flush = resolve)).then(() => {
    for (const s of splitters) s.splitter.flush();
  });
  const closed = Promise.all(splitters.map((s) => s.ended)).then(() => flush());
  return { flushed, closed, flush: () => flush() };
}

function findShell(): string {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
    if (dir && existsSync(join(dir, 'bash'))) return join(dir, 'bash');
  }
  return existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
}
