import { isDataSource, type LogRecord, type LogSource } from '../../../src-main/contract';
import { clockTime } from '../../lib/format';

/** Sources that are phases of a node's life: a divider marks where each begins. */
const PHASES: readonly LogSource[] = ['bootstrap', 'host_setup', 'setup', 'run_setup', 'run'];
/** What the job's own commands print, passed through byte for byte. */
const JOB_SOURCES: readonly LogSource[] = ['host_setup', 'setup', 'run_setup', 'run'];

const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
const RED = '\x1b[31m';
/** Divider colours, the theme's: bootstrap grey, setup amber, run teal; the host's setup
 *  like bootstrap (the machine's), run_setup like run (the run's). */
const PHASE_COLOUR: Record<string, string> = {
  bootstrap: '\x1b[38;2;107;117;131m',
  host_setup: '\x1b[38;2;107;117;131m',
  setup: '\x1b[38;2;240;180;76m',
  run_setup: '\x1b[38;2;95;208;182m',
  run: '\x1b[38;2;95;208;182m',
};
const DIVIDER_WIDTH = 56;

export interface FormatState {
  /** The phase of the last job line written: a new one gets a divider. */
  phase: LogSource | null;
}

/**
 * Records as terminal text. The job's own output (setup, run) goes through byte for byte,
 * colours and carriage returns included; what Tender adds (bootstrap lines, job events,
 * agent notices) is dimmed and marked, so it never passes for the job's output. GPU
 * samples (`gpu`) and metrics (`metrics`) are data, never written.
 */
export function formatRecords(
  records: readonly LogRecord[],
  state: FormatState,
): { text: string; lines: number } {
  let text = '';
  let lines = 0;
  for (const r of records) {
    if (isDataSource(r.source)) continue;
    if (PHASES.includes(r.source) && r.source !== state.phase) {
      state.phase = r.source;
      text += divider(r.source, r.ts);
      lines++;
    }
    text += formatLine(r);
    lines++;
  }
  return { text, lines };
}

function formatLine(r: LogRecord): string {
  if (r.channel === 'agent' && JOB_SOURCES.includes(r.source) && r.stream !== 'info')
    return `${r.line}\r\n`;
  const mark = r.channel === 'bootstrap' ? '│ ' : '» ';
  const colour = r.channel === 'events' && /\bfailed\b/.test(r.line) ? RED : DIM;
  return `${RESET}${colour}${mark}${r.line}${RESET}\r\n`;
}

/** `── run ───────────── 14:02:11`, in the phase's colour. */
export function divider(phase: LogSource, ts: number): string {
  const head = `── ${phase} `;
  const time = ` ${clockTime(ts)}`;
  const rule = '─'.repeat(Math.max(4, DIVIDER_WIDTH - head.length - time.length));
  return `${RESET}${PHASE_COLOUR[phase] ?? DIM}${head}${rule}${time}${RESET}\r\n`;
}

/** A notice of Tender's own in a pane (lines left out, a read that failed). */
export function notice(text: string): string {
  return `${RESET}${DIM}» ${text}${RESET}\r\n`;
}

/** CSI sequences, OSC sequences (ended by BEL or ST), other escapes, then C0 controls but
 *  tab and newline. */
const CONTROLS =
  // eslint-disable-next-line no-control-regex -- matching terminal control bytes is the point
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f]/g;

/** Log text without escape sequences, for search results and copies. */
export function plainText(line: string): string {
  return line.replace(CONTROLS, '');
}
