#!/usr/bin/env node
// A TCP proxy that holds every chunk for a fixed time in each direction: what a long link
// adds to round trips, which this kernel cannot (no netem). Its own process, so the bench's
// event loop (ssh2 encrypting a push) cannot stretch the delays. Reading stops while more
// than HIGH bytes wait, so the sender feels the link's back-pressure instead of filling
// this process. Prints `listening <port>` once it accepts.
// Usage: node bench/delay-proxy.mjs <listenPort|0> <targetHost> <targetPort> <delayMs>
import { createServer, connect } from 'node:net';

const [listenPort, host, port, delayMs] = process.argv.slice(2);
const DELAY = Number(delayMs);
/** Far above the link's bandwidth-delay product (100 Mbit/s × 20 ms = 250 KB). */
const HIGH = 4 * 1024 * 1024;

/** Forwards `from` to `to`, each chunk DELAY ms after it arrived, in order. */
function delayLine(from, to) {
  const queue = [];
  let held = 0;
  let timer;
  let isEnded = false;
  const isFull = () => held + to.writableLength > HIGH;
  const flush = () => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && queue[0].at <= now) {
      const { chunk } = queue.shift();
      held -= chunk.length;
      to.write(chunk);
    }
    if (queue.length > 0) timer = setTimeout(flush, queue[0].at - now);
    else if (isEnded) to.end();
    if (!isFull() && from.isPaused()) from.resume();
  };
  from.on('data', (chunk) => {
    queue.push({ at: performance.now() + DELAY, chunk });
    held += chunk.length;
    if (isFull()) from.pause();
    timer ??= setTimeout(flush, DELAY);
  });
  to.on('drain', () => {
    if (!isFull() && from.isPaused()) from.resume();
  });
  from.on('end', () => {
    isEnded = true;
    if (queue.length === 0 && timer === undefined) to.end();
  });
}

const server = createServer((client) => {
  const upstream = connect({ host, port: Number(port) });
  client.setNoDelay(true);
  upstream.setNoDelay(true);
  delayLine(client, upstream);
  delayLine(upstream, client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  // An end travels the delay line like data; an error ends both at once.
  client.on('error', close);
  upstream.on('error', close);
});
server.listen(Number(listenPort), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
