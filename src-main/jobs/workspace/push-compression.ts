// Whether a push is compressed: only across a long link (not a LAN), only to the agent this
// app ships, and only when a sample of the files says it pays (compress-policy.ts).
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { loadAgentBundle } from '../../nodes/agent-bundle';
import type { AgentAddress } from '../../nodes/node-layout';
import type { NodeShell } from '../../transport/node-shell';
import {
  estimateSaving,
  isAlreadyCompressed,
  isWorthCompressing,
  SAMPLE_BYTES,
  samplePicks,
  sampleRatio,
} from './compress-policy';

/** `off`: never compress (to compare, or for a node that cannot take it); `on`: also
 *  across a LAN (tests over loopback sshd, where `auto` sends plain). */
export type CompressionSetting = 'auto' | 'on' | 'off';

/** An exec granted this fast (two round trips and sshd's fork) is a LAN's: under ~4 ms
 *  round trip. Across one, a gigabit link takes raw bytes faster than a core compresses
 *  them (compress-pace.ts `FAST_LINK_BYTES_PER_S`), and a compressed push would still pay
 *  for its decoding pass on the node: measured on an unshaped veth, 1.45× a plain push. */
export const LAN_EXEC_MS = 8;

/**
 * Whether pushes over `shell` to the agent at `address` may be compressed. A local node's
 * pipe has no link to spare bytes on, nor has a LAN (`LAN_EXEC_MS`), nor a connection over
 * which a push found the link faster than compression. And the app and its agent ship
 * together: a node runs this app's agent when its bundle carries this app's bundle hash in
 * its name (as bootstrap names it); an older agent (a run started by an older Tender) gets
 * the plain tar it knows.
 */
export function mayCompress(
  shell: NodeShell,
  address: AgentAddress,
  setting: CompressionSetting = 'auto',
): boolean {
  if (setting === 'off' || shell.description.startsWith('local:')) return false;
  if (setting === 'auto' && (fastLinks.has(shell) || isLan(shell))) return false;
  const tag = ownBundleTag();
  return tag !== null && address.bundleWord.includes(tag);
}

/** Whether an exec to the node has been granted within `LAN_EXEC_MS`. */
function isLan(shell: NodeShell): boolean {
  const ms = shell.execRoundTripMs?.();
  return ms !== undefined && ms < LAN_EXEC_MS;
}

/** Connections whose link a push found faster than compression (`PushEncoder.isLinkFast`):
 *  later pushes over them go plain, straight into the node's tar. */
const fastLinks = new WeakSet<NodeShell>();

/** Remembers that pushes over `shell` gain nothing from compression. */
export function rememberFastLink(shell: NodeShell): void {
  fastLinks.add(shell);
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

/** Whether compressing the push of `files` (paths under `root`) pays, from their heads:
 *  at most 48 reads of 64 KiB, a few milliseconds. */
export function isPushWorthCompressing(
  root: string,
  files: readonly { path: string; size: number }[],
): boolean {
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
  return isWorthCompressing(estimateSaving(sizes, ratios));
}

/** The first `SAMPLE_BYTES` of the file at `path`; undefined if it cannot be read (the
 *  push itself then says why). */
function readHead(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
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
