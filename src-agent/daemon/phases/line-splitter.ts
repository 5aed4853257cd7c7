// Splits a process's output into log lines: on '\n' only ('\r' stays, so progress bars
// survive), a final unterminated line on flush, and lines over 1 MiB cut into pieces.
import { StringDecoder } from 'node:string_decoder';

export const MAX_LINE_BYTES = 1024 * 1024;

export class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let at = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, at)) {
      this.add(chunk.subarray(at, nl));
      this.emit(true);
      at = nl + 1;
    }
    if (at < chunk.length) this.add(chunk.subarray(at));
  }

  /** Emits what is left as a last line (the process exited without a final newline). */
  flush(): void {
    if (this.partBytes > 0) this.emit(true);
  }

  private add(piece: Buffer): void {
    this.parts.push(Buffer.from(piece));
    this.partBytes += piece.length;
    while (this.partBytes > this.maxBytes) this.emit(false);
  }

  /** Emits the whole pending line, or (when too long) its first maxBytes, cut before a
   *  UTF-8 continuation byte so no character is split between two records. */
  private emit(isWhole: boolean): void {
    const all = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
    let cut = isWhole ? all.length : this.maxBytes;
    if (!isWhole) {
      while (cut > 0 && ((all[cut] as number) & 0xc0) === 0x80) cut--;
      if (cut === 0) cut = this.maxBytes;
    }
    this.onLine(new StringDecoder('utf8').end(all.subarray(0, cut)));
    const rest = all.subarray(cut);
    this.parts = rest.length > 0 ? [rest] : [];
    this.partBytes = rest.length;
  }
}
