// The events of an interactive shell on a node (`terminal.open`).
import { z } from 'zod';

export const TerminalOutput = z.object({
  terminalId: z.string(),
  /** base64: terminal output is bytes, not always valid UTF-8 at chunk boundaries. */
  data: z.string(),
});
export const TerminalExit = z.object({ terminalId: z.string(), code: z.number().nullable() });
