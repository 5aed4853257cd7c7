import type { AgentLogRecord } from '../../../src-agent/wire/protocol';
import type { Datastream } from '../../datastream/datastream';

/** Where a job's own progress lines go: the node's `events` channel, which is what the
 *  CLI prints as progress. */
export function eventNotes(
  datastream: Datastream,
  nodeId: string,
  now: () => number,
): (line: string) => void {
  return (line) =>
    datastream.append(nodeId, 'events', { source: 'event', stream: 'info', line, ts: now() });
}

type Waiter = { seq: number; release: () => void };

/** Stores one node's agent log records on its `agent` channel (same seq as the agent's, so
 *  a resumed stream's overlap is dropped), and tells when a given seq is stored. */
export class AgentLogSink {
  private readonly waiters = new Set<Waiter>();

  /** `baseSeq`: a claimed warm node's agent log up to here belongs to the runs before.
   *  `offset()`: a recovered attempt's new agent counts from 1 again; its records are
   *  stored after the ones before, at `seq + offset`. */
  constructor(
    private readonly datastream: Datastream,
    private readonly nodeId: string,
    private readonly baseSeq = 0,
    private readonly offset: () => number = () => 0,
  ) {}

  /** The first agent seq not yet stored: the link resumes the stream from here. */
  fromSeq(): number {
    return this.stored() - this.offset() + 1;
  }

  store(records: AgentLogRecord[]): void {
    const offset = this.offset();
    for (const r of records) {
      if (r.seq + offset <= this.baseSeq) continue;
      this.datastream.append(this.nodeId, 'agent', {
        seq: r.seq + offset,
        ts: r.ts,
        source: r.src,
        stream: r.stream,
        line: r.line,
      });
    }
    const stored = this.stored() - offset;
    for (const w of this.waiters) if (stored >= w.seq) w.release();
  }

  /** Resolves once every record up to `seq` is stored, or after `timeoutMs` (a record that
   *  never comes must not hold the job). Records only arrive through `store`, so it is what
   *  wakes the wait: nothing polls. */
  waitStored(seq: number, timeoutMs: number): Promise<void> {
    if (this.stored() - this.offset() >= seq) return Promise.resolve();
    return new Promise((resolve) => {
      const w: Waiter = {
        seq,
        release: () => {
          clearTimeout(timer);
          this.waiters.delete(w);
          resolve();
        },
      };
      const timer = setTimeout(w.release, timeoutMs);
      this.waiters.add(w);
    });
  }

  /** Ends every wait: the link is gone for good (detach), so no record will come. */
  releaseAll(): void {
    for (const w of this.waiters) w.release();
  }

  private stored(): number {
    return Math.max(this.baseSeq, this.datastream.lastSeq(this.nodeId, 'agent'));
  }
}
