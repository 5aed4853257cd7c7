import type { Handlers } from '../../contract';
import type { Ledger } from '../../ledger/ledger';
import type { NodeFactory } from './node-factory';
import { appendHostSetup } from './host-setup-append';
import { nodeForSetup } from './node-setup-target';

/** A node that does not answer within this is reported, not waited on for ever. */
const CONNECT_DEADLINE_MS = 60_000;

/** `node.setup`: host setup appended to a live node (`tender node setup`, the run view's
 *  field). Writes nothing to the ledger, so a read-only core can do it too. */
export function nodeSetupHandlers(d: {
  ledger: Pick<Ledger, 'getNode' | 'listLeases'>;
  factory: Pick<NodeFactory, 'connector'>;
}): Pick<Handlers, 'node.setup'> {
  return {
    'node.setup': async ({ target, script, name, refreshCapabilities, wait }) => {
      const rec = nodeForSetup(d.ledger, target);
      const connect = () =>
        d.factory.connector(rec.connection!, CONNECT_DEADLINE_MS)(new AbortController().signal);
      return appendHostSetup(
        rec,
        connect,
        {
          script,
          ...(name ? { name } : {}),
          ...(refreshCapabilities ? { refreshCapabilities } : {}),
        },
        wait,
      );
    },
  };
}
