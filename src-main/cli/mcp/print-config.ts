// `tender mcp --print-config`: the block Claude Code, Cursor and other MCP clients take, with
// the real paths of node and of this CLI (a GUI client's PATH may hold neither) and the
// guard rails as given. Never a key: providers' keys stay in Tender's own store.
import { realpathSync } from 'node:fs';

export function mcpConfig(opts: {
  nodePath: string;
  cliPath: string;
  flags: readonly string[];
  tenderHome: string | undefined;
}): string {
  const entry = {
    command: opts.nodePath,
    args: [realpath(opts.cliPath), 'mcp', ...opts.flags],
    ...(opts.tenderHome ? { env: { TENDER_HOME: opts.tenderHome } } : {}),
  };
  return JSON.stringify({ mcpServers: { tender: entry } }, null, 2);
}

function realpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
