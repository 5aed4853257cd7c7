// Whether a push is compressed at all, decided from what the link does, not from how quickly
// it answers: a 100 Mbit/s office uplink to a nearby region grants an exec in 2 ms, as a LAN
// does, and a plain push over it is 1.65× a compressed one. Once a push is compressed, the
// encoder still decides segment by segment (compress-pace.ts: how hard, or raw on a link
// faster than the CPU) and file by file (compress-policy.ts: formats compressed already and
// random bytes go as they are). What a compressed push costs beyond that is the node's
// decoding pass, which a plain push skips: on a link faster than compression saves, plain
// wins. Pure: the caller measures the link (link-meter.ts) and remembers it per endpoint
// (link-rates.ts).
import { FAST_LINK_BYTES_PER_S } from './compress-pace';
import { isWorthCompressing, type SavingEstimate } from './compress-policy';
import type { LinkMeasure } from './link-meter';

/** `off`: never compress (to compare, or for a node that cannot take it); `on`: compress
 *  whatever the link (tests over loopback sshd). */
export type CompressionSetting = 'auto' | 'on' | 'off';

/** What the app's CPU and the node's decoder get through, before anything is measured.
 *  Compression at the quality a push starts at (brotli q1, one core, 1 MiB segments of a
 *  4.9× CSV: ~300 MB/s), two at once; decoding is the node's pass over every byte of a
 *  compressed push (frames or stdin, segment heads, brotli's output): what a plain push
 *  saves. */
export interface CpuCost {
  compressBytesPerS: number;
  parallel: number;
  decodeBytesPerS: number;
}

/** Decoding measured on this project's 2-core bench machine, everything on one host (ssh on
 *  both ends, the agent, tar): a compressed push across an unshaped veth cost 1.2–1.45× a
 *  plain one, ~400 MB/s of decoding on top of the plain path. */
export const DEFAULT_CPU: CpuCost = {
  compressBytesPerS: 300e6,
  parallel: 2,
  decodeBytesPerS: 400e6,
};

/** A compressed push is chosen on a measured link only if it is estimated this much faster
 *  than a plain one: the estimate is rough, and a tie is not worth the node's CPU. */
export const MIN_GAIN = 0.05;

export interface PlanInput {
  setting: CompressionSetting;
  /** A local node: a pipe, no link to spare bytes on. */
  isLocal: boolean;
  /** The node runs this app's agent, which decodes a compressed push. */
  hasDecoder: boolean;
  /** What a sample of the files says compression saves (compress-policy.ts). */
  saving: SavingEstimate;
  /** What an earlier push to this endpoint measured of its link; undefined when none did. */
  link: LinkMeasure | undefined;
  cpu?: CpuCost;
}

export type PlanReason =
  | 'off'
  | 'local'
  | 'old_agent'
  | 'incompressible'
  | 'on'
  | 'unmeasured'
  | 'cpu_bound'
  | 'pays'
  | 'link_faster';

export interface CompressionPlan {
  isEncoded: boolean;
  why: PlanReason;
  /** Estimated seconds of the push, plain and compressed, where a link rate was known. */
  plainS?: number;
  encodedS?: number;
}

/** What the push is, and why. */
export function planCompression(input: PlanInput): CompressionPlan {
  if (input.setting === 'off') return { isEncoded: false, why: 'off' };
  if (input.isLocal) return { isEncoded: false, why: 'local' };
  if (!input.hasDecoder) return { isEncoded: false, why: 'old_agent' };
  if (!isWorthCompressing(input.saving)) return { isEncoded: false, why: 'incompressible' };
  if (input.setting === 'on') return { isEncoded: true, why: 'on' };
  // Unknown: start compressed at the fast quality. The encoder measures the link as the
  // push goes and sends segments raw where the link outruns it; the next push knows.
  if (input.link === undefined || !(input.link.bytesPerS > 0)) {
    return { isEncoded: true, why: 'unmeasured' };
  }
  // The link waited on this machine (its CPU or disk): compressing would only add to that.
  if (!input.link.isLinkBound) return { isEncoded: false, why: 'cpu_bound' };
  const rate = input.link.bytesPerS;
  const { plainS, encodedS } = estimateSeconds(input.saving, rate, input.cpu ?? DEFAULT_CPU);
  // Above the fast-link rate a loaded core compresses no faster than the link sends: the
  // encoder would send raw segments, and the node would decode them for nothing.
  const isEncoded = rate < FAST_LINK_BYTES_PER_S && encodedS < plainS * (1 - MIN_GAIN);
  return { isEncoded, why: isEncoded ? 'pays' : 'link_faster', plainS, encodedS };
}

/**
 * A push's seconds on a link that takes `rate` bytes per second: plain, every byte on the
 * link; compressed, the fewer bytes on the link or the compressions (whichever is slower:
 * they overlap), plus the node's decoding pass over every byte.
 */
export function estimateSeconds(
  saving: SavingEstimate,
  rate: number,
  cpu: CpuCost,
): { plainS: number; encodedS: number } {
  const plainS = saving.totalBytes / rate;
  const wireS = (saving.totalBytes - saving.savedBytes) / rate;
  const compressS = saving.triedBytes / (cpu.compressBytesPerS * cpu.parallel);
  const decodeS = saving.totalBytes / cpu.decodeBytesPerS;
  return { plainS, encodedS: Math.max(wireS, compressS) + decodeS };
}
