import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TenderError } from '../base/tender-error';

export interface AgentBundle {
  path: string;
  bytes: Buffer;
  sha256: string;
  version: string;
}

const FILE = 'tender-agent.cjs';

/** Finds the built agent: `TENDER_AGENT_BUNDLE`, beside the built app (`out/agent/`), in a
 *  packaged app's resources, or in the repo's `out/` when running from source. */
export function loadAgentBundle(env: NodeJS.ProcessEnv = process.env): AgentBundle {
  const here = dirname(fileURLToPath(import.meta.url));
  const resourcesPath = (process as { resourcesPath?: string }).resourcesPath;
  const candidates = [
    env.TENDER_AGENT_BUNDLE,
    join(here, '..', 'agent', FILE),
    resourcesPath && join(resourcesPath, 'agent', FILE),
    resolve(here, '..', '..', 'out', 'agent', FILE),
    resolve(process.cwd(), 'out', 'agent', FILE),
  ].filter((p): p is string => typeof p === 'string' && p.length > 0);
  const path = candidates.find((p) => existsSync(p));
  if (!path) {
    throw new TenderError(
      'internal',
      'the agent bundle (tender-agent.cjs) was not found',
      'Run `npm run build` (or `npm run build:agent`) first.',
    );
  }
  const bytes = readFileSync(path);
  let version = 'dev';
  try {
    version = (
      JSON.parse(readFileSync(join(dirname(path), 'tender-agent.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    // the sidecar is optional
  }
  return { path, bytes, sha256: createHash('sha256').update(bytes).digest('hex'), version };
}
