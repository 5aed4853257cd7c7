import { z } from 'zod';

/** A file a node's job gave back, as pulled into the run's outputs folder. */
export const OutputFile = z.object({ nodeId: z.string(), path: z.string(), size: z.number() });
export type OutputFile = z.infer<typeof OutputFile>;
