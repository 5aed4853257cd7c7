// A streaming tar reader. Accepts ustar, PAX ('x' local headers; 'g' globals are skipped)
// and GNU long names ('L'/'K'), with chunk boundaries anywhere. Each entry's body is a
// Readable; the next entry is not parsed until the handler of this one has settled, so a
// slow consumer slows the writer (back-pressure) instead of filling memory.
import { Readable, Writable } from 'node:stream';
import {
  BLOCK,
  decodeHeader,
  isZeroBlock,
  padding,
  parsePaxRecords,
  type RawHeader,
  type TarEntryType,
  type TarHeader,
} from './header';

export interface TarEntry {
  header: TarHeader;
  /** The entry's bytes. Read it, or resolve the handler and the rest is discarded. */
  body: Readable;
}

export type TarEntryHandler = (entry: TarEntry) => Promise<void> | void;

/** Metadata bodies (PAX, GNU long names) are held in memory; refuse absurd ones. */
const MAX_META_BYTES = 1024 * 1024;

const ENTRY_TYPES: Record<string, TarEntryType> = {
  '0': 'file',
  '\0': 'file',
  '7': 'file',
  '5': 'directory',
  '2': 'symlink',
  '1': 'link',
};

/** A Writable to pipe tar bytes into; it finishes once every entry has been handled, and
 *  fails on a corrupt or truncated stream (missing end-of-archive block included). */
export function createTarReader(onEntry: TarEntryHandler): Writable {
  return new TarReaderStream(onEntry);
}

type Mode = 'header' | 'body' | 'meta' | 'skip' | 'pad' | 'end';

class TarReaderStream extends Writable {
  private mode: Mode = 'header';
  private header = Buffer.alloc(BLOCK);
  private headerFill = 0;
  private remaining = 0;
  private pad = 0;
  private offset = 0;
  private meta: Buffer[] = [];
  private metaKind = '';
  private pax: Record<string, string> = {};
  private longName: string | undefined;
  private longLink: string | undefined;
  private body: EntryBody | undefined;
  private handled: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(private readonly onEntry: TarEntryHandler) {
    super();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, callback: (err?: Error) => void): void {
    this.consume(chunk).then(() => callback(), callback);
  }

  override _final(callback: (err?: Error) => void): void {
    if (this.mode === 'end') return callback();
    const where =
      this.mode === 'header' && this.headerFill === 0
        ? 'before the end-of-archive block'
        : 'inside an entry';
    callback(new Error(`tar stream truncated: it ended ${where} (byte ${this.offset})`));
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    // A body nobody listens to must not turn the failure into an uncaught exception.
    const body = this.body;
    if (body && !body.destroyed) {
      body.destroy(
        body.listenerCount('error') > 0 ? (err ?? new Error('tar stream closed')) : undefined,
      );
    }
    callback(err);
  }

  private async consume(chunk: Buffer): Promise<void> {
    let at = 0;
    while (at < chunk.length) {
      if (this.failure !== undefined) throw this.failure;
      const avail = chunk.length - at;
      if (this.mode === 'end') {
        at = chunk.length; // trailing zero blocks and record padding
      } else if (this.mode === 'header') {
        const n = Math.min(BLOCK - this.headerFill, avail);
        chunk.copy(this.header, this.headerFill, at, at + n);
        this.headerFill += n;
        at += n;
        if (this.headerFill === BLOCK) {
          this.headerFill = 0;
          await this.onHeader(this.offset + at - BLOCK);
        }
      } else {
        const want = this.mode === 'pad' ? this.pad : this.remaining;
        const n = Math.min(want, avail);
        const piece = chunk.subarray(at, at + n);
        at += n;
        if (this.mode === 'pad') this.pad -= n;
        else this.remaining -= n;
        if (this.mode === 'body') await (this.body as EntryBody).feed(piece);
        else if (this.mode === 'meta') this.meta.push(Buffer.from(piece));
        if (want === n) await this.sectionDone();
      }
    }
    this.offset += chunk.length;
  }

