import type { LogRecord } from '../contract';
import { dim } from './output';

/** Prints datastream records: the job's own output (setup, run) on stdout exactly as it was
 *  written, everything else (bootstrap, events, agent notices) dimmed on stderr. With more
 *  than one node every line is prefixed by its node. */
export function makeLogPrinter(opts: { prefixNodes: boolean; showBootstrap: boolean }) {
  return (records: LogRecord[]) => {
    let out = '';
    let err = '';
    for (const r of records) {
      const prefix = opts.prefixNodes ? `[${r.node.slice(r.node.indexOf('/') + 1)}] ` : '';
      if (r.channel === 'agent' && (r.source === 'setup' || r.source === 'run')) {
        if (r.stream === 'stderr') err += `${prefix}${r.line}\n`;
        else out += `${prefix}${r.line}\n`;
      } else if (r.channel === 'events' || r.source === 'agent' || opts.showBootstrap) {
        err += dim(`${prefix}${r.channel === 'bootstrap' ? '│ ' : '» '}${r.line}`) + '\n';
      }
    }
    if (out) process.stdout.write(out);
    if (err) process.stderr.write(err);
  };
}
