// A workspace session with one node: one `serve-workspace` channel that stays open and
// serves every push and manifest request in turn, so pushes that come often (live sync)
// pay for no SSH exec and no node process start each. The framing is src-agent/wire/frames.ts;
// a request's answer is one JSON line (docs/agent-protocol.md). When the channel closes,
// every request in flight fails with an infrastructure error and the session stays
// closed: open another one.
import { once } from 'node:events';
import { pipeline, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { FRAME_HEAD_BYTES, frame } from '../../../src-agent/wire/frames';
import { MarkerScanner } from '../../../src-agent/wire/marker';
import type {
  CommandError,
  RecvWorkspaceOutput,
  ServeManifestAnswer,
  ServeRequest,
} from '../../../src-agent/wire/protocol';
import { PUSH_ENCODING } from '../../../src-agent/wire/push-encoding';
import { createTarWriter } from '../../../src-agent/wire/tar';
import { TenderError } from '../../base/tender-error';
import { within } from '../../base/within';
import { agentCommand, type AgentAddress } from '../../nodes/node-layout';
import type { ExecChannel, NodeShell } from '../../transport/node-shell';
import { packetized, SSH_PACKET_BYTES } from './packetize';
import { LinkMeter, metered } from './link-meter';
import type { Precompressor } from './precompress';
import { PushEncoder } from './push-encoder';
import {
  answerOf,
  nodeManifestOf,
  type NodeManifest,
  type RecvAnswer,
  type TarFill,
} from './recv-channel';

/** How long a failed write waits for the session's end, which says why it failed. */
const CLOSE_REASON_WAIT_MS = 5_000;

export class WorkspaceSession {
  private readonly lines: string[] = [];
  private readonly waiters: ((line: string | Error) => void)[] = [];
  private partial = '';
  /** A character split across two reads stays whole. */
  private readonly decoder = new StringDecoder('utf8');
  private closedBy: Error | undefined;
  private turn: Promise<unknown> = Promise.resolve();
  /** Rejects when the channel ends: what a write waiting for `drain` races against. */
  private readonly closed: Promise<never>;
  private readonly onClose: (err: Error) => void;
  /** Resolves once the agent has printed its marker: it runs and reads requests. */
  readonly started: Promise<void>;

  private constructor(
    /** The connection it runs over. */
    readonly shell: NodeShell,
    private readonly ch: ExecChannel,
  ) {
    let reject!: (err: Error) => void;
    this.closed = new Promise<never>((_, r) => (reject = r));
    this.closed.catch(() => {});
    this.onClose = reject;
    const scanner = new MarkerScanner();
    let onStarted!: () => void;
    this.started = new Promise<void>((resolve) => (onStarted = resolve));
    let stderr = '';
    ch.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    ch.stdout.on('data', (c: Buffer) => {
      const after = scanner.push(c);
      if (after === undefined) return;
      onStarted();
      if (after.length > 0) this.onText(this.decoder.write(after));
    });
    ch.stdin.on('error', () => {
      /* the exit below says why */
    });
    void ch.exit.then(
      (s) => this.shut(`it exited (${s.code ?? s.signal}): ${lastLine(stderr)}`),
      (err: Error) => this.shut(err.message),
    );
  }

  /** Starts `serve-workspace` on the node; resolves once the agent runs (its marker). Fails
   *  with `SessionOpenError` (e.g. an agent from before sessions: push without one).
   *  `isEager`: resolves at once, and the first request's bytes wait in the channel while
   *  the node's process starts (a fresh node's first push, whose agent is this app's): a
   *  session that does not start fails that request instead. `command`: the one that
   *  starts it, where not `address`'s (nodes/speculative-serve.ts). */
  static async open(
    shell: NodeShell,
    address: AgentAddress,
    opts: { isEager?: boolean; command?: string } = {},
  ): Promise<WorkspaceSession> {
    const session = new WorkspaceSession(
      shell,
      shell.exec(opts.command ?? agentCommand(address, 'serve-workspace')),
    );
    if (opts.isEager) return session;
    try {
      await Promise.race([session.started, session.closed]);
    } catch (err) {
      await session.close();
      throw new SessionOpenError((err as Error).message);
    }
    return session;
  }

  get isOpen(): boolean {
    return this.closedBy === undefined;
  }

  /** What the node holds, as `fetchNodeManifest` gives it. */
  manifest(): Promise<NodeManifest | null> {
    return this.inTurn(async () => {
      const answer = this.nextLine();
      await this.send(requestFrame({ op: 'manifest' }));
      const parsed = JSON.parse(await answer) as ServeManifestAnswer;
      return parsed.manifest === null ? null : nodeManifestOf(parsed.manifest);
    });
  }

  /**
   * Tells the node a push is coming: it checks its workspace while this side scans its
   * own, instead of after. Call right before scanning; the push must follow within a few
   * seconds (else the node checks again). Not for pushes into a running job (in place).
   */
  prepare(): void {
    void this.inTurn(async () => {
      const answer = this.nextLine();
      await this.send(requestFrame({ op: 'prepare' }));
      // Not waited for: the push that follows queues behind it on the node anyway.
      answer.catch(() => {});
    }).catch(() => {
      /* a closed session: the push that follows says so */
    });
  }

  /** One push, as `sendToRecv` makes it over a fresh exec. */
  recv(
    write: TarFill,
    isInPlace: boolean,
    isSealed = false,
    isEncoded = false,
    ahead?: Precompressor,
  ): Promise<RecvAnswer> {
    return this.inTurn(async () => {
      const answer = this.nextLine();
      await this.send(
        requestFrame({
          op: 'recv',
          inPlace: isInPlace,
          sealed: isSealed,
          ...(isEncoded ? { encoding: PUSH_ENCODING } : {}),
        }),
      );
      const tar = createTarWriter();
      const encoder = isEncoded ? new PushEncoder(ahead) : undefined;
      // The encoder fails (and so ends the loop below) when the tar is destroyed.
      const stream: Readable = encoder ? pipeline(tar, encoder, () => {}) : tar;
      let streamBytes = 0;
      const meter = new LinkMeter();
      const writing = (async () => {
        await write(tar, encoder);
        await tar.finish();
      })();
      const sending = (async () => {
        // A frame per packet: its head and payload fill one SSH packet.
        const chunks = metered(
          packetized(stream, SSH_PACKET_BYTES - FRAME_HEAD_BYTES),
          meter,
          (n) => (streamBytes = n),
        );
        for await (const chunk of chunks) await this.send(frame(chunk));
      })();
      const [wrote, sent] = await Promise.allSettled([writing, sending]);
      // Without the end-of-archive block the agent applies nothing; the empty frame ends
      // the request either way, so the session stays in step.
      if (wrote.status === 'rejected') tar.destroy();
      if (sent.status === 'rejected' && !this.isOpen) throw this.closedBy!;
      await this.send(frame(Buffer.alloc(0)));
      const result = JSON.parse(await answer) as RecvWorkspaceOutput | CommandError;
      const link = meter.measure(performance.now());
      const failure = wrote.status === 'rejected' ? (wrote.reason as Error) : undefined;
      return {
        output: answerOf(result, failure),
        streamBytes,
        tarBytes: encoder?.totals.tarBytes,
        segments: encoder?.totals.tried,
        link,
      };
    });
  }

  /** Ends the session: the agent exits once it has read the end of its input. */
  async close(): Promise<void> {
    if (this.isOpen) this.ch.stdin.end();
    await this.ch.exit.catch(() => {});
    this.shut('it was closed');
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(() => {
      if (this.closedBy) throw this.closedBy;
      return work();
    });
    this.turn = run.catch(() => {});
    return run;
  }

  private async send(chunks: Buffer[]): Promise<void> {
    try {
      for (const chunk of chunks) {
        if (this.closedBy) throw this.closedBy;
        if (!this.ch.stdin.write(chunk))
          await Promise.race([once(this.ch.stdin, 'drain'), this.closed]);
      }
    } catch (err) {
      // A pipe that broke under the write (EPIPE): the node side is gone, and its exit,
      // on its way, says why.
      throw (
        (await within(
          this.closed.catch((why: Error) => why),
          CLOSE_REASON_WAIT_MS,
        )) ?? err
      );
    }
  }

  /** The next answer line. Asked before its request is sent, and awaited after: when the
   *  send fails first (the session ended), nobody awaits it, and its rejection is no
   *  process's unhandled one (a node side that never started: a guess that missed). */
  private nextLine(): Promise<string> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    const answer: Promise<string> = this.closedBy
      ? Promise.reject(this.closedBy)
      : new Promise((resolve, reject) =>
          this.waiters.push((v) => (v instanceof Error ? reject(v) : resolve(v))),
        );
    answer.catch(() => {});
    return answer;
  }

  private onText(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop()!;
    for (const line of parts) {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    }
  }

  private shut(why: string): void {
    if (this.closedBy) return;
    this.closedBy = new TenderError(
      'infrastructure',
      `the workspace session with the node ended: ${why}`,
      'Push again: a new session is opened.',
    );
    this.onClose(this.closedBy);
    for (const waiter of this.waiters.splice(0)) waiter(this.closedBy);
    this.ch.close();
  }
}

/** No session could be opened; the node can still be pushed to one exec at a time. */
export class SessionOpenError extends TenderError {
  constructor(why: string) {
    super('infrastructure', `no workspace session with the node: ${why}`);
  }
}

const requestFrame = (req: ServeRequest): Buffer[] => frame(Buffer.from(JSON.stringify(req)));

const lastLine = (text: string): string => text.trim().split('\n').pop() ?? '';
