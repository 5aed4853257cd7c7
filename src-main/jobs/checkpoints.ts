import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { shq } from '../transport/exec-helpers';
import type { NodeShell } from '../transport/node-shell';
import type { AgentAddress } from '../nodes/node-layout';
import { pullOutputs } from './outputs/pull';

// A job's checkpoints (`[job] checkpoints = "ckpt/"`): pulled from the node's workspace
// while the job runs and at its end, into runs/<run>/<node>/checkpoints/ (atomically: the
// last complete pull is always there), and pushed into a recovered attempt's workspace
// before it runs.

/** Where a node's checkpoints land, beside its outputs. */
export function checkpointsDir(outputsDir: string): string {
  return join(dirname(outputsDir), 'checkpoints');
}

/** Pulls the checkpoint folder; returns the number of files now held. */
export async function pullCheckpoints(
  shell: NodeShell,
  address: AgentAddress,
  path: string,
  outputsDir: string,
): Promise<number> {
  const pulled = await pullOutputs(shell, address, [path], checkpointsDir(outputsDir), {
    incremental: true,
  });
  return pulled.files.filter((f) => !f.path.startsWith('_output/')).length;
}

/** Puts the last pulled checkpoints into the node's workspace at `path` (a recovered
 *  attempt resumes from them); false when there are none. Streams a tar, never buffers. */
export async function restoreCheckpoints(
  shell: NodeShell,
  address: AgentAddress,
  path: string,
  outputsDir: string,
): Promise<boolean> {
  const src = join(checkpointsDir(outputsDir), path);
  if (!existsSync(src)) return false;
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
  return true;
}
