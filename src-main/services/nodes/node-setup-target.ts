// Which node `tender node setup <target>` means, and whether it can take a host-setup
// entry now; each refusal names the fix.
import { TenderError } from '../../base/tender-error';
import type { Ledger } from '../../ledger/ledger';
import type { NodeRecord } from '../../ledger/node-record';

const GONE = new Set(['destroying', 'destroyed', 'failed']);
/** A joined agent answers in these (the same as a terminal needs). */
const JOINED = new Set(['handed_off', 'dormant']);

/** A node id (`r-…/node-0`), a lease id (`vastai:123`) or a lease label. */
export function nodeForSetup(
  ledger: Pick<Ledger, 'getNode' | 'listLeases'>,
  target: string,
): NodeRecord {
  const lease = ledger.listLeases().find((l) => l.leaseId === target || l.label === target);
  let rec = ledger.getNode(lease?.nodeId ?? target);
  // A node whose warm lease a later run claimed: that run's node holds the machine now.
  for (let hops = 0; rec?.stage === 'released' && rec.releasedTo && hops < 100; hops++)
    rec = ledger.getNode(rec.releasedTo);
  if (!rec) {
    throw new TenderError(
      'not_found',
      `no lease or node ${target}`,
      '`tender status` lists the live leases and the nodes of each run',
    );
  }
  const name = rec.lease?.leaseId ?? rec.label;
  if (GONE.has(rec.stage)) {
    throw new TenderError(
      'conflict',
      `node ${name} is ${rec.stage}: its host setup went with it`,
      'keep a node after its job (`tender run --keep`) and append to that one',
    );
  }
  if (!JOINED.has(rec.stage) || !rec.agent || !rec.connection) {
    throw new TenderError(
      'conflict',
      `node ${name} is ${rec.stage}: its agent has not joined yet`,
      'append once `tender status` shows it dormant or handed_off',
    );
  }
  return rec;
}
