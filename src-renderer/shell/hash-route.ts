import type { View } from '../store/ui';

/** Where the app is, as the address bar's hash says it: `#/runs/r-k3x9a2mf` is a link to a
 *  run that a reload (or a bookmark in the same browser tab) comes back to. The session
 *  token is never part of it. */
export interface Route {
  view: View;
  runId: string | null;
}

const PATHS: Record<Exclude<View, 'run'>, string> = {
  ledger: '/ledger',
  offers: '/offers',
  composer: '/new',
  settings: '/settings',
};

/** A run id as Tender makes them (`r-` and base-36): nothing else is taken from a hash. */
const RUN_ID = /^r-[a-z0-9]{4,32}$/;

/** The route a hash names; null for an empty or unknown hash (the app's own default). */
export function routeOf(hash: string): Route | null {
  const path = decodeURIComponent(hash.replace(/^#/, '')).replace(/\/+$/, '');
  if (path === '/runs') return { view: 'run', runId: null };
  const run = /^\/runs\/(.+)$/.exec(path);
  if (run) return RUN_ID.test(run[1]!) ? { view: 'run', runId: run[1]! } : null;
  for (const [view, p] of Object.entries(PATHS) as [Exclude<View, 'run'>, string][])
    if (path === p) return { view, runId: null };
  return null;
}

/** The hash for a route: `#/runs/<id>` for a run, `#/ledger`… for the other views. */
export function hashOf(route: Route): string {
  if (route.view === 'run') return route.runId ? `#/runs/${route.runId}` : '#/runs';
  return `#${PATHS[route.view]}`;
}
