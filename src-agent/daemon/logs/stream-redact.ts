// Redaction of a byte stream (a process's output, the metrics file), before it is split
// into lines or cut: a secret that arrives in two reads, or that straddles the 1 MiB line
// cut or the 64 KiB metrics cut, is replaced whole, because no cut is made until the
// secret is redacted. Bytes that could still be the start of a secret (the last
// longest-needle − 1 bytes, never past a newline: no needle holds one) are held back until
// the next chunk or `flush`.
import { type Redactor, matchRanges, replaceRanges } from './redact';

export class StreamRedactor {
  private carry: Buffer = Buffer.alloc(0);
  private readonly holdBack: number;

  constructor(private readonly redactor: Redactor) {
    this.holdBack = Math.max(0, ...redactor.needles.map((n) => n.length)) - 1;
  }

  /** The redacted bytes that are final now (maybe fewer than were pushed). */
  push(chunk: Buffer): Buffer {
    const { needles } = this.redactor;
    if (needles.length === 0) return chunk;
    const buf = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    // A match not yet whole starts after both of these points.
    let safe = Math.max(buf.length - this.holdBack, buf.lastIndexOf(10) + 1);
    const ranges = matchRanges(buf, needles);
    const straddling = ranges.find(([s, e]) => s < safe && e > safe);
    if (straddling) safe = straddling[0];
    this.carry = Buffer.from(buf.subarray(safe));
    return replaceRanges(
      buf.subarray(0, safe),
      ranges.filter(([, e]) => e <= safe),
    );
  }

  /** Everything held back, redacted: the stream ended (or a partial line must be logged). */
  flush(): Buffer {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    return replaceRanges(rest, matchRanges(rest, this.redactor.needles));
  }

  /** The same stream from here on, with `next`'s secrets (what is held back carries over). */
  handOver(next: Redactor): StreamRedactor {
    const after = new StreamRedactor(next);
    after.carry = this.carry;
    return after;
  }

  /** Forgets what was held back (the stream starts over: a rewritten metrics file). */
  reset(): void {
    this.carry = Buffer.alloc(0);
  }
}
