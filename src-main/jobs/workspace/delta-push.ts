// The delta push: `.tender/delta.json` (base, target, deletions, the changed files' entries,
// the folders), then the changed files. The node checks the base and every file it
// receives against its entry, then applies the change in place behind a journal.
import { join } from 'node:path';
import { DELTA_ENTRY, type DeltaHeader } from '../../../src-agent/wire/protocol';
import { toManifest } from '../../../src-agent/wire/workspace-manifest';
import type { AgentAddress } from '../../nodes/node-layout';
import type { NodeShell } from '../../transport/node-shell';
import { type LocalManifest, localFile, type ManifestDiff } from './manifest';
import { addFile, type FullPushResult, type PushProgress } from './push';
import { planPush, type PushLink } from './push-compression';
import { closeOpened, readAhead } from './read-ahead';
import { LocalChangeError, type RecvVia, sendToRecv } from './recv-channel';

export async function pushDelta(
  shell: NodeShell,
  address: AgentAddress,
  root: string,
  local: LocalManifest,
  base: string,
  diff: ManifestDiff,
  opts: {
    onProgress?: (p: PushProgress) => void;
    now?: () => number;
    isInPlace?: boolean;
    via?: RecvVia;
    /** The link to the node (`pushLink`): the push is compressed where that pays. */
    link?: PushLink;
  },
): Promise<Omit<FullPushResult, 'manifest'>> {
  const changed = new Map(diff.changed.map((p) => [p, local.files.get(p)!]));
  const header: DeltaHeader = {
    version: 1,
    base,
    target: local.digest,
    deletions: diff.deletions,
    files: toManifest(changed, []).files,
    dirs: local.dirs,
  };
  const progress: PushProgress = {
    files: 0,
    bytes: 0,
    totalFiles: changed.size,
    totalBytes: [...changed.values()].reduce((n, e) => n + e.size, 0),
    stage: 'sending',
  };
  const compression = planPush(
    root,
    [...changed].map(([path, e]) => ({ path, size: e.size })),
    opts.link,
  );
  const isEncoded = compression.isEncoded;
  const answer = await sendToRecv(
    shell,
    address,
    async (tar, encoder) => {
      const body = Buffer.from(JSON.stringify(header));
      await tar.addFile(DELTA_ENTRY, { size: body.length, mode: 0o600 }, body);
      let arrived = 0;
      for await (const file of readAhead(root, diff.changed, opts.now)) {
        arrived++;
        const was = local.stats.get(file.path)!;
        const now = localFile(file.path, file.st);
        if (now.size !== was.size || now.mtimeMs !== was.mtimeMs || now.ino !== was.ino) {
          closeOpened(file);
          throw new LocalChangeError(`${join(root, file.path)} changed while it was being pushed`);
        }
        const sha256 = await addFile(tar, file, true, file.path, encoder);
        if (sha256 !== changed.get(file.path)!.sha256 || now.mode !== was.mode) {
          throw new LocalChangeError(`${join(root, file.path)} changed while it was being pushed`);
        }
        progress.files++;
        progress.bytes += now.size;
        opts.onProgress?.(progress);
      }
      if (arrived !== changed.size) {
        throw new LocalChangeError(`a file of ${root} vanished while the workspace was pushed`);
      }
    },
    { isInPlace: opts.isInPlace, via: opts.via, isEncoded },
  );
  return {
    output: answer.output,
    streamBytes: answer.streamBytes,
    tarBytes: answer.tarBytes,
    segments: answer.segments,
    compression,
    link: answer.link,
    filesSent: progress.files,
    bytesSent: progress.bytes,
  };
}
