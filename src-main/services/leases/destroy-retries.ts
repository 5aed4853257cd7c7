// Leases left `destroying` (a teardown gave up after its attempts: a host that refused the
// connection, an API that failed) are tried again until confirmed: each reconciliation
// pass of the writer hands such a lease here, and a NodeManager resumes its destroy for up
// to maxAttempts more attempts (the pass after tries again). A node a run driver in this
// process drives is left to it; `tender down` takes over the manager held here.
import type { Ledger } from '../../ledger/ledger';
import type { NodeManager } from '../../nodes/node-manager';
import type { Provider } from '../../providers/provider';
import type { NodeFactory } from '../nodes/node-factory';

export interface DestroyRetriesDeps {
  ledger: Pick<Ledger, 'getNode'>;
  factory: Pick<NodeFactory, 'manager'>;
  /** The manager a run driver in this process holds for the node, if any. */
  drivenManagerOf: (nodeId: string) => NodeManager | undefined;
  maxAttempts: () => number;
}

export class DestroyRetries {
  private readonly managers = new Map<string, NodeManager>();

  constructor(private readonly d: DestroyRetriesDeps) {}

  /** Hands over the manager retrying this node's destroy, if any: the caller now waits on
   *  it and stops it. */
  adopt(nodeId: string): NodeManager | undefined {
    const m = this.managers.get(nodeId);
    this.managers.delete(nodeId);
    return m;
  }

  /** Resumes the destroy of a node left `destroying` that nothing here is acting on. */
  retry(nodeId: string, provider: Provider): void {
    if (this.managers.has(nodeId) || this.d.drivenManagerOf(nodeId)) return;
    const rec = this.d.ledger.getNode(nodeId);
    if (!rec || rec.stage !== 'destroying') return;
    const m = this.d.factory.manager(rec, provider);
    this.managers.set(nodeId, m);
    const until = rec.destroyAttempts + this.d.maxAttempts();
    m.resume();
    void m
      .waitFor((r) => r.stage !== 'destroying' || r.destroyAttempts >= until)
      .then(() => {
        if (this.managers.get(nodeId) !== m) return; // adopted by a teardown
        m.stop();
        this.managers.delete(nodeId);
      });
  }
}
