import { describe, expect, it } from 'vitest';
import type { LinkState } from '../../nodes/agent-link';
import { linkViewChange, type ViewLinkState } from './link-view';

describe('linkViewChange: what the UI shows of the link, and the line it logs', () => {
  it.each<[ViewLinkState, LinkState, ReturnType<typeof linkViewChange>]>([
    ['none', 'connecting', null],
    ['none', 'connected', { view: 'connected', note: null }],
    ['none', 'lost', { view: 'lost', note: 'link lost: EOF; reconnecting' }],
    ['none', 'closed', null],
    ['connected', 'connecting', null],
    ['connected', 'connected', null],
    ['connected', 'lost', { view: 'lost', note: 'link lost: EOF; reconnecting' }],
    ['connected', 'closed', { view: 'none', note: null }],
    ['lost', 'connecting', null],
    ['lost', 'connected', { view: 'connected', note: 'link restored' }],
    ['lost', 'lost', null],
    ['lost', 'closed', { view: 'none', note: null }],
  ])('%s + %s → %o', (current, state, want) => {
    expect(linkViewChange(current, state, 'EOF')).toEqual(want);
  });
});
