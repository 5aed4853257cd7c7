// The stream marker of docs/agent-protocol.md. Imported by the app as well, so this file
// depends on node:stream and nothing else.
import { Transform, type TransformCallback } from 'node:stream';

/** Printed by every agent command before its machine-readable output. */
export const STREAM_MARKER = 'TENDER-STREAM/1\n';

const MARKER_BYTES = Buffer.from(STREAM_MARKER, 'latin1');

/**
 * Finds the first marker in a byte stream fed chunk by chunk. `push` returns the bytes that
 * follow the marker (possibly empty) once it has been seen, and `undefined` before. The
 * marker may be split across chunks and need not start a line (a `.bashrc` may print text
 * with no final newline).
 */
export class MarkerScanner {
  private tail: Buffer = Buffer.alloc(0);
  private found = false;
  private skipped = 0;

  constructor(private readonly onSkipped?: (noise: Buffer) => void) {}

  get isFound(): boolean {
    return this.found;
  }

  /** Bytes discarded so far (the noise before the marker, marker excluded). */
  get skippedBytes(): number {
    return this.skipped;
  }

  push(chunk: Buffer): Buffer | undefined {
    if (this.found) return chunk;
    const data = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
    const at = data.indexOf(MARKER_BYTES);
    if (at >= 0) {
      this.found = true;
      this.skip(data.subarray(0, at));
      this.tail = Buffer.alloc(0);
      return data.subarray(at + MARKER_BYTES.length);
    }
    // Keep just enough to recognise a marker that straddles this chunk and the next.
    const keep = Math.min(data.length, MARKER_BYTES.length - 1);
    this.skip(data.subarray(0, data.length - keep));
    this.tail = Buffer.from(data.subarray(data.length - keep));
    return undefined;
  }

  /** Called at end of input: the bytes still held back are noise too. */
  end(): void {
    if (!this.found) this.skip(this.tail);
    this.tail = Buffer.alloc(0);
  }

  private skip(noise: Buffer): void {
    if (noise.length === 0) return;
    this.skipped += noise.length;
    this.onSkipped?.(noise);
  }
}

export interface MarkerSkipperOptions {
  /** Receives the noise printed before the marker (e.g. to log what a login shell said). */
  onSkipped?: (noise: Buffer) => void;
}

/**
 * A Transform that discards everything up to and including the first `TENDER-STREAM/1\n`
 * and passes the rest through untouched (binary safe). Ending without a marker is an
 * error with code `ERR_TENDER_NO_MARKER`.
 */
export function createMarkerSkipper(options: MarkerSkipperOptions = {}): Transform {
  const scanner = new MarkerScanner(options.onSkipped);
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      const rest = scanner.push(chunk);
      if (rest !== undefined && rest.length > 0) this.push(rest);
      callback();
    },
    flush(callback: TransformCallback) {
      scanner.end();
      if (scanner.isFound) return callback();
      const err = new Error(
        `stream ended before the agent's marker line (${scanner.skippedBytes} bytes of other output); ` +
          'the agent did not start — check that node ≥ 18 runs on the node',
      ) as Error & { code: string };
      err.code = 'ERR_TENDER_NO_MARKER';
      callback(err);
    },
  });
}
