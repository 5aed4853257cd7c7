// A streaming tar writer: entries go out one after the other, with back-pressure from
// whoever reads the stream. GNU tar, bsdtar and our reader all extract its output.
import { Readable } from 'node:stream';
import { BLOCK, encodeEntryHeaders, padding } from './header';

export interface TarFileOptions {
  /** Exact byte count of `source`; a source that yields more or fewer bytes is an error. */
  size: number;
  mode?: number;
  mtime?: Date;
  /** Called with the offset of the first data byte, once the headers are out and before
   *  any data is (a push's encoder cuts a segment there). */
  onData?: (offset: number) => void;
}

export interface TarDirectoryOptions {
  mode?: number;
  mtime?: Date;
}

/** A Readable of tar bytes. Entries are written in call order; each promise settles when
 *  its entry has been handed to the stream. Call `finish()` last. */
export interface TarWriter extends Readable {
  /** Bytes handed to the stream so far: once every earlier call has settled, where the
   *  next entry begins (what a push's encoder keys its per-file choices by). */
  readonly offset: number;
  addFile(path: string, options: TarFileOptions, source: Readable | Buffer): Promise<void>;
  addDirectory(path: string, options?: TarDirectoryOptions): Promise<void>;
  finish(): Promise<void>;
}

export function createTarWriter(): TarWriter {
  return new TarWriterStream();
}

class TarWriterStream extends Readable implements TarWriter {
  private queue: Promise<void> = Promise.resolve();
  private wakeReader: (() => void) | undefined;
  private failReader: ((err: Error) => void) | undefined;
  private isFinished = false;
  offset = 0;

  addFile(path: string, options: TarFileOptions, source: Readable | Buffer): Promise<void> {
    return this.enqueue(async () => {
      const size = options.size;
      if (!Number.isSafeInteger(size) || size < 0) throw new Error(`bad size for ${path}`);
      await this.out(
        encodeEntryHeaders({
          path: checkPath(path).replace(/\/+$/, ''),
          typeflag: '0',
          size,
          mode: options.mode ?? 0o644,
          mtime: seconds(options.mtime),
        }),
      );
      options.onData?.(this.offset);
      let written = 0;
      if (Buffer.isBuffer(source)) {
        written = source.length;
        if (written === size) await this.out(source);
      } else {
        for await (const chunk of source as AsyncIterable<Buffer>) {
          written += chunk.length;
          if (written > size) break;
          await this.out(chunk);
        }
      }
      if (written !== size) {
        throw new Error(
          `${path}: source gave ${written > size ? 'more' : 'fewer'} bytes than its size ${size} (file changed while packing?)`,
        );
      }
      await this.out(Buffer.alloc(padding(size)));
    });
  }

  addDirectory(path: string, options: TarDirectoryOptions = {}): Promise<void> {
    return this.enqueue(() =>
      this.out(
        encodeEntryHeaders({
          path: `${checkPath(path).replace(/\/+$/, '')}/`,
          typeflag: '5',
          size: 0,
          mode: options.mode ?? 0o755,
          mtime: seconds(options.mtime),
        }),
      ),
    );
  }

  finish(): Promise<void> {
    return this.enqueue(async () => {
      this.isFinished = true;
      await this.out(Buffer.alloc(2 * BLOCK)); // end-of-archive: two zero blocks
      this.push(null);
    });
  }

  override _read(): void {
    const wake = this.wakeReader;
    this.wakeReader = undefined;
    this.failReader = undefined;
    wake?.();
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.failReader?.(err ?? new Error('tar stream was closed before the entry was written'));
    this.wakeReader = undefined;
    this.failReader = undefined;
    callback(err);
  }

  /** Runs `task` after every earlier entry; a failure destroys the stream. */
  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => {
      if (this.destroyed) throw new Error('tar stream was destroyed');
      if (this.isFinished) throw new Error('tar stream already finished');
      return task();
    });
    this.queue = run.catch((err: Error) => {
      this.destroy(err);
    });
    return run;
  }

  private async out(chunk: Buffer): Promise<void> {
    if (chunk.length === 0) return;
    if (this.destroyed) throw new Error('tar stream was destroyed');
    this.offset += chunk.length;
    if (this.push(chunk)) return;
    await new Promise<void>((resolve, reject) => {
      this.wakeReader = resolve;
      this.failReader = reject;
    });
  }
}

function checkPath(path: string): string {
  if (path === '' || path.includes('\0')) throw new Error(`bad tar path ${JSON.stringify(path)}`);
  return path;
}

function seconds(mtime: Date | undefined): number {
  return Math.floor((mtime ?? new Date()).getTime() / 1000);
}
