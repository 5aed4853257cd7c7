// Starts test/helpers/mcp-child.ts (bundled once per test file) as an MCP server process
// and connects an SDK client to it over stdio, feeding it the fake's node users. Every
// request has its own deadline, and a request past it fails naming the tool, its arguments
// and the server's last stderr: a hang names itself, not the test's timeout.
import { renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { build } from 'esbuild';
import type { FakeVast } from '../fakes/vast';
import type { McpChildConfig } from './mcp-child';

const REPO = resolve(import.meta.dirname, '..', '..');
const OUT = join(REPO, 'out', 'test', 'mcp-child.mjs');
let built: Promise<unknown> | null = null;

/** One request to the server (a tool call, the initialize): a tool answers in well under a
 *  second here; tender_run once the run is recorded and the session's run before it has
 *  rented (at most RENT_WAIT_MS, src-main/cli/mcp/rent-wait.ts). */
export const MCP_REQUEST_MS = 30_000;

export interface McpProcess {
  client: Client;
  pid: number;
  /** A tool call, failing after `timeoutMs` (default MCP_REQUEST_MS) with what was asked. */
  call(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<CallToolResult>;
  stderr(): string;
  close(): Promise<void>;
}

export async function startMcpProcess(fake: FakeVast, config: McpChildConfig): Promise<McpProcess> {
  built ??= build({
    entryPoints: [join(REPO, 'test', 'helpers', 'mcp-child.ts')],
    outfile: OUT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  await built;
  const users: Record<string, string> = {};
  const feed = setInterval(() => {
    let changed = false;
    for (const i of fake.state.instances())
      if (!users[i.id]) {
        users[i.id] = i.node.user;
        changed = true;
      }
    if (!changed) return;
    // Whole or not at all: the child reads it while the parent writes.
    writeFileSync(`${config.usersFile}.tmp`, JSON.stringify(users));
    renameSync(`${config.usersFile}.tmp`, config.usersFile);
  }, 20);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [OUT, JSON.stringify(config)],
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-8000)));
  const client = new Client({ name: 'doomed-agent', version: '1.0.0' });
  const failed = (what: string, err: unknown) =>
    new Error(
      `${what}: ${(err as Error).message}\ntender mcp's stderr (last lines):\n${stderr.slice(-2_000)}`,
      { cause: err },
    );
  try {
    await client.connect(transport, { timeout: MCP_REQUEST_MS });
  } catch (err) {
    clearInterval(feed);
    await client.close().catch(() => {});
    throw failed('tender mcp did not answer initialize', err);
  }
  return {
    client,
    pid: transport.pid!,
    call: async (name, args = {}, timeoutMs = MCP_REQUEST_MS) => {
      try {
        return (await client.callTool({ name, arguments: args }, undefined, {
          timeout: timeoutMs,
        })) as CallToolResult;
      } catch (err) {
        throw failed(`${name} ${JSON.stringify(args)} got no answer`, err);
      }
    },
    stderr: () => stderr,
    close: async () => {
      clearInterval(feed);
      await client.close().catch(() => {});
    },
  };
}
