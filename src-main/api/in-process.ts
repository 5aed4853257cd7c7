import type { CommandInput, CommandName, CommandOutput, EventName, Result } from '../contract';
import type { EventBus, EventHandler } from '../base/event-bus';
import { dispatch, type Handlers } from './dispatch';

/** The client every transport offers: the CLI and the tests use this one directly. */
export interface TenderClient {
  invoke<C extends CommandName>(
    command: C,
    input: CommandInput<C>,
  ): Promise<Result<CommandOutput<C>>>;
  on<E extends EventName>(topic: E, handler: EventHandler<E>): () => void;
}

export function createInProcessClient(handlers: Handlers, bus: EventBus): TenderClient {
  return {
    invoke: (command, input) => dispatch(handlers, command, input),
    on: (topic, handler) => bus.on(topic, handler),
  };
}
