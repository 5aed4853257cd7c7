import { finished, PassThrough, type Readable, type Writable } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import type { ChannelTicket } from './channel-limit';
import type { ExecChannel, ExitStatus } from './node-shell';

const NO_STATUS: ExitStatus = { code: null, signal: null };
const ignore = () => {};

/** An exec channel handed out before the SSH channel exists: its streams are PassThroughs
 *  wired to the real channel once a slot is free and the server has opened it. */
export class SshExecChannel implements ExecChannel {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly exit: Promise<ExitStatus>;
  /** Private (#) so that inspecting this object never walks into the client and its key. */
  #channel: ClientChannel | null = null;
  /** The channel the input already flows into, its exec not answered yet (`feed`). */
  #fed: ClientChannel | null = null;
  #isRequested = false;
  #isClosing = false;
  #settle!: (status: ExitStatus) => void;
  #stopWaitingForOutput!: () => void;

  constructor(private readonly ticket: ChannelTicket) {
    // Writes after the command is gone fail quietly, as a local child's EPIPE does.
    this.stdin.on('error', ignore);
    const status = new Promise<ExitStatus>((resolve) => {
      let isSettled = false;
      this.#settle = (s) => {
        if (isSettled) return;
        isSettled = true;
        resolve(s);
      };
    });
    const abandoned = new Promise<void>((resolve) => (this.#stopWaitingForOutput = resolve));
    const outputEnded = Promise.all([ended(this.stdout), ended(this.stderr)]);
    this.exit = status.then((s) => Promise.race([outputEnded, abandoned]).then(() => s));
  }

  get isClosing(): boolean {
    return this.#isClosing;
  }

  /** The shell is about to ask the server for the channel (a slot was granted). */
  markRequested(): void {
    this.#isRequested = true;
  }

  /** The server opened the channel and the exec request is on its way: the input may
   *  follow it now (the answer, and `attach`, come a round trip later). */
  feed(ch: ClientChannel): void {
    if (this.#isClosing) return;
    this.#fed = ch;
    ch.on('error', ignore);
    this.stdin.pipe(ch);
  }

  attach(ch: ClientChannel): void {
    this.#channel = ch;
    let status = NO_STATUS;
    ch.on('error', ignore);
    ch.stderr.on('error', ignore);
    ch.on('exit', (code: number | null, signal?: string) => {
      status = { code: code ?? null, signal: signal ?? null };
    });
    ch.on('close', () => {
      this.ticket.release();
      this.stdin.unpipe(ch);
      this.stdin.destroy();
      this.#settle(status);
    });
    forward(ch, this.stdout);
    forward(ch.stderr, this.stderr);
    if (this.#fed !== ch) this.stdin.pipe(ch);
    if (this.#isClosing) this.#closeChannel(ch);
  }

  /** The channel never opened (cancelled, refused by the server, or no connection). */
  fail(): void {
    if (this.#fed) this.stdin.unpipe(this.#fed);
    this.ticket.release();
    endIfOpen(this.stdout);
    endIfOpen(this.stderr);
    this.stdin.destroy();
    this.#settle(NO_STATUS);
  }

  /** The connection dropped: settle now with no exit code, whatever the reader is doing. */
  drop(): void {
    this.ticket.release();
    this.stdin.destroy();
    this.#settle(NO_STATUS);
    this.#stopWaitingForOutput();
    if (!this.#channel) {
      endIfOpen(this.stdout);
      endIfOpen(this.stderr);
    }
  }

  close(): void {
    if (this.#isClosing) return;
    this.#isClosing = true;
    this.#stopWaitingForOutput();
    if (this.#channel) this.#closeChannel(this.#channel);
    // Not yet asked for: leaving the queue makes the shell call fail(). Asked for but not
    // open yet: attach() closes it, so the slot stays counted until the server agrees.
    else if (!this.#isRequested) this.ticket.release();
  }

  #closeChannel(ch: ClientChannel): void {
    this.stdin.unpipe(ch);
    if (this.#fed && this.#fed !== ch) this.stdin.unpipe(this.#fed);
    ch.unpipe(this.stdout);
    ch.stderr.unpipe(this.stderr);
    // ssh2 emits `close` only once the output is consumed: discard what nobody will read.
    ch.resume();
    ch.stderr.resume();
    endIfOpen(this.stdout);
    endIfOpen(this.stderr);
    ch.close();
  }
}

function forward(src: Readable, dst: Writable): void {
  src.pipe(dst, { end: false });
  finished(src, { writable: false }, () => endIfOpen(dst));
}

function endIfOpen(s: Writable): void {
  if (!s.writableEnded && !s.destroyed) s.end();
}

function ended(s: Readable): Promise<void> {
  return new Promise((resolve) => finished(s, { writable: false }, () => resolve()));
}
