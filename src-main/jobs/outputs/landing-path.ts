// Where a path the node names lands on this side: the agent's archive paths and the
// folders of a glance are the node's words, so each is checked before it is joined.
import { join, normalize, sep } from 'node:path';

/** `rel` joined under the landing folder `root`; null where it would land outside it (an
 *  absolute path, or one that climbs out with `..`). */
export function landingPath(root: string, rel: string): string | null {
  const n = normalize(rel);
  if (n.startsWith('..') || n.startsWith(sep) || n.includes(`${sep}..${sep}`)) return null;
  return join(root, n);
}
