// The commands about the files a run is given and gives back: its workspace (previewed,
// synced into live nodes) and its outputs. Part of the one command table in commands.ts.
import { z } from 'zod';
import { OutputFile } from './output-file';
import { WorkspacePreview } from './workspace-preview';

export const fileCommands = {
  'workspace.preview': {
    input: z
      .object({ workdir: z.string().min(1), exclude: z.array(z.string()).default([]) })
      .strict(),
    output: WorkspacePreview,
  },
  /** Pushes what changed in a run's workspace into each node running its job, in place:
   *  the job keeps its cwd and the files it made. Writes nothing to the ledger. */
  'workspace.sync': {
    input: z.object({ runId: z.string() }),
    output: z.object({
      nodes: z.array(
        z.object({
          nodeId: z.string(),
          mode: z.enum(['full', 'delta']),
          filesSent: z.number(),
          bytesSent: z.number(),
          deleted: z.number(),
          unchanged: z.number(),
          elapsedMs: z.number(),
        }),
      ),
    }),
  },
  'outputs.list': { input: z.object({ runId: z.string() }), output: z.array(OutputFile) },
  /** Opens a node's outputs folder in the file manager of the machine running Tender.
   *  `nodeName`: `node-0` (its key `r-…/node-0` is taken too); with `cellId`, that sweep
   *  cell's outputs instead. */
  'outputs.open': {
    input: z.object({ runId: z.string(), nodeName: z.string(), cellId: z.string().optional() }),
    output: z.object({ path: z.string() }),
  },
  /** The native folder picker (desktop app only; web mode types the path instead). */
  'app.pickFolder': {
    input: z.object({}).default({}),
    output: z.object({ path: z.string().nullable() }),
  },
} as const;
