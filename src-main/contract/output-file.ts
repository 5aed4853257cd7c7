import { z } from 'zod';

/** A file a node's job gave back, as pulled into the run's outputs folder. A sweep cell's
 *  files carry its `cellId` (and `nodeId` the node that ran it; empty when none is known). */
export const OutputFile = z.object({
  nodeId: z.string(),
  cellId: z.string().optional(),
  path: z.string(),
  size: z.number(),
});
export type OutputFile = z.infer<typeof OutputFile>;
