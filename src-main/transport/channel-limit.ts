/** One place in the queue for a channel. `ready` resolves true when the channel may open,
 *  false when it never will (cancelled, or the connection is gone). */
export interface ChannelTicket {
  readonly ready: Promise<boolean>;
  /** Frees the slot, or leaves the queue if not yet granted. Idempotent. */
  release(): void;
}

/** Caps the channels open on one connection. OpenSSH's default MaxSessions is 10 and a
 *  channel over the limit fails to open rather than waiting, so waiting happens here. */
export class ChannelLimit {
  private inUse = 0;
  private readonly waiting: { grant: (ok: boolean) => void }[] = [];
  private isShut = false;

  constructor(readonly max: number) {}

  get open(): number {
    return this.inUse;
  }

  take(): ChannelTicket {
    let state: 'waiting' | 'granted' | 'done' = 'waiting';
    let grant!: (ok: boolean) => void;
    const ready = new Promise<boolean>((resolve) => {
      grant = (ok) => {
        if (state !== 'waiting') return;
        state = ok ? 'granted' : 'done';
        resolve(ok);
      };
    });
    const entry = { grant };
    if (this.isShut) grant(false);
    else if (this.inUse < this.max) {
      this.inUse++;
      grant(true);
    } else this.waiting.push(entry);
    return {
      ready,
      release: () => {
        if (state === 'granted') {
          state = 'done';
          this.inUse--;
          this.next();
        } else if (state === 'waiting') {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          grant(false);
        }
      },
    };
  }

  /** The connection is gone: every waiter (and every later taker) is told no. */
  shut(): void {
    this.isShut = true;
    for (const w of this.waiting.splice(0)) w.grant(false);
  }

  private next(): void {
    if (this.isShut) return;
    const w = this.waiting.shift();
    if (!w) return;
    this.inUse++;
    w.grant(true);
  }
}
