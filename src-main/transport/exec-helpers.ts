import { MarkerScanner } from '../../src-agent/wire/marker';
import type { ExitStatus, NodeShell } from './node-shell';

export interface CapturedExec extends ExitStatus {
  stdout: string;
  stderr: string;
}

/** Runs a command to completion and captures its output (for small outputs only). Lines
 *  are also handed to `onLine` as they arrive, so a bootstrap can stream them. */
export async function execCapture(
  shell: NodeShell,
  command: string,
  opts: {
    stdin?: Buffer | string;
    signal?: AbortSignal;
    onLine?: (stream: 'stdout' | 'stderr', line: string) => void;
  } = {},
): Promise<CapturedExec> {
  const ch = shell.exec(command);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const onAbort = () => ch.close();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const lines = (stream: 'stdout' | 'stderr') => {
    let carry = '';
    return (chunk: Buffer) => {
      if (!opts.onLine) return;
      carry += chunk.toString('utf8');
      let nl: number;
      while ((nl = carry.indexOf('\n')) !== -1) {
        opts.onLine(stream, carry.slice(0, nl));
        carry = carry.slice(nl + 1);
      }
    };
  };
  const outLines = lines('stdout');
  const errLines = lines('stderr');
  ch.stdout.on('data', (c: Buffer) => {
    out.push(c);
    outLines(c);
  });
  ch.stderr.on('data', (c: Buffer) => {
    err.push(c);
    errLines(c);
  });
  if (opts.stdin !== undefined) ch.stdin.end(opts.stdin);
  else ch.stdin.end();
  try {
    const status = await ch.exit;
    const stdout = Buffer.concat(out).toString('utf8');
    const stderr = Buffer.concat(err).toString('utf8');
    if (opts.onLine) {
      flushLast(stdout, 'stdout', opts.onLine);
      flushLast(stderr, 'stderr', opts.onLine);
    }
    return { ...status, stdout, stderr };
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

function flushLast(
  text: string,
  stream: 'stdout' | 'stderr',
  onLine: (s: 'stdout' | 'stderr', l: string) => void,
) {
  const i = text.lastIndexOf('\n');
  const rest = text.slice(i + 1);
  if (rest) onLine(stream, rest);
}

/** The JSON an agent command printed after its stream marker (noise before it skipped). */
export function parseAfterMarker<T>(stdout: string): T | null {
  const scanner = new MarkerScanner();
  const rest = scanner.push(Buffer.from(stdout, 'utf8'));
  if (rest === undefined) return null;
  const text = rest.toString('utf8').trim();
  if (!text) return null;
  try {
    return JSON.parse(text.split('\n')[0]!) as T;
  } catch {
    return null;
  }
}

/** Single-quotes a string for bash. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
