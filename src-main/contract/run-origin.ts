// Who started a run: `cli`, `app`, or `mcp:<client name>` (an agent over `tender mcp`).
// Shown beside the run (`tender status`, the run view, the ledger) so that what an agent
// rented is attributable; stored with the run. Runs made before origins existed have none.
import { z } from 'zod';

/** Long enough for "mcp:" and any client's name; short enough for a status column. */
export const RUN_ORIGIN_MAX = 80;

/** C0/C1 controls and format characters (bidi overrides, zero-width): an origin is printed
 *  to terminals and pages, where these would rewrite what is shown. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;

/** A run's origin as a request gives it: trimmed, 1–80 characters, printable. */
export const RunOrigin = z
  .string()
  .trim()
  .min(1, 'an origin is a short name such as "cli" or "mcp:claude-code"; leave it out for none')
  .max(RUN_ORIGIN_MAX, `an origin is at most ${RUN_ORIGIN_MAX} characters`)
  .refine((s) => !UNPRINTABLE.test(s), {
    message: 'an origin is printable text: no control or format characters',
  });

/** The origins Tender's own front ends give. */
export const CLI_ORIGIN = 'cli';
export const APP_ORIGIN = 'app';

/** `mcp:<client>` for an MCP client's self-reported name (any text: it comes from the
 *  client), made printable and short enough to pass `RunOrigin`; `mcp` without a name. */
export function mcpOrigin(clientName: string | undefined): string {
  const name = (clientName ?? '').replace(new RegExp(UNPRINTABLE.source, 'gu'), '').trim();
  if (!name) return 'mcp';
  // Cut to the limit without leaving half of a surrogate pair behind.
  return `mcp:${name}`
    .slice(0, RUN_ORIGIN_MAX)
    .replace(/[\uD800-\uDBFF]$/, '')
    .trim();
}
