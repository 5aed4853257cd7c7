import { describe, expect, it } from 'vitest';
import { isLookedAt, type WatchedWindow } from './notice-gate';

const win = (o: Partial<Record<keyof WatchedWindow, boolean>>): WatchedWindow => ({
  isDestroyed: () => o.isDestroyed ?? false,
  isVisible: () => o.isVisible ?? true,
  isMinimized: () => o.isMinimized ?? false,
  isFocused: () => o.isFocused ?? true,
});

describe('isLookedAt: a desktop notification only when nobody looks at the window', () => {
  it.each([
    ['no window', null, false],
    ['shown and focused', win({}), true],
    ['another app has the focus', win({ isFocused: false }), false],
    ['minimized', win({ isMinimized: true }), false],
    ['hidden (closed to the tray)', win({ isVisible: false }), false],
    ['destroyed', win({ isDestroyed: true }), false],
  ])('%s', (_, w, expected) => {
    expect(isLookedAt(w)).toBe(expected);
  });
});
