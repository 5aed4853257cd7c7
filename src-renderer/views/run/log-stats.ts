/** Since the page loaded, all panes together. Read by bench/ui-logs.ts as
 *  `window.__tenderLogStats`; nothing in the app reads it. */
export const logStats = {
  /** Lines xterm has parsed. */
  linesWritten: 0,
  /** Queued lines dropped because xterm could not parse them fast enough. */
  linesLeftOut: 0,
  /** Records never fetched: a hole in the live stream too long to read back (the server
   *  drops batches for a socket that falls behind), or the start of a long stored log. */
  linesSkipped: 0,
  /** logs.read calls: backfill pages and holes filled from the store. */
  storeReads: 0,
};

declare global {
  interface Window {
    __tenderLogStats?: typeof logStats;
  }
}

window.__tenderLogStats = logStats;
