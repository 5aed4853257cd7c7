import { isDataSource, type LogRecord } from '../contract';
import { dim } from './output';
import { terminalSafe } from './terminal-text';

/** What the job's own commands print: its phases, its run_setup, the node's host setup. */
const JOB_SOURCES: ReadonlySet<string> = new Set(['setup', 'run', 'run_setup', 'host_setup']);

/** Prints datastream records: the job's own output (setup, run, run_setup, host setup) on
 *  stdout as it was written but for escapes other than colours (terminal-text.ts), everything else (bootstrap, events, agent notices,
 *  section headers) dimmed on stderr. GPU samples (`gpu`) and the job's metrics
 *  (`metrics`) are data, never printed (`tender metrics` shows those). With
 *  more than one node every line is prefixed by its node. */
export function makeLogPrinter(opts: { prefixNodes: boolean; showBootstrap: boolean }) {
  return (records: LogRecord[]) => {
    let out = '';
    let err = '';
    for (const r of records) {
      if (isDataSource(r.source)) continue;
      const prefix = opts.prefixNodes ? `[${r.node.slice(r.node.indexOf('/') + 1)}] ` : '';
      const line = terminalSafe(r.line);
      const isJobOutput = r.channel === 'agent' && JOB_SOURCES.has(r.source);
      if (isJobOutput && r.stream !== 'info') {
        if (r.stream === 'stderr') err += `${prefix}${line}\n`;
        else out += `${prefix}${line}\n`;
      } else if (
        r.channel === 'events' ||
        r.source === 'agent' ||
        isJobOutput || // a host-setup or run_setup section's header and exit lines
        opts.showBootstrap
      ) {
        err += dim(`${prefix}${r.channel === 'bootstrap' ? '│ ' : '» '}${line}`) + '\n';
      }
    }
    if (out) process.stdout.write(out);
    if (err) process.stderr.write(err);
  };
}
