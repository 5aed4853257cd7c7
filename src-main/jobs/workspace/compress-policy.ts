// Which bytes of a push are worth compressing (push-encoder.ts compresses them). Text (code,
// CSV, JSON, logs) shrinks 3–5× with brotli at quality 1; formats that are compressed
// already, and random-looking data (most model checkpoints: float bits), do not shrink at
// all, and trying costs CPU for nothing. So a file of a known compressed format is sent as
// it is, a large file as its first 64 KiB says, and a push is compressed at all only when a
// sample of its files says it saves enough: an uncompressed push keeps its fast path on the
// node (the stream goes straight to tar) and costs nothing on a fast link.
import { brotliCompressSync, constants } from 'node:zlib';

/** The quality samples are judged at: the one a push starts at (compress-pace.ts). Measured
 *  on a 4.9× CSV and on this repository's sources, 1 MiB segments, one core: quality 1
 *  gives ratio 0.236 at ~300 MB/s where gzip -1 gives 0.252 at ~225 MB/s (gzip -6: 0.203 at
 *  68 MB/s), and it passes random bytes at ~2 GB/s where deflate crawls at ~65 MB/s. */
export const SAMPLE_QUALITY = 1;

/** A segment (or sample) that does not shrink below this is sent as it is. */
export const KEEP_RATIO = 0.9;

/** How much of a large file is compressed to judge it. */
export const SAMPLE_BYTES = 64 * 1024;

/** Below this a sample says little (brotli's own overhead dominates): the file is tried. */
const MIN_SAMPLE_BYTES = 1024;

/** A push is compressed only if that saves at least this share of its bytes… */
export const MIN_SAVED_SHARE = 0.1;
/** …and at least this many: below it the link time saved is a rounding error. */
export const MIN_SAVED_BYTES = 64 * 1024;

/** Formats compressed already (by extension, lower case). Model weights (`.pt`,
 *  `.safetensors`, `.bin`) are not here: their compressibility varies, a sample decides. */
const ALREADY_COMPRESSED = new Set([
  '7z',
  'aac',
  'avif',
  'br',
  'bz2',
  'flac',
  'gif',
  'gz',
  'heic',
  'jar',
  'jpeg',
  'jpg',
  'lz4',
  'm4a',
  'mkv',
  'mov',
  'mp3',
  'mp4',
  'ogg',
  'opus',
  'png',
  'rar',
  'tgz',
  'webm',
  'webp',
  'whl',
  'xz',
  'zip',
  'zst',
]);

/** `raw`: send the bytes as they are; `try`: compress them, kept if they shrink enough. */
export type ByteKind = 'raw' | 'try';

export function isAlreadyCompressed(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 && ALREADY_COMPRESSED.has(name.slice(dot + 1).toLowerCase());
}

/** Compressed size over size, as the push would compress it; 1 for an empty sample. */
export function sampleRatio(sample: Buffer): number {
  if (sample.length === 0) return 1;
  const out = brotliCompressSync(sample, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: SAMPLE_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: sample.length,
    },
  });
  return out.length / sample.length;
}

/** How one file's bytes are sent; `sample`: its first `SAMPLE_BYTES`, for a file large
 *  enough to judge that way (a small one is tried along with its neighbours). */
export function fileKind(path: string, sample?: Buffer): ByteKind {
  if (isAlreadyCompressed(path)) return 'raw';
  if (sample && sample.length >= MIN_SAMPLE_BYTES && sampleRatio(sample) > KEEP_RATIO) {
    return 'raw';
  }
  return 'try';
}

/** Which files of a push to sample, by index: the `largest` (where the bytes are) and
 *  `spread` more evenly spaced among the rest. At most `largest + spread`, each once. */
export function samplePicks(sizes: readonly number[], largest = 16, spread = 32): number[] {
  const bySize = sizes.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
  const big = bySize.slice(0, largest);
  const rest = bySize.slice(largest).sort((a, b) => a - b);
  const step = rest.length / Math.min(spread, rest.length);
  const spaced: number[] = [];
  for (let k = 0; k < Math.min(spread, rest.length); k++) spaced.push(rest[Math.floor(k * step)]!);
  return [...big, ...spaced];
}

export interface SavingEstimate {
  totalBytes: number;
  savedBytes: number;
  /** The bytes that would pass through the compressor (those not sent as they are). */
  triedBytes: number;
}

/**
 * What compressing the push would save, from the ratios of the files `samplePicks` chose
 * (`ratios`, by index; a file of a compressed format counts as 1). The `largest` picks
 * stand for themselves; the spread stands for every other file, weighted by size. A ratio
 * above `KEEP_RATIO` saves nothing: those bytes would be sent as they are.
 */
export function estimateSaving(
  sizes: readonly number[],
  ratios: ReadonlyMap<number, number>,
  largest = 16,
): SavingEstimate {
  const totalBytes = sizes.reduce((n, s) => n + s, 0);
  const picks = [...ratios.keys()];
  const big = new Set(samplePicks(sizes, largest, 0));
  const saved = (size: number, r: number) => (r > KEEP_RATIO ? 0 : size * (1 - r));
  const tried = (size: number, r: number) => (r > KEEP_RATIO ? 0 : size);
  let savedBytes = 0;
  let triedBytes = 0;
  let spreadBytes = 0;
  let spreadSaved = 0;
  let spreadTried = 0;
  for (const i of picks) {
    const r = ratios.get(i)!;
    if (big.has(i)) {
      savedBytes += saved(sizes[i]!, r);
      triedBytes += tried(sizes[i]!, r);
    } else {
      spreadBytes += sizes[i]!;
      spreadSaved += saved(sizes[i]!, r);
      spreadTried += tried(sizes[i]!, r);
    }
  }
  let restBytes = totalBytes;
  for (const i of big) restBytes -= sizes[i]!;
  if (spreadBytes > 0) {
    savedBytes += (restBytes * spreadSaved) / spreadBytes;
    triedBytes += (restBytes * spreadTried) / spreadBytes;
  }
  return { totalBytes, savedBytes: Math.round(savedBytes), triedBytes: Math.round(triedBytes) };
}

export function isWorthCompressing(e: SavingEstimate): boolean {
  return e.savedBytes >= MIN_SAVED_BYTES && e.savedBytes >= e.totalBytes * MIN_SAVED_SHARE;
}
