import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { CommandError, RecvWorkspaceOutput } from '../../../src-agent/protocol';
import { createTarWriter } from '../../../src-agent/tar';
import { TenderError } from '../../core/tender-error';
import { agentCommand, type AgentAddress } from '../../nodes/node-layout';
import { parseAfterMarker } from '../../transport/exec-helpers';
import type { NodeShell } from '../../transport/node-shell';

export interface PushFile {
  path: string;
  size: number;
  mode: number;
  mtimeMs: number;
}

export interface PushPlan {
  root: string;
  dirs: string[];
  files: PushFile[];
}

export interface PushProgress {
  files: number;
  bytes: number;
  totalFiles: number;
  totalBytes: number;
}

/** Sends the workspace as one tar stream into `recv-workspace`, which swaps it in
 *  atomically: the node never runs against a half-pushed workspace. */
export async function pushWorkspace(
  shell: NodeShell,
  address: AgentAddress,
  plan: PushPlan,
  onProgress: (p: PushProgress) => void = () => {},
): Promise<RecvWorkspaceOutput> {
  const ch = shell.exec(agentCommand(address, 'recv-workspace'));
  const out: Buffer[] = [];
  let stderr = '';
  ch.stdout.on('data', (c: Buffer) => out.push(c));
  ch.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));

  const totalBytes = plan.files.reduce((n, f) => n + f.size, 0);
  const progress: PushProgress = { files: 0, bytes: 0, totalFiles: plan.files.length, totalBytes };
  const tar = createTarWriter();
  const writing = (async () => {
    for (const d of plan.dirs) await tar.addDirectory(d, { mode: 0o755 });
    for (const f of plan.files) {
      await tar.addFile(
        f.path,
        { size: f.size, mode: f.mode & 0o7777, mtime: new Date(f.mtimeMs) },
        createReadStream(join(plan.root, f.path)),
      );
      progress.files++;
      progress.bytes += f.size;
      onProgress(progress);
    }
    await tar.finish();
  })();
  const sending = pipeline(tar, ch.stdin).catch(() => {
    /* the remote side closed early; its exit status and output say why */
  });
  const [wrote] = await Promise.allSettled([writing, sending]);
  if (wrote.status === 'rejected') {
    ch.close();
    await ch.exit;
    throw new TenderError(
      'bad_input',
      `reading the workspace failed: ${(wrote.reason as Error).message}`,
      'A file changed or vanished while it was being pushed; run again.',
    );
  }
  const status = await ch.exit;
  const stdout = Buffer.concat(out).toString('utf8');
  const result = parseAfterMarker<RecvWorkspaceOutput | CommandError>(stdout);
  if (result && 'error' in result) {
    const where = result.error.path ? ` (${result.error.path})` : '';
    throw new TenderError(
      'infrastructure',
      `the node refused the workspace: ${result.error.message}${where}`,
    );
  }
  if (status.code !== 0 || !result) {
    throw new TenderError(
      'infrastructure',
      `workspace push failed (exit ${status.code ?? status.signal}): ${stderr.trim().split('\n').pop() ?? ''}`,
    );
  }
  return result;
}
