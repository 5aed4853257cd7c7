import type { z } from 'zod';
import { fileCommands } from './commands-files';
import { interactiveCommands } from './commands-interactive';
import { leaseCommands } from './commands-leases';
import { logCommands } from './commands-logs';
import { runCommands } from './commands-run';
import { settingsCommands } from './commands-settings';
import { sshAccessCommands } from './ssh-access';
import { ForwardsChanged } from './forward-view';
import { LeaseView } from './lease-view';
import { LogBatch } from './log-record';
import { NodeView } from './node-view';
import { RunView } from './run-view';
import { TerminalExit, TerminalOutput } from './terminal';

/** Every command: name → input schema, output schema. The handler table is typed from this,
 *  so a missing handler is a compile error; every transport parses input at the boundary.
 *  Each group lives in its own file (commands-*.ts), by what its commands are about. */
export const commands = {
  ...runCommands,
  ...logCommands,
  ...leaseCommands,
  ...fileCommands,
  ...settingsCommands,
  ...interactiveCommands,
  ...sshAccessCommands,
} as const;

export const events = {
  'run.changed': RunView,
  'node.changed': NodeView,
  'lease.changed': LeaseView,
  'log.lines': LogBatch,
  'terminal.output': TerminalOutput,
  'terminal.exit': TerminalExit,
  'forward.changed': ForwardsChanged,
} as const;

export type Commands = typeof commands;
export type CommandName = keyof Commands;
export type CommandInput<C extends CommandName> = z.input<Commands[C]['input']>;
export type CommandArgs<C extends CommandName> = z.output<Commands[C]['input']>;
export type CommandOutput<C extends CommandName> = z.output<Commands[C]['output']>;
export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;
