import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { TenderCore } from '../../core/tender-core';
import type { CliContext } from '../context';
import { EXIT } from '../exit-codes';
import { info } from '../output';
import { parseMcpFlags } from '../mcp/mcp-flags';
import { mcpConfig } from '../mcp/print-config';
import { createTenderMcp, mcpCoreOf } from '../mcp/server';

export { MCP_USAGE } from '../mcp/mcp-flags';

/** `tender mcp`: a Model Context Protocol server over stdio (docs/agents.md). stdout is the
 *  protocol: everything else this process says goes to stderr. The runs it starts are driven
 *  here; when the client goes away they are detached and go on on their nodes, within their
 *  max duration and budget. */
export async function mcpCommand(argv: string[], ctx: CliContext): Promise<number> {
  const flags = parseMcpFlags(argv);
  if (flags.printConfig) {
    process.stdout.write(
      mcpConfig({
        nodePath: process.execPath,
        cliPath: process.argv[1]!,
        flags: flags.given,
        tenderHome: ctx.env.TENDER_HOME,
      }) + '\n',
    );
    return EXIT.ok;
  }
  keepStdoutForProtocol();
  // Beside the app (the ledger's writer) it still serves what reads; what writes is refused
  // with the writer's name until that process stops.
  const core = TenderCore.openAny(ctx.coreOptions) ?? TenderCore.open(ctx.coreOptions);
  if (!core.isWriter)
    info(
      'tender mcp: another Tender holds the ledger (the app, or tender serve): tender_run, tender_cancel and tender_down are refused until it stops; offers, status, logs and metrics work',
    );
  const { server, session } = createTenderMcp(mcpCoreOf(core), flags, ctx);
  const ended = new Promise<string>((resolve) => {
    process.stdin.once('end', () => resolve('the client closed the connection'));
    process.stdin.once('close', () => resolve('the client closed the connection'));
    process.once('SIGTERM', () => resolve('terminated'));
    process.once('SIGINT', () => resolve('interrupted'));
    process.once('SIGHUP', () => resolve('hung up'));
  });
  try {
    await server.connect(new StdioServerTransport());
    info(`tender mcp: serving over stdio (${flags.given.join(' ')})`);
    const why = await ended;
    const detached = await session.detachAll();
    info(
      `tender mcp: ${why}${detached > 0 ? `; ${detached} run(s) detached: they go on on their nodes, within their max duration and budget` : ''}`,
    );
    await server.close().catch(() => {});
    return EXIT.ok;
  } finally {
    await core.close();
  }
}

/** Nothing but the protocol may reach stdout: a stray console.log would break the client. */
function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) =>
    process.stderr.write(`${args.map((a) => (typeof a === 'string' ? a : String(a))).join(' ')}\n`);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
