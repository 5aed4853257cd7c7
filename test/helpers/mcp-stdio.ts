// An MCP client built with the SDK, connected over stdio to a server process it starts (the
// built `tender mcp`, or test/helpers/mcp-child.ts). Every request has its own deadline, and
// one past it fails naming the tool, its arguments and the server's last stderr: a hang
// names itself instead of running into the test's timeout.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** One request to the server (a tool call, the initialize): a tool answers in well under a
 *  second here; tender_run once the run is recorded and the session's run before it has
 *  rented (at most RENT_WAIT_MS, src-main/cli/mcp/rent-wait.ts). */
export const MCP_REQUEST_MS = 30_000;

export interface StdioMcp {
  client: Client;
  pid: number;
  /** A tool call, failing after `timeoutMs` (default MCP_REQUEST_MS) with what was asked. */
  call(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<CallToolResult>;
  /** The server's stderr so far. */
  stderr(): string;
  /** What the client reported wrong on the wire (a stray stdout line is one). */
  protocolErrors: Error[];
  close(): Promise<void>;
}

export async function connectStdio(o: {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  clientName: string;
}): Promise<StdioMcp> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.env)) if (v !== undefined) env[k] = v;
  const transport = new StdioClientTransport({
    command: o.command,
    args: o.args,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const client = new Client({ name: o.clientName, version: '1.0.0' });
  const protocolErrors: Error[] = [];
  client.onerror = (e) => protocolErrors.push(e);
  const failed = (what: string, err: unknown) =>
    new Error(
      `${what}: ${(err as Error).message}\nthe server's stderr (last lines):\n${stderr.slice(-2_000)}`,
      { cause: err },
    );
  try {
    await client.connect(transport, { timeout: MCP_REQUEST_MS });
  } catch (err) {
    await client.close().catch(() => {});
    throw failed('the MCP server did not answer initialize', err);
  }
  return {
    client,
    pid: transport.pid!,
    call: (name, args = {}, timeoutMs = MCP_REQUEST_MS) =>
      callTool(client, name, args, timeoutMs, failed),
    stderr: () => stderr,
    protocolErrors,
    close: () => client.close().catch(() => {}),
  };
}

/** A tool call that fails after `timeoutMs`, its error made by `failed` from what was
 *  asked ("<tool> <arguments> got no answer") and the SDK's error. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  timeoutMs: number,
  failed: (what: string, err: unknown) => Error,
): Promise<CallToolResult> {
  try {
    return (await client.callTool({ name, arguments: args }, undefined, {
      timeout: timeoutMs,
    })) as CallToolResult;
  } catch (err) {
    throw failed(`${name} ${JSON.stringify(args)} got no answer`, err);
  }
}
