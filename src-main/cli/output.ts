import type { ErrorData } from '../contract';
import { terminalSafe } from './terminal-text';

const useColor = (stream: NodeJS.WriteStream) => stream.isTTY === true && !process.env.NO_COLOR;

export function paint(stream: NodeJS.WriteStream, code: string, text: string): string {
  return useColor(stream) ? `\x1b[${code}m${text}\x1b[0m` : text;
}

export const dim = (s: string) => paint(process.stderr, '2', s);
export const red = (s: string, stream: NodeJS.WriteStream = process.stderr) =>
  paint(stream, '31', s);
export const green = (s: string, stream: NodeJS.WriteStream = process.stderr) =>
  paint(stream, '32', s);
export const yellow = (s: string, stream: NodeJS.WriteStream = process.stderr) =>
  paint(stream, '33', s);
export const bold = (s: string, stream: NodeJS.WriteStream = process.stderr) =>
  paint(stream, '1', s);

/** Progress and notices go to stderr, so stdout carries only the job's own output. A
 *  notice may quote a node (a failure reason, a setup's last line): colours only. */
export function info(line: string): void {
  process.stderr.write(`${terminalSafe(line)}\n`);
}

export function printError(e: ErrorData): void {
  process.stderr.write(`${red('tender:')} ${terminalSafe(e.message)}\n`);
  if (e.hint) process.stderr.write(`  ${dim(`hint: ${terminalSafe(e.hint)}`)}\n`);
}

/** A plain text table: columns padded to their widest cell. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => visibleLength(r[i] ?? ''))));
  return rows
    .map((r) =>
      r
        .map((cell, i) =>
          i === r.length - 1 ? cell : cell + ' '.repeat(widths[i]! - visibleLength(cell)),
        )
        .join('  '),
    )
    .join('\n');
}

function visibleLength(s: string): number {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;]*m/g, '').length;
}

export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400)
    return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d`;
}
