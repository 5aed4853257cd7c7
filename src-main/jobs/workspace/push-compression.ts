// Whether a push is compressed: to the agent this app ships, when a sample of the files says
// it saves bytes (compress-policy.ts), and where the link this endpoint's pushes measured is
// slower than compression saves (compression-plan.ts; unmeasured: compressed, and measured
// as it goes). The round trip does not decide: a short one is not a fast link.
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { loadAgentBundle } from '../../nodes/agent-bundle';
import type { AgentAddress } from '../../nodes/node-layout';
import type { NodeShell } from '../../transport/node-shell';
import {
  estimateSaving,
  isAlreadyCompressed,
  SAMPLE_BYTES,
  type SavingEstimate,
  samplePicks,
  sampleRatio,
} from './compress-policy';
import { type CompressionPlan, type CompressionSetting, planCompression } from './compression-plan';
import type { LinkMeasure } from './link-meter';
import type { LinkRates } from './link-rates';
import { READ_NO_FOLLOW } from './no-follow';

export type { CompressionSetting } from './compression-plan';

/** What a push to one node knows of it before looking at the files. */
export interface PushLink {
  setting: CompressionSetting;
  isLocal: boolean;
  hasDecoder: boolean;
  /** What pushes to this endpoint measured lately (link-rates.ts). */
  link: LinkMeasure | undefined;
}

/**
 * The link to the node behind `shell`, as a push decides on it. A local node's pipe has no
 * link to spare bytes on. The app and its agent ship together: a node runs this app's agent
 * when its bundle carries this app's bundle hash in its name (as bootstrap names it); an
 * older agent (a run started by an older Tender) gets the plain tar it knows.
 */
export function pushLink(
  shell: NodeShell,
  address: AgentAddress,
  setting: CompressionSetting = 'auto',
  rates?: LinkRates,
): PushLink {
  const tag = ownBundleTag();
  return {
    setting,
    isLocal: shell.description.startsWith('local:'),
    hasDecoder: tag !== null && address.bundleWord.includes(tag),
    link: rates?.get(shell.description),
  };
}

/** Whether `link` may carry a compressed push at all (before the files are sampled). */
export function mayCompress(link: PushLink): boolean {
  return link.setting !== 'off' && !link.isLocal && link.hasDecoder;
}

/** The plan for pushing `files` (paths under `root`) over `link`. */
export function planPush(
  root: string,
  files: readonly { path: string; size: number }[],
  link: PushLink | undefined,
): CompressionPlan {
  if (!link) return { isEncoded: false, why: 'off' };
  const none: SavingEstimate = { totalBytes: 0, savedBytes: 0, triedBytes: 0 };
  const saving = mayCompress(link) ? pushSaving(root, files) : none;
  return planCompression({ ...link, saving });
}

let ownTag: string | null | undefined;

/** `tender-agent-<first 16 hex of sha256>.cjs` of the bundle this app pushes to nodes. */
function ownBundleTag(): string | null {
  if (ownTag === undefined) {
    try {
      ownTag = `tender-agent-${loadAgentBundle().sha256.slice(0, 16)}.cjs`;
    } catch {
      ownTag = null; // no bundle here: nothing to push, and nothing known to decode
    }
  }
  return ownTag;
}

/** What compressing the push of `files` (paths under `root`) would save, from their heads:
 *  at most 48 reads of 64 KiB, a few milliseconds. */
export function pushSaving(
  root: string,
  files: readonly { path: string; size: number }[],
): SavingEstimate {
  const sizes = files.map((f) => f.size);
  const ratios = new Map<number, number>();
  for (const i of samplePicks(sizes)) {
    const file = files[i]!;
    if (isAlreadyCompressed(file.path)) ratios.set(i, 1);
    else {
      const head = readHead(join(root, file.path));
      if (head) ratios.set(i, sampleRatio(head));
    }
  }
  return estimateSaving(sizes, ratios);
}

/** The first `SAMPLE_BYTES` of the file at `path`; undefined if it cannot be read (the
 *  push itself then says why). */
function readHead(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, READ_NO_FOLLOW);
  } catch {
    return undefined;
  }
  try {
    return readHeadOf(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The first `SAMPLE_BYTES` of the open file `fd` (read at offset 0: a stream reading it
 *  from its own offsets is not disturbed). */
export function readHeadOf(fd: number): Buffer {
  const buf = Buffer.allocUnsafe(SAMPLE_BYTES);
  let n = 0;
  while (n < SAMPLE_BYTES) {
    const got = readSync(fd, buf, n, SAMPLE_BYTES - n, n);
    if (got === 0) break;
    n += got;
  }
  return buf.subarray(0, n);
}
