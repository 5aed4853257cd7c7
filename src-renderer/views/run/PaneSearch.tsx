import { useEffect, useState } from 'react';
import { isDataSource, type LogRecord } from '../../../src-main/contract';
import { call, describeError } from '../../api/backend';
import { toast } from '../../components/toasts';
import { clockTime, logicalOf } from '../../lib/format';
import { CloseIcon, DownIcon, SearchIcon, UpIcon } from './icons';
import { plainText } from './log-format';
import type { LogTerminal } from './use-log-terminal';
import { SEARCH_DECORATIONS } from './xterm-theme';

const OPTS = { decorations: SEARCH_DECORATIONS };

/** Find in the pane (xterm's scrollback) with next/previous, plus "whole log": the stored
 *  log on disk through logs.search, since the pane keeps only its last lines. */
export function PaneSearch(props: {
  terminal: LogTerminal;
  runId: string;
  nodeId: string;
  onJump(): void;
  /** Results of a whole-log search (null: searching), shown by the pane over its log. */
  onWholeLog(whole: WholeLog): void;
}): React.JSX.Element {
  const { terminal, runId, nodeId, onWholeLog: setWhole } = props;
  const [query, setQuery] = useState('');
  const [count, setCount] = useState<{ index: number; total: number } | null>(null);

  useEffect(() => {
    const sub = terminal.search.onDidChangeResults((r) =>
      setCount(r.resultCount > 0 ? { index: r.resultIndex, total: r.resultCount } : null),
    );
    return () => sub.dispose();
  }, [terminal]);

  const find = (backwards: boolean, incremental = false) => {
    const { search } = terminal;
    if (!query) {
      search.clearDecorations();
      setCount(null);
      return;
    }
    const found = backwards
      ? search.findPrevious(query, OPTS)
      : search.findNext(query, { ...OPTS, incremental });
    if (found) props.onJump();
    else setCount({ index: -1, total: 0 });
  };

  const searchWhole = async () => {
    if (!query) return;
    setWhole({ query, records: null, truncated: false, error: null });
    try {
      const r = await call('logs.search', {
        runId,
        nodeName: logicalOf(nodeId),
        query,
        limit: 500,
      });
      // GPU samples and metrics are stored with the log but are not its lines.
      const records = r.records.filter((x) => !isDataSource(x.source));
      setWhole({ query, records, truncated: r.truncated, error: null });
    } catch (err) {
      setWhole({ query, records: [], truncated: false, error: describeError(err) });
    }
  };

  return (
    <div className="pane-search">
      <SearchIcon />
      <input
        className="pane-search-input"
        placeholder="Find in pane"
        aria-label="Find in this pane"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyUp={(e) => {
          if (e.key !== 'Enter' && e.key !== 'Escape' && !e.key.startsWith('Shift'))
            find(false, true);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') find(e.shiftKey);
          if (e.key === 'Escape') {
            setQuery('');
            terminal.search.clearDecorations();
            setCount(null);
          }
        }}
      />
      {query && (
        <span className="pane-search-count tabular">
          {count === null ? '' : count.total === 0 ? 'none' : `${count.index + 1}/${count.total}`}
        </span>
      )}
      <button className="icon-btn" title="Previous match (Shift+Enter)" onClick={() => find(true)}>
        <UpIcon />
      </button>
      <button className="icon-btn" title="Next match (Enter)" onClick={() => find(false)}>
        <DownIcon />
      </button>
      <button
        className="btn btn-sm"
        disabled={!query}
        title="Search the whole log on disk, not only what this pane keeps"
        onClick={() => void searchWhole()}
      >
        Whole log
      </button>
    </div>
  );
}

export interface WholeLog {
  query: string;
  records: LogRecord[] | null;
  truncated: boolean;
  error: string | null;
}

/** The whole-log matches; picking one finds it in the pane when the pane still has it. */
export function WholeLogResults(props: {
  whole: WholeLog;
  terminal: LogTerminal;
  onJump(): void;
  onClose(): void;
}): React.JSX.Element {
  const { query, records, truncated, error } = props.whole;
  const pick = (r: LogRecord) => {
    const text = plainText(r.line).trim();
    if (text && props.terminal.search.findNext(text, OPTS)) props.onJump();
    else toast(`Line #${r.seq} is older than what this pane keeps; it is on disk.`);
  };
  return (
    <div className="whole-log" role="region" aria-label="Search results in the whole log">
      <div className="whole-log-head">
        <span>
          {records === null
            ? `Searching the whole log for “${query}”…`
            : `${records.length}${truncated ? '+' : ''} line${records.length === 1 ? '' : 's'} with “${query}” in the whole log`}
        </span>
        <button className="icon-btn" title="Close" onClick={props.onClose}>
          <CloseIcon />
        </button>
      </div>
      {error && <div className="whole-log-note red">{error}</div>}
      {records && records.length === 0 && !error && (
        <div className="whole-log-note">No line of this node&apos;s log contains it.</div>
      )}
      {records && records.length > 0 && (
        <ol className="whole-log-list">
          {records.map((r) => (
            <li key={`${r.channel}-${r.seq}`}>
              <button onClick={() => pick(r)} title="Find this line in the pane">
                <span className="seq tabular">#{r.seq}</span>
                <span className="time tabular">{clockTime(r.ts)}</span>
                <Highlighted text={plainText(r.line)} query={query} />
              </button>
            </li>
          ))}
        </ol>
      )}
      {truncated && (
        <div className="whole-log-note">
          Only the first 500 matches are listed; narrow the search.
        </div>
      )}
    </div>
  );
}

function Highlighted({ text, query }: { text: string; query: string }): React.JSX.Element {
  const at = text.toLowerCase().indexOf(query.toLowerCase());
  if (at === -1) return <span className="line">{text}</span>;
  return (
    <span className="line">
      {text.slice(0, at)}
      <mark>{text.slice(at, at + query.length)}</mark>
      {text.slice(at + query.length)}
    </span>
  );
}
