import type { CommandInput, CommandName, CommandOutput, EventName, EventPayload } from './commands';
import type { Result } from './errors';

/** The client every transport offers: in process (the CLI and the tests), the preload's
 *  `window.tender` (desktop) and the WebSocket client (web mode). Errors come back as data. */
export interface TenderClient {
  invoke<C extends CommandName>(
    command: C,
    input: CommandInput<C>,
  ): Promise<Result<CommandOutput<C>>>;
  on<E extends EventName>(topic: E, handler: (payload: EventPayload<E>) => void): () => void;
}
