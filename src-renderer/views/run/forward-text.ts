import type { ForwardView } from '../../../src-main/contract';
import { notebookUrl } from '../../../src-main/contract/forward';

/** How a forward reads in the run view (docs/forwards.md): a local one as its label and
 *  where it listens here ("TensorBoard — localhost:16006"), a reverse one as the node's port
 *  and what it reaches from here ("node:5000 → localhost:5000"). */
export function forwardText(
  f: Pick<ForwardView, 'direction' | 'label' | 'remotePort' | 'localPort' | 'host'>,
): string {
  return f.direction === 'local'
    ? `${f.label} — localhost:${f.localPort}`
    : `node:${f.remotePort} → ${f.host}:${f.localPort}`;
}

/** Where a local forward's link goes: its URL, with the token the job printed
 *  (`?token=…`, Jupyter's login) when one is known; null for a reverse forward. */
export function forwardHref(f: Pick<ForwardView, 'url' | 'token'>): string | null {
  if (f.url === null) return null;
  if (f.token === null) return f.url;
  try {
    return notebookUrl(f.url, f.token);
  } catch {
    return f.url;
  }
}

/** A token as shown beside its link: its first 8 characters (the whole one is copied). */
export function shortToken(token: string): string {
  return token.length > 12 ? `${token.slice(0, 8)}…` : token;
}

/** A forward's identity within a run: its node, direction and node port (what
 *  `forward.close` takes). */
export function forwardKey(f: Pick<ForwardView, 'nodeId' | 'direction' | 'remotePort'>): string {
  return `${f.nodeId}/${f.direction}/${f.remotePort}`;
}

/** The run's forwards in the order shown: by node (logical order), local ones first, then
 *  by node port. */
export function sortForwards(list: readonly ForwardView[]): ForwardView[] {
  const byNode = (id: string) => {
    const m = /node-(\d+)$/.exec(id);
    return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
  };
  return [...list].sort(
    (a, b) =>
      byNode(a.nodeId) - byNode(b.nodeId) ||
      a.nodeId.localeCompare(b.nodeId) ||
      (a.direction === b.direction ? 0 : a.direction === 'local' ? -1 : 1) ||
      a.remotePort - b.remotePort,
  );
}
