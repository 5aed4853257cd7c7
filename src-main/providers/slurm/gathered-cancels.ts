// Teardown of Slurm leases: cancels asked for close together on one cluster become one
// `scancel` (Tear down all of 20 allocations: one round trip, not 20).
import type { ClusterEntry } from './clusters-file';

/** Cancels asked for within this are one `scancel`. */
const CANCEL_GATHER_MS = 30;

/** Sends the gathered job ids of one cluster (one `scancel`), under the first asker's
 *  signal. */
export type SendCancels = (c: ClusterEntry, ids: string[], signal: AbortSignal) => Promise<void>;

export class GatheredCancels {
  private readonly cancels = new Map<string, { ids: Set<string>; done: Promise<void> }>();

  constructor(private readonly send: SendCancels) {}

  /** Settles when the `scancel` carrying `id` has (every cancel asked within
   *  CANCEL_GATHER_MS on the cluster). */
  cancel(c: ClusterEntry, id: string, signal: AbortSignal): Promise<void> {
    const pending = this.cancels.get(c.name);
    if (pending) {
      pending.ids.add(id);
      return pending.done;
    }
    const ids = new Set([id]);
    const done = new Promise<void>((resolve, reject) => {
      setTimeout(() => {
        this.cancels.delete(c.name);
        this.send(c, [...ids], signal).then(() => resolve(), reject);
      }, CANCEL_GATHER_MS);
    });
    this.cancels.set(c.name, { ids, done });
    return done;
  }
}
