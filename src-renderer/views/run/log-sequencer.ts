import type { LogChannel, LogRecord } from '../../../src-main/contract';

export const CHANNELS: readonly LogChannel[] = ['bootstrap', 'agent', 'events'];

/**
 * One node's log, kept in order: every (channel, seq) once. Seqs count per channel, so each
 * channel has its own cursor. Live records must extend a channel without a hole (a missed
 * event batch, a dropped socket); stored records, read from the datastream by seq, are the
 * truth and may skip seqs the store never had.
 */
export class NodeSequencer {
  private readonly cursor: Record<LogChannel, number> = { bootstrap: 0, agent: 0, events: 0 };

  last(channel: LogChannel): number {
    return this.cursor[channel];
  }

  /** Live records: duplicates dropped; after a hole the rest of that channel is refused
   *  and the hole's first seq reported, to be read from the store. */
  acceptLive(records: readonly LogRecord[]): {
    fresh: LogRecord[];
    gaps: Map<LogChannel, number>;
  } {
    const fresh: LogRecord[] = [];
    const gaps = new Map<LogChannel, number>();
    for (const r of bySeq(records)) {
      if (gaps.has(r.channel)) continue;
      const last = this.cursor[r.channel];
      if (r.seq <= last) continue;
      if (r.seq > last + 1) {
        gaps.set(r.channel, last + 1);
        continue;
      }
      this.cursor[r.channel] = r.seq;
      fresh.push(r);
    }
    return { fresh, gaps };
  }

  /** Gives up on seqs up to `seq` of a channel (the store does not have them). */
  skipTo(channel: LogChannel, seq: number): void {
    this.cursor[channel] = Math.max(this.cursor[channel], seq);
  }

  /** Records read from the store: anything past the cursor, in seq order per channel. */
  acceptStored(records: readonly LogRecord[]): LogRecord[] {
    const fresh: LogRecord[] = [];
    for (const r of records) {
      if (r.seq <= this.cursor[r.channel]) continue;
      this.cursor[r.channel] = r.seq;
      fresh.push(r);
    }
    return fresh;
  }
}

/** Each channel's records in seq order, each channel keeping the slots it arrived in. */
function bySeq(records: readonly LogRecord[]): readonly LogRecord[] {
  const lastOf = new Map<LogChannel, number>();
  let sorted = true;
  for (const r of records) {
    if ((lastOf.get(r.channel) ?? 0) > r.seq) sorted = false;
    lastOf.set(r.channel, r.seq);
  }
  if (sorted) return records;
  const queues = new Map<LogChannel, LogRecord[]>();
  for (const r of records) {
    const q = queues.get(r.channel) ?? [];
    q.push(r);
    queues.set(r.channel, q);
  }
  for (const q of queues.values()) q.sort((a, b) => a.seq - b.seq);
  const next = new Map<LogChannel, number>();
  return records.map((r) => {
    const i = next.get(r.channel) ?? 0;
    next.set(r.channel, i + 1);
    return queues.get(r.channel)![i]!;
  });
}

/** Records of several channels in the order they happened (ties: channel order, then seq). */
export function byTime(records: LogRecord[]): LogRecord[] {
  const rank = (c: LogChannel) => CHANNELS.indexOf(c);
  return records.sort((a, b) => a.ts - b.ts || rank(a.channel) - rank(b.channel) || a.seq - b.seq);
}
