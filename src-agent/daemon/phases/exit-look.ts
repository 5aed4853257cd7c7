// What the run phase's exit state says besides its status: the job's outputs and the
// node's cache as they are then. The app asked both at every exit (`outputs.glance`,
// `status`), a round trip at the end of every run; said with the exit, it asks nothing.
import { glanceOutputSet } from '../../commands/output-set';
import type { NodePaths } from '../../wire/paths';
import type { Phase, PhaseState } from '../../wire/protocol';
import type { NodeCache } from '../environment/node-cache';

/** How long the exit waits for the cache's walk (a large cache is said by `status`). */
export const EXIT_CACHE_WAIT_MS = 100;

export async function exitLook(
  paths: NodePaths,
  phase: Phase,
  outputs: string[] | undefined,
  cache: Pick<NodeCache, 'walkWithin'>,
): Promise<Pick<PhaseState, 'glance' | 'cache'>> {
  if (phase !== 'run') return {};
  const measured = await cache.walkWithin(EXIT_CACHE_WAIT_MS);
  const look: Pick<PhaseState, 'glance' | 'cache'> = measured ? { cache: measured } : {};
  if (outputs) look.glance = glanceOutputSet(paths, { paths: outputs });
  return look;
}
