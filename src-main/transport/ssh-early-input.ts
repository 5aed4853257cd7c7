// Where a command's input may start. OpenSSH's client sends a command's stdin as soon as the
// server has opened the command's channel, right behind the exec request, not after the
// request's answer: the server takes requests and data in order. ssh2 hands the channel
// over only with the answer, a round trip later, which a push whose bytes wait for it pays
// on a far link (40 ms at 40 ms). This hooks ssh2's sending of the request to hand the
// channel over then. It is written against ssh2's internals (1.17: `_protocol.exec`,
// `_chanMgr._channels`); where they are not what it expects nothing is hooked, and input
// starts with the answer as before.
import type { Client, ClientChannel } from 'ssh2';

type SendExec = (remoteId: number, command: string, wantReply: boolean) => void;

interface Internals {
  _protocol?: { exec?: SendExec };
  _chanMgr?: { _channels?: Record<string, unknown> };
}

interface OpenChannel {
  incoming: { id: number };
  outgoing: { id: number };
}

const isOpenChannel = (v: unknown): v is OpenChannel =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as OpenChannel).incoming?.id === 'number' &&
  typeof (v as OpenChannel).outgoing?.id === 'number';

export class EarlyInput {
  /** Whether ssh2's internals were found and hooked. */
  readonly isHooked: boolean;
  /** Execs whose channel was handed over before the answer (tests and the bench's notes). */
  handedEarly = 0;
  /** By the channel's local id: who takes it once its exec request is sent. */
  private readonly waiting = new Map<number, (ch: ClientChannel) => void>();

  constructor(private readonly client: Client) {
    const proto = (client as unknown as Internals)._protocol;
    const send = proto?.exec;
    this.isHooked = typeof send === 'function' && this.channels() !== null;
    if (!this.isHooked) return;
    proto!.exec = (remoteId, command, wantReply) => {
      send!.call(proto, remoteId, command, wantReply); // the request goes out first
      this.requested(remoteId);
    };
  }

  /** Starts `command` as `client.exec` does (`cb` with its answer), and hands its channel to
   *  `onRequested` once the request is sent, before the answer (not at all where ssh2's
   *  internals are not hooked, or the channel never opens). */
  exec(
    command: string,
    onRequested: (ch: ClientChannel) => void,
    cb: (err: Error | undefined, ch: ClientChannel) => void,
  ): void {
    const before = this.isHooked ? new Set(this.localIds()) : null;
    const taken: { id?: number } = {};
    this.client.exec(command, (err, ch) => {
      if (taken.id !== undefined) this.waiting.delete(taken.id); // answered: nothing to hand over
      cb(err, ch);
    });
    // The channel's local id was taken synchronously, by the exec call just made.
    taken.id = before ? this.localIds().find((id) => !before.has(id)) : undefined;
    if (taken.id !== undefined) this.waiting.set(taken.id, onRequested);
  }

  private requested(remoteId: number): void {
    const channels = this.channels();
    if (!channels) return;
    for (const ch of Object.values(channels)) {
      if (!isOpenChannel(ch) || ch.outgoing.id !== remoteId) continue;
      const take = this.waiting.get(ch.incoming.id);
      this.waiting.delete(ch.incoming.id);
      if (!take) return;
      this.handedEarly++;
      return take(ch as unknown as ClientChannel);
    }
  }

  private channels(): Record<string, unknown> | null {
    const channels = (this.client as unknown as Internals)._chanMgr?._channels;
    return typeof channels === 'object' && channels !== null ? channels : null;
  }

  private localIds(): number[] {
    return Object.keys(this.channels() ?? {}).map(Number);
  }
}
