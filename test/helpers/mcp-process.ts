// Starts test/helpers/mcp-child.ts (bundled once per test file) as an MCP server process
// and connects an SDK client to it over stdio (mcp-stdio.ts: every request with its own
// deadline), feeding it the fake's node users.
import { renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { FakeVast } from '../fakes/vast';
import type { McpChildConfig } from './mcp-child';
import { connectStdio, type StdioMcp } from './mcp-stdio';

const REPO = resolve(import.meta.dirname, '..', '..');
const OUT = join(REPO, 'out', 'test', 'mcp-child.mjs');
let built: Promise<unknown> | null = null;

export type McpProcess = StdioMcp;

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
  try {
    const mcp = await connectStdio({
      command: process.execPath,
      args: [OUT, JSON.stringify(config)],
      env: process.env,
      clientName: 'doomed-agent',
    });
    return {
      ...mcp,
      close: async () => {
        clearInterval(feed);
        await mcp.close();
      },
    };
  } catch (err) {
    clearInterval(feed);
    throw err;
  }
}
