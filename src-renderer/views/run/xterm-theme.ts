import type { ITerminalOptions } from '@xterm/xterm';

/** The app's dark theme in xterm's terms; ANSI colours tuned to read on --bg. */
export const XTERM_BASE: ITerminalOptions = {
  fontFamily: "'DejaVu Sans Mono', Menlo, Consolas, monospace",
  fontSize: 12,
  lineHeight: 1.2,
  theme: {
    background: '#0b0e12',
    foreground: '#d8dde5',
    cursor: '#5fd0b6',
    selectionBackground: 'rgba(95, 208, 182, 0.28)',
    black: '#1c2129',
    red: '#f2696b',
    green: '#58c98b',
    yellow: '#f0b44c',
    blue: '#6aa7ff',
    magenta: '#c792ea',
    cyan: '#5fd0b6',
    white: '#d8dde5',
    brightBlack: '#6b7583',
    brightRed: '#ff8a8c',
    brightGreen: '#7be0a6',
    brightYellow: '#ffd27a',
    brightBlue: '#93c0ff',
    brightMagenta: '#dcb0f5',
    brightCyan: '#8be8d2',
    brightWhite: '#ffffff',
    scrollbarSliderBackground: 'rgba(154, 164, 178, 0.25)',
    scrollbarSliderHoverBackground: 'rgba(154, 164, 178, 0.4)',
    scrollbarSliderActiveBackground: 'rgba(154, 164, 178, 0.5)',
  },
};

/** Lines a log pane keeps; older ones are on disk, found by "search the whole log". */
export const LOG_SCROLLBACK = 10_000;

export const SEARCH_DECORATIONS = {
  matchBackground: '#3a4350',
  matchOverviewRuler: '#9aa4b2',
  activeMatchBackground: '#8a6a1f',
  activeMatchColorOverviewRuler: '#f0b44c',
};
