import { connect } from 'node:net';

/** What a server answered on one raw connection: all bytes it sent before the connection
 *  closed (empty when it closed or reset without a word), and its status, if any. */
export interface RawAnswer {
  text: string;
  status: number | null;
}

/**
 * Sends `bytes` on a fresh TCP connection to 127.0.0.1:`port` exactly as given (no HTTP
 * client in between, so malformed input stays malformed), then half-closes, or resets the
 * connection when `reset` is set, and reads until the server closes. Fails after
 * `deadlineMs` naming the input: a server that neither answers nor closes is a defect too.
 */
export function rawExchange(
  port: number,
  bytes: string | Buffer,
  opts: { reset?: boolean; deadlineMs?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `no answer and no close within ${opts.deadlineMs ?? 10_000} ms for ${show(bytes)}`,
        ),
      );
    }, opts.deadlineMs ?? 10_000);
    const done = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(text);
      resolve({ text, status: m ? Number(m[1]) : null });
    };
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined); // a reset from the server ends it like a close
    socket.on('close', done);
    socket.once('connect', () => {
      socket.write(bytes, () => {
        if (opts.reset) socket.resetAndDestroy();
        else socket.end();
      });
    });
  });
}

function show(bytes: string | Buffer): string {
  const s = typeof bytes === 'string' ? bytes : bytes.toString('latin1');
  return JSON.stringify(s.length > 120 ? `${s.slice(0, 120)}…(${s.length} bytes)` : s);
}
