// Talking to a daemon's socket from the one-shot commands.
import { type Socket, createConnection } from 'node:net';
import type { HelloResult, Response } from '../wire/protocol';

/** Connects, or resolves undefined when nothing listens (no socket file, refused). */
export function connect(path: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.off('error', fail);
      resolve(socket);
    });
    const fail = () => {
      socket.destroy();
      resolve(undefined);
    };
    socket.once('error', fail);
  });
}

/** Sends `hello` and returns its result; undefined when no daemon answers in time. */
export async function hello(path: string, timeoutMs: number): Promise<HelloResult | undefined> {
  const socket = await connect(path);
  if (!socket) return undefined;
  return new Promise((resolve) => {
    let text = '';
    const done = (result: HelloResult | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const nl = text.indexOf('\n');
      if (nl < 0) return;
      try {
        const res = JSON.parse(text.slice(0, nl)) as Response<'hello'>;
        done(res.ok ? res.result : undefined);
      } catch {
        done(undefined);
      }
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
    socket.write(`${JSON.stringify({ id: 'hello', op: 'hello' })}\n`);
  });
}
