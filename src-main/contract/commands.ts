import { z } from 'zod';
import { JobSpec, PoolSpec } from './job';
import {
  DestroyAllReport,
  LeaseView,
  LogBatch,
  LogChannel,
  LogRecord,
  NodeView,
  RunView,
  StatusView,
} from './views';

/** Every command: name → input schema, output schema. The handler table is typed from this,
 *  so a missing handler is a compile error; every transport parses input at the boundary. */
export const commands = {
  'run.start': {
    input: z.object({
      job: JobSpec,
      pool: PoolSpec,
      /** Keep nodes after the job ends (for debugging); they stay billed and listed. */
      keep: z.boolean().default(false),
      /** Where the job came from, for display only. */
      source: z.string().optional(),
    }),
    output: RunView,
  },
  'run.get': { input: z.object({ runId: z.string() }), output: RunView },
  'run.list': { input: z.object({}).default({}), output: z.array(RunView) },
  /** OperatorStop: cancels the job (SIGTERM, grace, SIGKILL), collects outputs best effort,
   *  tears the nodes down. The run ends failed with reason "cancelled". */
  'run.cancel': { input: z.object({ runId: z.string() }), output: RunView },
  /** Stops driving the run from this process; the agents keep running the job. */
  'run.detach': { input: z.object({ runId: z.string() }), output: RunView },
  /** Drives a detached run again: reattaches the logs and finishes its lifecycle. */
  'run.attach': { input: z.object({ runId: z.string() }), output: RunView },
  'status.get': { input: z.object({}).default({}), output: StatusView },
  'logs.read': {
    input: z.object({
      runId: z.string(),
      nodeId: z.string().optional(),
      channel: LogChannel.optional(),
      fromSeq: z.number().int().min(1).default(1),
      limit: z.number().int().min(1).max(100_000).default(10_000),
    }),
    output: z.object({ records: z.array(LogRecord) }),
  },
  'node.destroy': { input: z.object({ nodeId: z.string() }), output: NodeView },
  /** Destroys every live lease (and, with `orphans`, every orphan) in parallel and waits for
   *  the provider to confirm each is gone. */
  'lease.destroyAll': {
    input: z.object({ orphans: z.boolean().default(true) }).default({ orphans: true }),
    output: DestroyAllReport,
  },
  'lease.list': { input: z.object({}).default({}), output: z.array(LeaseView) },
} as const;

export const events = {
  'run.changed': RunView,
  'node.changed': NodeView,
  'lease.changed': LeaseView,
  'log.lines': LogBatch,
} as const;

export type Commands = typeof commands;
export type CommandName = keyof Commands;
export type CommandInput<C extends CommandName> = z.input<Commands[C]['input']>;
export type CommandArgs<C extends CommandName> = z.output<Commands[C]['input']>;
export type CommandOutput<C extends CommandName> = z.output<Commands[C]['output']>;
export type Events = typeof events;
export type EventName = keyof Events;
export type EventPayload<E extends EventName> = z.output<Events[E]>;
