// The GPU idle rule's firings (`[policy] gpu_idle`), as the nodes' agents log them (src
// `gpu_idle` on the agent channel): the ledger's writer journals each one (`gpu_idle.fired`)
// as the datastream stores it — live over the link, or at the next look's backfill when
// nobody was connected — and a node's view reads the latest back from the journal.
import { decodeGpuIdleFiring } from '../../../src-agent/wire/gpu-idle';
import { GpuIdleFired, type LogRecord } from '../../contract';
import type { Ledger } from '../../ledger/ledger';

export const GPU_IDLE_FIRED = 'gpu_idle.fired';

export interface GpuIdleFiringsDeps {
  ledger: Pick<Ledger, 'append'>;
  /** Only the ledger's writer journals. */
  isWriter: boolean;
  now: () => number;
  /** A node whose view changed (its firing). */
  onChange: (nodeId: string) => void;
}

/** A datastream batch: journals the firings in it. The datastream stores a record once
 *  (same seq), so each firing is journaled once. */
export function journalGpuIdleFirings(d: GpuIdleFiringsDeps, records: readonly LogRecord[]): void {
  for (const r of records) {
    if (r.channel !== 'agent' || r.source !== 'gpu_idle') continue;
    const f = decodeGpuIdleFiring(r.line);
    if (!f) continue;
    if (d.isWriter)
      d.ledger.append({
        ts: d.now(),
        runId: r.run,
        nodeId: r.node,
        kind: GPU_IDLE_FIRED,
        data: { ...f, seq: r.seq },
      });
    d.onChange(r.node);
  }
}

/** The node's latest firing from the journal; null: none. */
export function lastGpuIdleFiring(
  ledger: Pick<Ledger, 'lastNodeEvent'>,
  nodeId: string,
): GpuIdleFired | null {
  const row = ledger.lastNodeEvent(nodeId, GPU_IDLE_FIRED);
  const parsed = row ? GpuIdleFired.safeParse(row.data) : null;
  return parsed?.success ? parsed.data : null;
}
