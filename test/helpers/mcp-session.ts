// An MCP client, built with the SDK, talking to a `tender mcp` server over the SDK's
// in-memory transport pair: the real protocol, in this process, over a core a test opened.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TenderCore } from '../../src-main/core/tender-core';
import type { McpLimits } from '../../src-main/cli/mcp/mcp-flags';
import { createTenderMcp, mcpCoreOf } from '../../src-main/cli/mcp/server';
import { KNOWN_PROVIDERS } from '../../src-main/providers/known';
import { callTool, MCP_REQUEST_MS } from './mcp-stdio';

export interface McpTestSession {
  client: Client;
  /** Calls a tool; the result as the client got it (errors are results, not throws). No
   *  answer within `timeoutMs` (default MCP_REQUEST_MS) throws, naming the tool. */
  call(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function connectMcp(
  core: TenderCore,
  limits: Partial<McpLimits>,
  clientName = 'test-agent',
): Promise<McpTestSession> {
  const env = { ...process.env };
  const { server } = createTenderMcp(
    mcpCoreOf(core),
    {
      budgetUsd: null,
      maxNodes: null,
      providers: [...KNOWN_PROVIDERS],
      allowDownAny: false,
      ...limits,
    },
    { home: core.home, env, coreOptions: { home: core.home, env } },
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    call: (name, args = {}, timeoutMs = MCP_REQUEST_MS) =>
      callTool(
        client,
        name,
        args,
        timeoutMs,
        (what, err) => new Error(`${what}: ${(err as Error).message}`, { cause: err }),
      ),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The text of a tool result. */
export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
