// The MCP server of `tender mcp`: the tools, the log resource and the guide, over one
// session of one Tender core. Transport-free: `tender mcp` connects it to stdio, the tests
// to the SDK's in-memory pair.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { TENDER_VERSION } from '../../base/version';
import type { TenderCore } from '../../core/tender-core';
import type { CliContext } from '../context';
import { GUIDE } from './guide';
import type { McpLimits } from './mcp-flags';
import { registerResources } from './resources';
import { McpSession, type McpCore } from './session';
import { registerReadingTools } from './tools-reading';
import { registerRunTools } from './tools-runs';

export interface TenderMcp {
  server: McpServer;
  session: McpSession;
}

export function createTenderMcp(core: McpCore, limits: McpLimits, ctx: CliContext): TenderMcp {
  const server = new McpServer(
    { name: 'tender', version: TENDER_VERSION },
    { instructions: GUIDE, capabilities: { tools: {}, resources: {}, prompts: {} } },
  );
  const session = new McpSession(core, limits, ctx, () => server.server.getClientVersion()?.name);
  registerRunTools(server, session);
  registerReadingTools(server, session);
  registerResources(server, session);
  return { server, session };
}

/** What the session needs of a core of this process. */
export function mcpCoreOf(core: TenderCore): McpCore {
  return {
    client: core.client,
    bills: (kind) => core.providers.get(kind).bills === true,
    redactor: () => core.secretRedactor(),
    now: Date.now,
  };
}
