import { finished, PassThrough, type Readable } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import type { ChannelTicket } from './channel-limit';

/** An interactive terminal on the node (stdout and stderr are one stream on a pty). */
export interface PtyChannel {
  readonly stdout: Readable;
  /** Resolves when the channel has accepted the bytes (SSH window): back-pressure. */
  write(data: Buffer): Promise<void>;
  resize(cols: number, rows: number): void;
  close(): void;
  /** The shell's exit code; null when it was killed or the connection dropped. */
  readonly exit: Promise<number | null>;
}

const ignore = () => {};

export class SshPtyChannel implements PtyChannel {
  readonly stdout = new PassThrough();
  readonly exit: Promise<number | null>;
  #channel: ClientChannel;
  #settle!: (code: number | null) => void;

  constructor(ch: ClientChannel, ticket: ChannelTicket) {
    this.#channel = ch;
    ch.on('error', ignore);
    ch.stderr.on('error', ignore);
    ch.stderr.resume();
    ch.pipe(this.stdout, { end: false });
    finished(ch, { writable: false }, () => {
      if (!this.stdout.writableEnded) this.stdout.end();
    });
    this.exit = new Promise((resolve) => {
      let isSettled = false;
      this.#settle = (code) => {
        if (isSettled) return;
        isSettled = true;
        resolve(code);
      };
    });
    let code: number | null = null;
    ch.on('exit', (c: number | null) => (code = c ?? null));
    ch.on('close', () => {
      ticket.release();
      this.#settle(code);
    });
  }

  write(data: Buffer): Promise<void> {
    const ch = this.#channel;
    return new Promise((resolve, reject) => {
      if (!ch.writable) return reject(new Error('the terminal is closed'));
      ch.write(data, (err) => (err ? reject(err) : resolve()));
    });
  }

  resize(cols: number, rows: number): void {
    if (this.#channel.writable) this.#channel.setWindow(rows, cols, 0, 0);
  }

  close(): void {
    this.#channel.unpipe(this.stdout);
    this.#channel.resume(); // `close` waits for the output to be consumed
    if (!this.stdout.writableEnded) this.stdout.end();
    this.#channel.close();
  }

  /** The connection dropped: settle now. ssh2 ends the output itself just after. */
  drop(): void {
    this.#settle(null);
  }
}
