import { toErrorData } from '../base/tender-error';
import { TENDER_VERSION } from '../base/version';
import { bidCommand, BID_USAGE } from './commands/bid';
import { downCommand, DOWN_USAGE } from './commands/down';
import { hostsCommand, HOSTS_USAGE } from './commands/hosts';
import { clustersCommand, CLUSTERS_USAGE } from './commands/clusters';
import { offersCommand, OFFERS_USAGE } from './commands/offers';
import { pushCommand, PUSH_USAGE } from './commands/push';
import { serveCommand, SERVE_USAGE } from './commands/serve';
import { sshCommand, SSH_USAGE } from './commands/ssh';
import { sshConfigCommand, SSH_CONFIG_USAGE } from './commands/ssh-config';
import { openCommand, OPEN_USAGE } from './commands/open';
import { forwardCommand, FORWARD_USAGE } from './commands/forward';
import { nodeCommand, NODE_USAGE } from './commands/node-setup';
import { logsCommand, LOGS_USAGE } from './commands/logs';
import { MCP_USAGE } from './mcp/mcp-flags';
import { runCommand, RUN_USAGE } from './commands/run';
import { importCommand, IMPORT_USAGE } from './commands/import';
import { rerunCommand, RERUN_USAGE } from './commands/rerun';
import { receiptCommand, RECEIPT_USAGE } from './commands/receipt';
import { metricsCommand, METRICS_USAGE } from './commands/metrics';
import { cancelCommand, CANCEL_USAGE, cellsCommand, CELLS_USAGE } from './commands/cells';
import { statusCommand } from './commands/status';
import { COST_USAGE, costCommand } from './commands/cost';
import { syncCommand, SYNC_USAGE } from './commands/sync';
import { cliContext } from './context';
import { EXIT } from './exit-codes';
import { printError } from './output';
import { usePrivateUmask } from '../base/private-files';

const VERSION = TENDER_VERSION;

const USAGE = `tender ${VERSION} — rent GPU nodes, run a job, get the outputs back, leak nothing.

usage:
  ${RUN_USAGE}
  ${IMPORT_USAGE}
  ${RERUN_USAGE}
  tender status [--json]
  ${CELLS_USAGE}
  ${CANCEL_USAGE}
  ${COST_USAGE}
  ${RECEIPT_USAGE}
  ${METRICS_USAGE}
  ${LOGS_USAGE}
  ${SYNC_USAGE}
  ${DOWN_USAGE}
  ${BID_USAGE}
  ${SERVE_USAGE}
  ${OFFERS_USAGE}
  ${PUSH_USAGE}
  ${HOSTS_USAGE}
  ${CLUSTERS_USAGE}
  ${SSH_USAGE}
  ${SSH_CONFIG_USAGE}
  ${OPEN_USAGE}
  ${FORWARD_USAGE}
  ${NODE_USAGE}
  ${MCP_USAGE}

The data folder is TENDER_HOME (default: Tender's app-data folder).
Exit codes: 0 completed, 1 job failed, 2 bad input, 3 infrastructure error.`;

const COMMANDS: Record<
  string,
  (argv: string[], ctx: ReturnType<typeof cliContext>) => Promise<number>
> = {
  run: runCommand,
  import: importCommand,
  rerun: rerunCommand,
  status: statusCommand,
  cost: costCommand,
  receipt: receiptCommand,
  metrics: metricsCommand,
  cells: cellsCommand,
  cancel: cancelCommand,
  logs: logsCommand,
  sync: syncCommand,
  down: downCommand,
  bid: bidCommand,
  offers: offersCommand,
  serve: serveCommand,
  push: pushCommand,
  hosts: hostsCommand,
  clusters: clustersCommand,
  ssh: sshCommand,
  'ssh-config': sshConfigCommand,
  open: openCommand,
  forward: forwardCommand,
  node: nodeCommand,
  // Loaded only when asked: the MCP SDK (and what it brings) is not on every command's start.
  mcp: async (argv, ctx) => (await import('./commands/mcp')).mcpCommand(argv, ctx),
};

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === 'help' || cmd === '--help' || cmd === '-h') {
    process.stdout.write(USAGE + '\n');
    return cmd ? EXIT.ok : EXIT.badInput;
  }
  if (cmd === '--version' || cmd === 'version') {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const handler = COMMANDS[cmd];
  if (!handler) {
    printError({
      code: 'bad_input',
      message: `unknown command "${cmd}"`,
      hint: `commands: ${Object.keys(COMMANDS).join(', ')}`,
    });
    return EXIT.badInput;
  }
  try {
    return await handler(rest, cliContext());
  } catch (err) {
    const data = isArgError(err)
      ? { code: 'bad_input' as const, message: (err as Error).message, hint: 'see `tender help`' }
      : toErrorData(err);
    printError(data);
    return data.code === 'bad_input' || data.code === 'bad_request' || data.code === 'not_found'
      ? EXIT.badInput
      : EXIT.infrastructure;
  }
}

function isArgError(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

// `tender logs … | head` closes the pipe early: that is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

let finished = false;
// If the event loop empties while a command still waits, Tender lost track of something:
// never let that look like success.
process.on('beforeExit', () => {
  if (finished) return;
  printError({
    code: 'internal',
    message: 'tender stopped waiting before the command finished',
    hint: 'This is a bug in Tender; run `tender status` to see where things stand.',
  });
  process.exit(EXIT.infrastructure);
});

// Everything this process writes in the data folder is the user's alone.
usePrivateUmask();
void main(process.argv.slice(2)).then((code) => {
  finished = true;
  process.exitCode = code;
});
