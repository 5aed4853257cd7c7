import type { CommandArgs, CommandName, CommandOutput } from './commands';

/** One handler per command; a missing one is a compile error. Each domain service serves a
 *  `Pick` of these, and the composition root joins them. */
export type Handlers = {
  [C in CommandName]: (args: CommandArgs<C>) => Promise<CommandOutput<C>>;
};
