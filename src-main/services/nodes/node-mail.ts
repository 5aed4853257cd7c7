import type { Ledger } from '../../ledger/ledger';
import type { NodeMsg } from '../../nodes/messages';
import type { NodeManager } from '../../nodes/node-manager';
import type { Provider } from '../../providers/provider';
import type { NodeFactory } from './node-factory';

export interface NodeMailDeps {
  ledger: Pick<Ledger, 'getNode'>;
  factory: Pick<NodeFactory, 'manager'>;
  /** The manager a run driven by this process holds for the node, if any. */
  managerOf: (nodeId: string) => NodeManager | undefined;
}

/** Hands a fact about a node to its NodeManager: the one a run driver here owns, or a
 *  short-lived one that records the fact and starts nothing (nobody drives the node here). */
export function nodeMail(d: NodeMailDeps) {
  return (nodeId: string, provider: Provider, msg: NodeMsg): void => {
    const owned = d.managerOf(nodeId);
    if (owned) return owned.send(msg);
    const rec = d.ledger.getNode(nodeId);
    if (!rec) return;
    const m = d.factory.manager(rec, provider);
    m.send(msg);
    m.stop();
  };
}
