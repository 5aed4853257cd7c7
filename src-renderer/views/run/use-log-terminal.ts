import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { Terminal } from '@xterm/xterm';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { call, describeError } from '../../api/backend';
import { logicalOf } from '../../lib/format';
import { LogFeed } from './log-feed';
import { formatRecords, notice, type FormatState } from './log-format';
import type { LogRouter } from './log-router';
import { logStats } from './log-stats';
import { PaneWriter } from './pane-writer';
import { LOG_SCROLLBACK, XTERM_BASE } from './xterm-theme';

const CATCH_UP_SHOWN_AFTER_MS = 300;
const EARLIER = 'earlier lines are on disk, not in this pane (search the whole log above)';
const LEFT_OUT = 'lines left out here to keep up; the whole log is on disk (search it above)';

export interface LogTerminal {
  term: Terminal;
  search: SearchAddon;
  fit(): void;
}

/**
 * A read-only xterm showing one node's log: backlog then live, through a LogFeed (order,
 * dedupe, gaps) and a PaneWriter (frame coalescing, flow control). `isFollowing` is true
 * while the view sits at the bottom; scrolling up turns it off, back to the bottom on.
 */
export function useLogTerminal(
  host: RefObject<HTMLDivElement | null>,
  runId: string,
  nodeId: string,
  router: LogRouter,
): {
  /** Set once the xterm is open (after the first render). */
  terminal: LogTerminal | null;
  isFollowing: boolean;
  setFollowing(on: boolean): void;
  isCatchingUp: boolean;
  /** Records read so far of a long stored log (written once it is all read). */
  readingCount: number | null;
  /** Reads what the store has past what the pane shows (a phase ended: its last lines may
   *  have been in a batch the server dropped). */
  resync(): void;
} {
  const handle = useRef<LogTerminal | null>(null);
  const feedRef = useRef<LogFeed | null>(null);
  const [terminal, setTerminal] = useState<LogTerminal | null>(null);
  const [isFollowing, setIsFollowing] = useState(true);
  const [isCatchingUp, setIsCatchingUp] = useState(false);
  const [readingCount, setReadingCount] = useState<number | null>(null);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const term = new Terminal({
      ...XTERM_BASE,
      scrollback: LOG_SCROLLBACK,
      disableStdin: true,
      cursorBlink: false,
      cursorInactiveStyle: 'none',
      allowProposedApi: true, // search match decorations
    });
    const fitAddon = new FitAddon();
    const search = new SearchAddon({ highlightLimit: 2_000 });
    term.loadAddon(fitAddon);
    term.loadAddon(search);
    term.open(el);
    term.write('\x1b[?25l'); // no cursor: nobody types into a log
    const fit = () => {
      if (el.offsetWidth > 0 && el.offsetHeight > 0) fitAddon.fit();
    };
    fit();
    handle.current = { term, search, fit };
    setTerminal(handle.current);

    const writer = new PaneWriter(term, (f) => requestAnimationFrame(f), {
      onWritten: (n) => (logStats.linesWritten += n),
      onLeftOut: (n) => (logStats.linesLeftOut += n),
      leftOutNotice: (n) => notice(`${n.toLocaleString('en-US')} ${LEFT_OUT}`),
    });
    const format: FormatState = { phase: null };
    // Short catch-ups (a gap filled from the store) come and go many times a second under
    // a fast log: only one that lasts reaches React.
    let catchUpTimer: ReturnType<typeof setTimeout> | undefined;
    const catchingUp = (on: boolean) => {
      clearTimeout(catchUpTimer);
      if (on) catchUpTimer = setTimeout(() => setIsCatchingUp(true), CATCH_UP_SHOWN_AFTER_MS);
      else {
        setIsCatchingUp(false);
        setReadingCount(null);
      }
    };
    let lastError = '';
    const nodeName = logicalOf(nodeId);
    const feed = new LogFeed({
      read: async (channel, fromSeq, limit) => {
        logStats.storeReads++;
        return (await call('logs.read', { runId, nodeName, channel, fromSeq, limit })).records;
      },
      tailStart: async (channel, lines) => {
        logStats.storeReads++;
        const { records } = await call('logs.read', {
          runId,
          nodeName,
          channel,
          tail: lines,
          limit: 1,
        });
        return records[0]?.seq ?? null;
      },
      write: (records) => {
        const { text, lines } = formatRecords(records, format);
        writer.push(text, lines);
      },
      onSkip: (n, where) => {
        logStats.linesSkipped += n;
        const count = n.toLocaleString('en-US');
        writer.push(notice(where === 'here' ? `${count} ${LEFT_OUT}` : `${count} ${EARLIER}`), 1);
      },
      onReading: setReadingCount,
      tailLines: LOG_SCROLLBACK,
      onCatchingUp: catchingUp,
      onError: (err) => {
        const text = describeError(err);
        if (text !== lastError) writer.push(notice(`could not read the log: ${text}; retrying`), 1);
        lastError = text;
      },
    });
    const off = router.listen(nodeId, feed);
    feedRef.current = feed;
    feed.start();

    // Fired for every line scrolled at full speed: only a change reaches React.
    let wasFollowing = true;
    const scrolled = term.onScroll(() => {
      const b = term.buffer.active;
      const now = b.viewportY >= b.baseY;
      if (now !== wasFollowing) setIsFollowing((wasFollowing = now));
    });
    let fitFrame = 0;
    const resize = new ResizeObserver(() => {
      cancelAnimationFrame(fitFrame);
      fitFrame = requestAnimationFrame(fit);
    });
    resize.observe(el);
    return () => {
      off();
      clearTimeout(catchUpTimer);
      feedRef.current = null;
      feed.close();
      writer.close();
      resize.disconnect();
      cancelAnimationFrame(fitFrame);
      scrolled.dispose();
      handle.current = null;
      setTerminal(null);
      term.dispose();
    };
  }, [host, runId, nodeId, router]);

  const setFollowing = (on: boolean) => {
    const t = handle.current?.term;
    if (!t) return;
    // At the bottom xterm keeps following new lines; one line up, it holds the view still.
    if (on) t.scrollToBottom();
    else if (t.buffer.active.viewportY >= t.buffer.active.baseY) t.scrollLines(-1);
    setIsFollowing(on);
  };

  const resync = useCallback(() => feedRef.current?.resync(), []);
  return { terminal, isFollowing, setFollowing, isCatchingUp, readingCount, resync };
}
