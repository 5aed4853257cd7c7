import type { TenderClient } from '../contract';
import type { EventBus } from '../base/event-bus';
import { dispatch, type Handlers } from './dispatch';

export type { TenderClient } from '../contract';

/** The in-process client: the CLI and the tests use this one directly. */
export function createInProcessClient(handlers: Handlers, bus: EventBus): TenderClient {
  return {
    invoke: (command, input) => dispatch(handlers, command, input),
    on: (topic, handler) => bus.on(topic, handler),
  };
}
