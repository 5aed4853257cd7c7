import type { Handlers } from '../../contract';
import type { ForwardService } from './forward-service';

type ForwardHandlers = Pick<
  Handlers,
  'forward.open' | 'forward.openRemote' | 'forward.list' | 'forward.close'
>;

/** Port forwards of this process (docs/forwards.md): a reader may open them too, since they
 *  change nothing in the ledger. */
export function forwardHandlers(d: { forwards: ForwardService }): ForwardHandlers {
  return {
    'forward.open': ({ runId, nodeName, remotePort, localPort }) =>
      d.forwards.open(runId, nodeName, { remotePort, localPort: localPort ?? null }),
    'forward.openRemote': ({ runId, nodeName, nodePort, host, localPort }) =>
      d.forwards.openRemote(runId, nodeName, { nodePort, host, localPort }),
    'forward.list': ({ runId }) => d.forwards.list(runId),
    'forward.close': async ({ runId, nodeName, remotePort, direction }) => ({
      closed: await d.forwards.close(runId, nodeName, remotePort, direction),
    }),
  };
}
