import { formatDuration, pullText, type NodePull } from '../../contract';
import type { NodeRecord } from '../../ledger/node-record';

/** One line a minute at most while a pull only moves on: a 40-minute pull is 40 lines in
 *  the CLI, not 240 (one per look). Every change is in the node's bootstrap log anyway. */
const PULL_NOTE_EVERY_MS = 60_000;

/** A provisioning lease's status in the node's event stream, with the time the wait has
 *  taken — the stage line the CLI prints (`» node lease_created: loading: … · waiting 3m10s`)
 *  and the app's log shows. Written when the provider's words change: at once when they
 *  start or stop being about an image pull, else at most once a minute. */
export function pullNoter(
  now: () => number,
  write: (rec: NodeRecord, line: string) => void,
): (rec: NodeRecord, pull: NodePull) => void {
  let lastAt = -Infinity;
  let wasPull: boolean | null = null;
  return (rec, pull) => {
    const t = now();
    if (pull.isImagePull === wasPull && t - lastAt < PULL_NOTE_EVERY_MS) return;
    lastAt = t;
    wasPull = pull.isImagePull;
    const waited = formatDuration(Math.max(1_000, t - pull.since));
    write(rec, `node ${rec.stage}: ${pullText(pull)} · waiting ${waited}`);
  };
}