  private async onHeader(at: number): Promise<void> {
    if (isZeroBlock(this.header)) {
      this.mode = 'end';
      return;
    }
    const raw = decodeHeader(this.header, at);
    this.pad = padding(raw.size);
    const type = ENTRY_TYPES[raw.typeflag];
    if (raw.typeflag === 'x' || raw.typeflag === 'L' || raw.typeflag === 'K') {
      if (raw.size > MAX_META_BYTES) throw new Error(`tar metadata entry too large at byte ${at}`);
      this.metaKind = raw.typeflag;
      this.meta = [];
      this.startSection('meta', raw.size);
    } else if (type === undefined) {
      this.clearPending(); // 'g' global headers, devices, fifos, vendor types: skipped
      this.startSection('skip', raw.size);
    } else {
      await this.startEntry(raw, type);
    }
  }

  private async startEntry(raw: RawHeader, type: TarEntryType): Promise<void> {
    const size = this.pax.size !== undefined ? Number(this.pax.size) : raw.size;
    if (!Number.isSafeInteger(size) || size < 0) throw new Error(`bad entry size in ${raw.name}`);
    const header: TarHeader = {
      path: this.pax.path ?? this.longName ?? raw.name,
      type,
      typeflag: raw.typeflag,
      size: type === 'file' ? size : 0,
      mode: raw.mode,
      mtime: new Date((this.pax.mtime !== undefined ? Number(this.pax.mtime) : raw.mtime) * 1000),
      linkname: this.pax.linkpath ?? this.longLink ?? raw.linkname,
    };
    this.clearPending();
    this.pad = padding(size);
    const body = new EntryBody();
    this.body = body;
    this.handled = Promise.resolve().then(() => this.onEntry({ header, body }));
    this.handled.then(
      () => body.release(true),
      (err: unknown) => {
        this.failure = err;
        body.release(false);
      },
    );
    if (header.size === 0) {
      this.startSection('skip', size); // a directory's (odd) nonzero size is skipped
      await this.endEntry();
    } else {
      this.startSection('body', size);
    }
  }

  private startSection(mode: 'body' | 'meta' | 'skip', size: number): void {
    this.remaining = size;
    this.mode = mode;
    if (size === 0 && mode !== 'body') this.mode = this.pad > 0 ? 'pad' : 'header';
    if (size === 0 && mode === 'meta') this.metaDone();
  }

  private async sectionDone(): Promise<void> {
    if (this.mode === 'pad') {
      this.mode = 'header';
      return;
    }
    if (this.mode === 'body') await this.endEntry();
    if (this.mode === 'meta') this.metaDone();
    this.mode = this.pad > 0 ? 'pad' : 'header';
  }

  private async endEntry(): Promise<void> {
    this.body?.push(null);
    this.body = undefined;
    await this.handled;
  }

  private metaDone(): void {
    const body = Buffer.concat(this.meta);
    this.meta = [];
    if (this.metaKind === 'x') this.pax = { ...this.pax, ...parsePaxRecords(body) };
    const text = body.toString('utf8').replace(/\0[\s\S]*$/, '');
    if (this.metaKind === 'L') this.longName = text;
    if (this.metaKind === 'K') this.longLink = text;
  }

  private clearPending(): void {
    this.pax = {};
    this.longName = undefined;
    this.longLink = undefined;
  }
}

/** An entry's body: `feed` waits while the consumer is behind, until it reads or its
 *  handler settles (then the rest is discarded). */
class EntryBody extends Readable {
  private wake: (() => void) | undefined;
  private isDraining = false;

  constructor() {
    super();
    this.once('close', () => this.release(true));
  }

  async feed(piece: Buffer): Promise<void> {
    if (this.destroyed || this.isDraining) return;
    if (this.push(piece)) return;
    await new Promise<void>((resolve) => (this.wake = resolve));
  }

  /** The handler settled: stop waiting for it to read; discard what is left. */
  release(isDone: boolean): void {
    this.isDraining = true;
    if (isDone && !this.destroyed) this.resume();
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  override _read(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
