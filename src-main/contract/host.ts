// A machine of your own that the `ssh` provider rents out (`<home>/hosts.toml`).
import { z } from 'zod';

/** A machine of the `ssh` provider (hosts.toml). */
export const HostView = z.object({
  name: z.string(),
  host: z.string(),
  port: z.number().int(),
  user: z.string(),
  identityFile: z.string().nullable(),
  /** The run that holds it now, if any: a host runs one lease at a time. */
  claimedBy: z.string().nullable(),
});
export type HostView = z.infer<typeof HostView>;

export const HostInput = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, 'letters, digits, . _ - only'),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(22),
    user: z.string().min(1),
    identityFile: z.string().min(1).optional(),
  })
  .strict();
export type HostInput = z.input<typeof HostInput>;
