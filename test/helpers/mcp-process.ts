// Starts test/helpers/mcp-child.ts (bundled once per test file) as an MCP server process
// and connects an SDK client to it over stdio, feeding it the fake's node users.
import { writeFileSync } from 'node:fs';
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

export interface McpProcess {
  client: Client;
  pid: number;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
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
    if (changed) writeFileSync(config.usersFile, JSON.stringify(users));
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
  await client.connect(transport);
  return {
    client,
    pid: transport.pid!,
    call: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    stderr: () => stderr,
    close: async () => {
      clearInterval(feed);
      await client.close().catch(() => {});
    },
  };
}
