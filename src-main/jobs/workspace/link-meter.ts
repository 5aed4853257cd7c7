// What a push's link took, measured as the push goes: the bytes handed to the channel (which
// takes no more than SSH's window and its buffers ahead of the link) over the time from the
// end of the warm-up to the node's answer, when every byte has crossed. The first bytes fill
// the window without waiting for the link, so they are not counted. And whether the link
// was the limit: the sender waited longer on the channel to take bytes than on the tar (or
// the encoder) to make them. A push the link waited on says only that this machine, not the
// link, set its pace; compressing the next one would slow it further (compression-plan.ts).
import { WARMUP_BYTES } from './compress-pace';

/** Below this many bytes after the warm-up, or this span, a push says little of its link. */
export const MIN_MEASURED_BYTES = 4 * 1024 * 1024;
const MIN_SPAN_MS = 50;

export interface LinkMeasure {
  bytesPerS: number;
  /** The sender waited on the link more than on what fed it. */
  isLinkBound: boolean;
}

export class LinkMeter {
  private warm: { atMs: number; bytes: number } | undefined;
  private bytes = 0;
  private readonly waits = { source: 0, link: 0 };

  constructor(private readonly warmupBytes = WARMUP_BYTES) {}

  /** `bytes` in all have been handed to the channel by `atMs` (monotonic ms). */
  note(atMs: number, bytes: number): void {
    this.bytes = bytes;
    if (this.warm === undefined && bytes >= this.warmupBytes) this.warm = { atMs, bytes };
  }

  /** The sender waited `ms` for the next bytes to send (`source`) or for the channel to take
   *  the last ones (`link`). Counted after the warm-up only. */
  waited(on: 'source' | 'link', ms: number): void {
    if (this.warm) this.waits[on] += ms;
  }

  /** What the link did from the warm-up to `endMs` (when the node answered), or undefined
   *  for a push too small to say. */
  measure(endMs: number): LinkMeasure | undefined {
    if (!this.warm) return undefined;
    const bytes = this.bytes - this.warm.bytes;
    const span = endMs - this.warm.atMs;
    if (bytes < MIN_MEASURED_BYTES || span < MIN_SPAN_MS) return undefined;
    return { bytesPerS: (bytes * 1000) / span, isLinkBound: this.waits.link >= this.waits.source };
  }
}

/** `source`, passed on chunk by chunk, with the sender's waits and bytes noted in `meter`;
 *  `onBytes` gets the running total. */
export async function* metered(
  source: AsyncIterable<Buffer>,
  meter: LinkMeter,
  onBytes: (total: number) => void,
): AsyncGenerator<Buffer> {
  let total = 0;
  let asked = performance.now();
  for await (const chunk of source) {
    meter.waited('source', performance.now() - asked);
    total += chunk.length;
    onBytes(total);
    meter.note(performance.now(), total);
    const handed = performance.now();
    yield chunk; // resumes once the consumer wants more: the channel took this one
    asked = performance.now();
    meter.waited('link', asked - handed);
  }
}
