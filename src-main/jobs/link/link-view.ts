import type { LinkState } from '../../nodes/agent-link';

/** What the UI shows of a node's agent link. */
export type ViewLinkState = 'none' | 'connected' | 'lost';

/** A link state change as the UI sees it: the new view and the progress line to log, or
 *  null when the view does not change (`connecting` keeps whatever it was). */
export function linkViewChange(
  current: ViewLinkState,
  state: LinkState,
  detail: string,
): { view: ViewLinkState; note: string | null } | null {
  const view: ViewLinkState =
    state === 'connected'
      ? 'connected'
      : state === 'lost'
        ? 'lost'
        : state === 'closed'
          ? 'none'
          : current;
  if (view === current) return null;
  if (view === 'lost') return { view, note: `link lost: ${detail}; reconnecting` };
  if (current === 'lost' && view === 'connected') return { view, note: 'link restored' };
  return { view, note: null };
}
