import { tokensIn } from '../../contract/forward';
import { isDataSource, type LogRecord } from '../../contract';

const PAGE = 10_000;

interface Seen {
  token: string;
  seq: number;
}

/** The tokens one node's job printed (a Jupyter `?token=<hex>`), read from its agent log in
 *  the datastream once, from where the last read stopped, and fed from live batches. */
export class TokenWatch {
  /** The last token per port its URL named (null: none named), with the record's seq. */
  readonly #byPort = new Map<number | null, Seen>();
  #nextSeq = 1;
  #reading: Promise<void> = Promise.resolve();

  constructor(private readonly read: (fromSeq: number, limit: number) => Promise<LogRecord[]>) {}

  /** The next seq wanted: every record below it was seen. */
  get nextSeq(): number {
    return this.#nextSeq;
  }

  /** Reads what the datastream holds beyond the last record seen (one read at a time). */
  refresh(): Promise<void> {
    this.#reading = this.#reading.then(async () => {
      for (;;) {
        const page = await this.read(this.#nextSeq, PAGE).catch(() => []);
        this.feed(page);
        if (page.length < PAGE) return;
      }
    });
    return this.#reading;
  }

  /** Takes a live batch of this node's records: read in place when it follows what was
   *  seen, else from the datastream (a gap). Resolves true when a token changed. */
  async live(records: readonly LogRecord[]): Promise<boolean> {
    const agent = records.filter((r) => r.channel === 'agent');
    if (agent.length === 0) return false;
    if (agent[0]!.seq <= this.#nextSeq) return this.feed(agent);
    const before = this.#snapshot();
    await this.refresh();
    return this.#snapshot() !== before;
  }

  #snapshot(): string {
    return [...this.#byPort.values()].map((s) => s.token).join(',');
  }

  /** Takes records of this node in seq order (a page read); true when a token changed. */
  feed(records: readonly LogRecord[]): boolean {
    let changed = false;
    for (const r of records) {
      if (r.channel !== 'agent' || r.seq < this.#nextSeq) continue;
      this.#nextSeq = r.seq + 1;
      if (isDataSource(r.source)) continue;
      for (const t of tokensIn(r.line)) {
        if (this.#byPort.get(t.port)?.token !== t.token) changed = true;
        this.#byPort.set(t.port, { token: t.token, seq: r.seq });
      }
    }
    return changed;
  }

  /** The token for a forward of node port `port`: the last one on a URL naming that port,
   *  or naming none. */
  tokenFor(port: number): string | null {
    const named = this.#byPort.get(port);
    const bare = this.#byPort.get(null);
    if (!named) return bare?.token ?? null;
    if (!bare) return named.token;
    return named.seq >= bare.seq ? named.token : bare.token;
  }
}
