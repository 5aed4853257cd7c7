// What a push's link took, measured as the push goes: the bytes handed to the channel (which
// takes no more than SSH's window and its buffers ahead of the link) over the time from the
// end of the warm-up to the node's answer, when every byte has crossed. The first bytes fill
// the window without waiting for the link, so they are not counted. A CPU-bound push reads
// as a slower link than it is: the figure is what pushes to this endpoint achieve, which is
// what the next push's choice needs (compression-plan.ts).
import { WARMUP_BYTES } from './compress-pace';

/** Below this many bytes after the warm-up, or this span, a push says little of its link. */
export const MIN_MEASURED_BYTES = 4 * 1024 * 1024;
const MIN_SPAN_MS = 50;

export class LinkMeter {
  private warm: { atMs: number; bytes: number } | undefined;
  private bytes = 0;

  constructor(private readonly warmupBytes = WARMUP_BYTES) {}

  /** `bytes` in all have been handed to the channel by `atMs` (monotonic ms). */
  note(atMs: number, bytes: number): void {
    this.bytes = bytes;
    if (this.warm === undefined && bytes >= this.warmupBytes) this.warm = { atMs, bytes };
  }

  /** Bytes per second from the warm-up to `endMs` (when the node answered), or undefined
   *  for a push too small to say. */
  rate(endMs: number): number | undefined {
    if (!this.warm) return undefined;
    const bytes = this.bytes - this.warm.bytes;
    const span = endMs - this.warm.atMs;
    if (bytes < MIN_MEASURED_BYTES || span < MIN_SPAN_MS) return undefined;
    return (bytes * 1000) / span;
  }
}
