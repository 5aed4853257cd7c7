import { rm } from 'node:fs/promises';
import { afterEach } from 'vitest';
import { type AttachClient, killAgent } from './agent-bundle';

/** What a test file's agent daemons leave, cleaned after each test: attach clients killed,
 *  then each node folder's daemon, then the temp roots removed (call at the top level). */
export function useAgentCleanup(): {
  roots: string[];
  nodeDirs: string[];
  clients: AttachClient[];
} {
  const left = { roots: [] as string[], nodeDirs: [] as string[], clients: [] as AttachClient[] };
  afterEach(async () => {
    for (const c of left.clients.splice(0)) c.kill();
    for (const d of left.nodeDirs.splice(0)) await killAgent(d);
    for (const r of left.roots.splice(0)) await rm(r, { recursive: true, force: true });
  });
  return left;
}
