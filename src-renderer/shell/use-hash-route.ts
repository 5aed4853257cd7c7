import { useEffect } from 'react';
import { useUi } from '../store/ui';
import { hashOf, routeOf, type Route } from './hash-route';

function current(): Route {
  const { view, runId } = useUi.getState();
  return { view, runId: view === 'run' ? runId : null };
}

/** Keeps the view and the address bar's hash in step: a view or run opened writes its hash
 *  (a history entry, so Back works), a hash typed, followed or restored by a reload opens
 *  its view. The token handling of web mode (ws-client.ts) is untouched: it reads the token
 *  before this runs and leaves the hash as it was. */
export function useHashRoute(): void {
  useEffect(() => {
    const follow = () => {
      const route = routeOf(window.location.hash);
      if (!route) return;
      const ui = useUi.getState();
      if (route.view === 'run' && route.runId) {
        if (ui.view !== 'run' || ui.runId !== route.runId) ui.openRun(route.runId);
      } else if (ui.view !== route.view) ui.setView(route.view);
    };
    follow();
    // The address as it opened (no hash, or an unknown one) names the view it shows.
    const opened = hashOf(current());
    if (window.location.hash !== opened) {
      const { pathname, search } = window.location;
      window.history.replaceState(window.history.state, '', `${pathname}${search}${opened}`);
    }
    const off = useUi.subscribe((s, prev) => {
      if (s.view === prev.view && s.runId === prev.runId) return;
      const next = hashOf(current());
      if (window.location.hash !== next) window.location.hash = next;
    });
    window.addEventListener('hashchange', follow);
    return () => {
      off();
      window.removeEventListener('hashchange', follow);
    };
  }, []);
}
