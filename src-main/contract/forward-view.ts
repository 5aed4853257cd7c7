// Open port forwards as the UI and the CLI see them (docs/forwards.md); the specs they are
// opened from are in forward.ts.
import { z } from 'zod';
import { NodeKey } from './node-view';

/** One port forward of this process (docs/forwards.md). `local`: this machine's
 *  127.0.0.1:localPort reaches the node's 127.0.0.1:remotePort (in web mode "this machine"
 *  is the one serving the UI). `remote`: the node's 127.0.0.1:remotePort reaches
 *  host:localPort from here. */
export const ForwardView = z.object({
  runId: z.string(),
  /** The node's key (`NodeView.id`). */
  nodeId: NodeKey,
  direction: z.enum(['local', 'remote']),
  remotePort: z.number().int(),
  localPort: z.number().int(),
  /** Where a remote forward connects from here (`localhost`); `127.0.0.1` for a local one. */
  host: z.string(),
  /** `http://127.0.0.1:16006` for a local forward; null for a remote one. */
  url: z.string().nullable(),
  /** `TensorBoard` (6006), `Jupyter` (8888), else `port N` (contract/forward.ts). */
  label: z.string(),
  /** The last `?token=<hex>` the node's job printed (Jupyter's); null for none. */
  token: z.string().nullable(),
});
export type ForwardView = z.infer<typeof ForwardView>;

/** A run's forwards in this process changed (opened, closed, a token seen): all of them. */
export const ForwardsChanged = z.object({ runId: z.string(), forwards: z.array(ForwardView) });
export type ForwardsChanged = z.infer<typeof ForwardsChanged>;
