// One client of the control socket: NDJSON requests in, one response each (in request
// order), plus `log` and `phase` events once subscribed, and `teardown` events always.
import type { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import {
  OP_NAMES,
  type ErrorBody,
  type OpName,
  type PhaseState,
  type RequestId,
  type TeardownRecord,
} from '../../wire/protocol';
import type { ClientListener, DaemonContext } from '../context';
import { handlers, type RequestScope } from './handlers';
import type { StoredRecord } from '../logs/log-store';
import type { LogSubscription } from '../logs/log-subscription';
import { RequestError } from './request-checks';

/** A request line longer than this is not a request (configure with a large env fits). */
const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

export class Connection implements ClientListener {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private isCorked = false;
  private queue: Promise<void> = Promise.resolve();
  private subscription: LogSubscription | undefined;
  /** Last seq this client was sent; phase events wait until it covers their place. */
  private deliveredSeq = 0;
  private heldPhases: { afterSeq: number; state: PhaseState }[] = [];

  constructor(
    private readonly socket: Socket,
    private readonly ctx: DaemonContext,
  ) {
    ctx.listeners.add(this);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    // The client closed its side: answer what it asked, then close ours.
    socket.on('end', () => void this.queue.then(() => socket.end()));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.onClose());
  }

  onPhase(state: PhaseState, afterSeq: number): void {
    if (this.subscription) this.onPhaseHeld(state, afterSeq);
  }

  onTeardown(record: TeardownRecord): void {
    this.send({ ev: 'teardown', record });
  }

  private onPhaseHeld(state: PhaseState, afterSeq: number): void {
    if (afterSeq <= this.deliveredSeq) this.send({ ev: 'phase', state });
    else this.heldPhases.push({ afterSeq, state });
  }

  private onData(chunk: Buffer): void {
    const lines = (this.partial + this.decoder.write(chunk)).split('\n');
    this.partial = lines.pop() ?? '';
    if (this.partial.length > MAX_REQUEST_BYTES) {
      this.send({
        id: null,
        ok: false,
        error: { code: 'bad_request', message: 'request line too long' },
      });
      this.socket.end();
      return;
    }
    for (const line of lines) {
      if (line.trim() === '') continue;
      this.queue = this.queue.then(() => this.handle(line));
    }
  }

  private async handle(line: string): Promise<void> {
    let id: RequestId | null = null;
    let after: (() => void) | undefined;
    try {
      const req = parseRequest(line);
      id = req.id;
      const scope: RequestScope = {
        subscribe: (fromSeq) => (after = () => this.subscribe(fromSeq)),
        afterResponse: (fn) => (after = fn),
      };
      const result = await handlers[req.op](this.ctx, req, scope);
      this.send({ id, ok: true, result });
    } catch (err) {
      id = (err as { id?: RequestId }).id ?? id;
      const error: ErrorBody =
        err instanceof RequestError
          ? { code: err.code, message: err.message }
          : { code: 'internal', message: (err as Error).message };
      this.send({ id, ok: false, error });
    }
    after?.();
  }

  private subscribe(fromSeq: number): void {
    this.subscription?.close();
    this.deliveredSeq = Math.max(0, Math.floor(fromSeq) - 1);
    // The current state of each phase follows the backlog it belongs after, so a client
    // that resubscribes learns what changed while it was away.
    const afterSeq = this.ctx.log.durableSeq;
    this.heldPhases = [];
    for (const state of Object.values(this.ctx.supervisor.states()))
      this.onPhaseHeld(state, afterSeq);
    this.subscription = this.ctx.log.subscribe(fromSeq, {
      send: (records) => this.sendRecords(records),
      drained: () => this.drained(),
    });
  }

  private sendRecords(records: StoredRecord[]): boolean {
    const ok = this.write(`{"ev":"log","records":[${records.map((r) => r.json).join(',')}]}\n`);
    this.deliveredSeq = (records.at(-1) as StoredRecord).seq;
    while (this.heldPhases.length > 0 && (this.heldPhases[0]?.afterSeq ?? 0) <= this.deliveredSeq) {
      this.send({ ev: 'phase', state: (this.heldPhases.shift() as { state: PhaseState }).state });
    }
    return ok && !this.socket.writableNeedDrain;
  }

  private drained(): Promise<void> {
    if (!this.socket.writableNeedDrain || this.socket.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
  }

  private send(message: object): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  private write(text: string): boolean {
    if (this.socket.destroyed || !this.socket.writable) return false;
    // What one tick writes (an answer, the phase event and log records it caused) leaves
    // as one write: sshd relaying the socket then sends one packet, not a small one that
    // Nagle holds behind the first until the app's delayed ACK (~40 ms a round trip).
    if (!this.isCorked) {
      this.isCorked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.isCorked = false;
        this.socket.uncork();
      });
    }
    return this.socket.write(text);
  }

  private onClose(): void {
    this.ctx.listeners.delete(this);
    this.subscription?.close();
    this.subscription = undefined;
  }
}

function parseRequest(line: string): { id: RequestId; op: OpName } & Record<string, unknown> {
  let req: unknown;
  try {
    req = JSON.parse(line);
  } catch {
    throw new RequestError('bad_request', 'not JSON: send one JSON object per line');
  }
  if (typeof req !== 'object' || req === null || Array.isArray(req)) {
    throw new RequestError('bad_request', 'a request is a JSON object with "id" and "op"');
  }
  const { id, op } = req as Record<string, unknown>;
  if (typeof id !== 'number' && typeof id !== 'string') {
    throw new RequestError('bad_request', '"id" must be a number or a string');
  }
  if (!OP_NAMES.includes(op as OpName)) {
    const err = new RequestError(
      'unknown_op',
      `unknown op ${JSON.stringify(op)}; ops: ${OP_NAMES.join(', ')}`,
    );
    throw Object.assign(err, { id });
  }
  return req as { id: RequestId; op: OpName } & Record<string, unknown>;
}
