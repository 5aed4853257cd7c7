// `tender mcp` in its own process with its vastai provider pointed at a fake Vast.ai (the
// entry of test/helpers/mcp-process.ts): the same server and session as the CLI's, served
// over stdio, so a test can kill -9 it while its runs are live. The fake's nodes log in as
// throw-away users, which the parent writes to a file as instances appear.
import { existsSync, readFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { McpLimits } from '../../src-main/cli/mcp/mcp-flags';
import { createTenderMcp, mcpCoreOf } from '../../src-main/cli/mcp/server';
import { TenderCore } from '../../src-main/core/tender-core';
import type { Timing } from '../../src-main/services/settings/timing';
import { failedHostsPath } from '../../src-main/providers/vastai/failed-hosts';
import { VastProvider } from '../../src-main/providers/vastai/provider';
import { ensureTenderKey } from '../../src-main/transport/keys';

export interface McpChildConfig {
  home: string;
  vastUrl: string;
  apiKey: string;
  agentBundle: string;
  timing: Partial<Timing>;
  containerEnvFiles: string[];
  /** `{ "<instance id>": "<user>" }`, kept current by the parent. */
  usersFile: string;
  limits: McpLimits;
}

const config = JSON.parse(process.argv[2]!) as McpChildConfig;
const userOf = (id: string): string => {
  if (!existsSync(config.usersFile)) return 'root';
  return (
    (JSON.parse(readFileSync(config.usersFile, 'utf8')) as Record<string, string>)[id] ?? 'root'
  );
};
const env = { ...process.env, TENDER_AGENT_BUNDLE: config.agentBundle };
const core = TenderCore.open({
  home: config.home,
  env,
  timing: config.timing,
  providers: (d) => [
    new VastProvider({
      apiKey: config.apiKey,
      baseUrl: config.vastUrl,
      publicKey: () => ensureTenderKey(d.home).publicKey,
      failedHostsPath: failedHostsPath(d.home),
      sshUser: userOf,
      containerEnvFiles: config.containerEnvFiles,
      now: d.now,
      http: { retry: { baseDelayMs: 20, maxDelayMs: 200, deadlineMs: 10_000 } },
    }),
  ],
});
const { server } = createTenderMcp(mcpCoreOf(core), config.limits, {
  home: config.home,
  env,
  coreOptions: { home: config.home, env },
});
await server.connect(new StdioServerTransport());
