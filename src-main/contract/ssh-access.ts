// The user's own ssh and editors on a node (docs/own-tools.md): whether their ssh reads
// Tender's entries (the Include in ~/.ssh/config), and each node's alias and folder.
import { z } from 'zod';

/** The one `Include` line `tender ssh-config --install` adds, and whether it is there. */
export const SshIncludeView = z.object({
  installed: z.boolean(),
  /** `Include <data folder>/ssh/config`, exactly as written. */
  line: z.string(),
  /** The user's ssh config the line goes into (~/.ssh/config). */
  userConfig: z.string(),
});
export type SshIncludeView = z.infer<typeof SshIncludeView>;

/** A node (or a run: its first node with an entry) as the user's own ssh sees it: its
 *  alias when Tender's ssh config has an entry for it, else why not (a Slurm compute node,
 *  a local folder, a destroyed lease…). */
export const NodeSshAccess = z.object({
  alias: z.string(),
  /** An entry for `alias` is in Tender's ssh config now. */
  hasEntry: z.boolean(),
  /** Why there is no entry; null when there is one. */
  why: z.string().nullable(),
  /** The node's workspace on the node; null: not known (the agent has not said). */
  workdir: z.string().nullable(),
  /** The node the alias reaches; null when none does. */
  logicalId: z.string().nullable(),
  include: SshIncludeView,
});
export type NodeSshAccess = z.infer<typeof NodeSshAccess>;

export const sshAccessCommands = {
  /** Whether the user's ssh reads Tender's node entries. */
  'sshConfig.get': { input: z.object({}).default({}), output: SshIncludeView },
  /** `tender ssh-config --install`: adds the Include line (atomically, never twice). */
  'sshConfig.install': { input: z.object({}).default({}), output: SshIncludeView },
  /** `tender ssh-config --uninstall`: removes that line and nothing else. */
  'sshConfig.uninstall': { input: z.object({}).default({}), output: SshIncludeView },
  /** One node's alias, folder and whether it has an entry (rebuilt from the ledger now). */
  'node.sshAccess': {
    input: z.object({ runId: z.string().min(1), logicalId: z.string().min(1) }),
    output: NodeSshAccess,
  },
  /** The run's alias `tender-<runId>` (its first node with an entry), as `tender open <runId>`. */
  'run.sshAccess': {
    input: z.object({ runId: z.string().min(1) }),
    output: NodeSshAccess,
  },
} as const;
