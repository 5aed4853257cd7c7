import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { shq } from '../../transport/exec-helpers';
import type { NodeShell } from '../../transport/node-shell';
import type { AgentAddress } from '../../nodes/node-layout';
import { pullOutputs } from '../outputs/pull';
import { formatBytes } from '../workspace/human-units';
import { CheckpointGenerations, type Generation } from './generations';

// A job's checkpoints (`[job] checkpoints = "ckpt/"`): pulled from the node's workspace
// while the job runs and at its end, each pull a new generation beside the last
// (generations.ts), and pushed into a recovered attempt's workspace before it runs.

/** Where a node's checkpoint generations live, beside its outputs. */
export function checkpointsDir(outputsDir: string): string {
  return join(dirname(outputsDir), 'checkpoints');
}

export function checkpointStore(outputsDir: string): CheckpointGenerations {
  return new CheckpointGenerations(checkpointsDir(outputsDir));
}

/** Pulls the checkpoint folder into a new generation; returns the line the job's log
 *  shows. A failed pull throws and leaves the generations as they were. */
export async function pullCheckpoints(
  shell: NodeShell,
  address: AgentAddress,
  path: string,
  store: CheckpointGenerations,
  facts: { attempt: number; now(): number },
): Promise<string> {
  const gen = store.begin();
  let files: { path: string; size: number }[];
  try {
    const pulled = await pullOutputs(shell, address, [path], gen.dir, {
      incremental: true,
      ...(gen.base ? { base: gen.base } : {}),
    });
    files = pulled.files.filter((f) => !f.path.startsWith('_output/'));
  } catch (err) {
    store.abandon(gen.n);
    throw err;
  }
  const bytes = files.reduce((n, f) => n + f.size, 0);
  const outcome = store.commit(gen.n, {
    attempt: facts.attempt,
    at: facts.now(),
    files: files.length,
    bytes,
  });
  const pulledLine = `checkpoints pulled: ${files.length} file(s) from ${path}`;
  if (outcome.kind === 'kept') return pulledLine;
  return `${pulledLine}; ${generationWords(outcome.restoreSource)} stays the one to restore`;
}

/** Puts the newest complete generation into the node's workspace at `path` (a recovered
 *  attempt resumes from it); returns the line the job's log shows. Streams a tar, never
 *  buffers. */
export async function restoreCheckpoints(
  shell: NodeShell,
  address: AgentAddress,
  path: string,
  store: CheckpointGenerations,
): Promise<string> {
  const source = store.restoreSource();
  // A run pulled by an earlier Tender kept one folder, not generations.
  const src = source ? join(source.dir, path) : join(store.root, path);
  if (!existsSync(src)) return `no checkpoints to restore into ${path}`;
  const target = `${address.dirWord}/workspace/${shq(path.replace(/\/+$/, ''))}`;
  const ch = shell.exec(`mkdir -p ${target} && tar -x -C ${target}`);
  let stderr = '';
  ch.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  ch.stdout.resume();
  const tar = spawn('tar', ['-c', '-C', src, '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  tar.stdout.pipe(ch.stdin);
  const local = new Promise<number>((r) => tar.on('close', (code) => r(code ?? 1)));
  const [code, st] = await Promise.all([local, ch.exit]);
  if (code !== 0) throw new Error(`tar of ${src} exited ${code}`);
  if (st.code !== 0) throw new Error(`restoring checkpoints on the node failed: ${stderr.trim()}`);
  const from = source ? generationWords(source) : "an earlier Tender's pull";
  return `checkpoints restored into ${path} from ${from}`;
}

/** "attempt 1's pull at 12:03:10: 3 files, 12 MB" */
export function generationWords(g: Generation): string {
  const at = new Date(g.at).toTimeString().slice(0, 8);
  const files = `${g.files} file${g.files === 1 ? '' : 's'}`;
  return `attempt ${g.attempt + 1}'s pull at ${at}: ${files}, ${formatBytes(g.bytes)}`;
}
