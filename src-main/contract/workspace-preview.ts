import { z } from 'zod';

/** What a push of a workspace would send, what it leaves out and why, and likely secrets. */
export const WorkspacePreview = z.object({
  root: z.string(),
  files: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  excluded: z.array(
    z.object({
      path: z.string(),
      reason: z.enum(['git', 'gitignore', 'exclude', 'special']),
      rule: z.string().optional(),
      source: z.string().optional(),
    }),
  ),
  secrets: z.array(z.object({ path: z.string(), pattern: z.string() })),
  largest: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative() })).max(10),
});
export type WorkspacePreview = z.infer<typeof WorkspacePreview>;
