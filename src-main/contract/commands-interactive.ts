// The commands that reach into a live node by hand: an interactive shell (pty) and port
// forwards (docs/forwards.md). Part of the one command table in commands.ts.
import { z } from 'zod';
import { ForwardView } from './forward-view';

export const interactiveCommands = {
  /** Opens an interactive shell (pty) on a node (`nodeId`: its key, `r-…/node-0`); output
   *  arrives as terminal.output events. */
  'terminal.open': {
    input: z.object({
      nodeId: z.string(),
      cols: z.number().int().min(10).max(1000).default(120),
      rows: z.number().int().min(4).max(500).default(32),
      term: z.string().default('xterm-256color'),
    }),
    output: z.object({ terminalId: z.string() }),
  },
  /** Keystrokes, base64. Resolves once the node has accepted them (back-pressure). */
  'terminal.input': {
    input: z.object({ terminalId: z.string(), data: z.string() }),
    output: z.object({}),
  },
  'terminal.resize': {
    input: z.object({
      terminalId: z.string(),
      cols: z.number().int().min(10).max(1000),
      rows: z.number().int().min(4).max(500),
    }),
    output: z.object({}),
  },
  'terminal.close': { input: z.object({ terminalId: z.string() }), output: z.object({}) },
  /** Opens a forward (docs/forwards.md): a listener on this machine's 127.0.0.1 that
   *  reaches the node's 127.0.0.1:remotePort over its SSH connection. `nodeName`: `node-0`
   *  (also `0`, or the node's key `r-…/node-0`; default: the run's first node).
   *  `localPort` absent: the same port, or a free one when that is taken; 0: a free one;
   *  another: that one, or bad_input when it is taken. The same forward asked twice
   *  answers the one open. */
  'forward.open': {
    input: z.object({
      runId: z.string(),
      nodeName: z.string().optional(),
      remotePort: z.number().int().min(1).max(65535),
      localPort: z.number().int().min(0).max(65535).optional(),
    }),
    output: ForwardView,
  },
  /** A reverse forward: the node's 127.0.0.1:nodePort reaches host:localPort from here
   *  (`nodeName` as for `forward.open`). */
  'forward.openRemote': {
    input: z.object({
      runId: z.string(),
      nodeName: z.string().optional(),
      nodePort: z.number().int().min(1).max(65535),
      host: z.string().min(1).default('localhost'),
      localPort: z.number().int().min(1).max(65535),
    }),
    output: ForwardView,
  },
  /** This process's forwards (of one run). */
  'forward.list': {
    input: z.object({ runId: z.string().optional() }).prefault({}),
    output: z.array(ForwardView),
  },
  /** Closes one forward (`nodeName` as for `forward.open`; `remotePort`: the node's port,
   *  either direction); closing one that is not open is no error. */
  'forward.close': {
    input: z.object({
      runId: z.string(),
      nodeName: z.string(),
      remotePort: z.number().int().min(1).max(65535),
      direction: z.enum(['local', 'remote']).default('local'),
    }),
    output: z.object({ closed: z.boolean() }),
  },
} as const;
