import { afterEach, describe, expect, it } from 'vitest';
import type { NodeShell } from '../../transport/node-shell';
import {
  connectOutcome,
  DroppableShell,
  freePortHere,
  roundTrip,
  tcpServer,
} from './forwards.test-util';
import { RemoteForward } from './remote-forward';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A service "on the laptop" that greets and echoes. */
async function laptopService() {
  const s = await tcpServer((sock) => {
    sock.write('hello from the laptop\n');
    sock.pipe(sock);
  });
  cleanups.push(() => s.close());
  return s;
}

describe('RemoteForward (the node listens on its loopback, a local node: here)', () => {
  it("reaches a service here from the node's port", async () => {
    const service = await laptopService();
    const nodePort = await freePortHere();
    const shell = new DroppableShell('node');
    const f = await RemoteForward.open({
      nodePort,
      host: '127.0.0.1',
      localPort: service.port,
      shell: async () => shell,
    });
    cleanups.push(() => f.close());
    expect(f.isListening).toBe(true);
    expect((await roundTrip(nodePort, 'ping\n')).toString()).toBe('hello from the laptop\nping\n');
    await f.close();
    expect(await connectOutcome(nodePort)).toBe('ECONNREFUSED');
  });

  it('listens again on a fresh connection after the old one dropped', async () => {
    const service = await laptopService();
    const nodePort = await freePortHere();
    let current = new DroppableShell('first');
    const first = current;
    const states: string[] = [];
    const f = await RemoteForward.open({
      nodePort,
      host: '127.0.0.1',
      localPort: service.port,
      shell: async (failed?: NodeShell) => {
        if (failed === current) current = new DroppableShell('second');
        return current;
      },
      onState: (s) => states.push(s),
    });
    cleanups.push(() => f.close());
    await first.drop();
    await first.closed;
    while (!f.isListening) await new Promise((r) => setTimeout(r, 10));
    expect(current).not.toBe(first);
    expect(states).toEqual(['reconnecting', 'listening']);
    expect((await roundTrip(nodePort, '')).toString()).toBe('hello from the laptop\n');
  });

  it('says why when the node port is taken', async () => {
    const taken = await tcpServer(() => {});
    cleanups.push(() => taken.close());
    const err = await RemoteForward.open({
      nodePort: taken.port,
      host: 'localhost',
      localPort: 1,
      shell: async () => new DroppableShell('node'),
    }).catch((e: Error) => e.message);
    expect(err).toContain('EADDRINUSE');
  });
});
