import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GangProbe } from './gang-probe';

const probes: GangProbe[] = [];
afterEach(() => {
  for (const p of probes.splice(0)) p.closeAll();
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

describe('GangProbe', () => {
  it('a listening rank 0 is reached; once closed it is refused', async () => {
    const rank0 = new GangProbe();
    const rank1 = new GangProbe();
    probes.push(rank0, rank1);
    const port = await freePort();
    await rank0.listen(port, 10_000);
    await rank0.listen(port, 10_000); // twice is once
    expect(await rank1.connect('127.0.0.1', port, 2_000)).toMatchObject({ ok: true });
    rank0.close(port);
    expect(await rank1.connect('127.0.0.1', port, 300)).toEqual({
      ok: false,
      error: 'ECONNREFUSED',
    });
  });

  it('waits for a rank 0 that listens a moment later', async () => {
    const rank0 = new GangProbe();
    probes.push(rank0);
    const port = await freePort();
    const reached = new GangProbe().connect('127.0.0.1', port, 3_000);
    await new Promise((r) => setTimeout(r, 300));
    await rank0.listen(port, 10_000);
    expect(await reached).toMatchObject({ ok: true });
  });

  it('says when the port is someone else’s, and when it cannot listen', async () => {
    const port = await freePort();
    const other = createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\nnope nope nope\n'));
    await new Promise<void>((r) => other.listen(port, '0.0.0.0', r));
    try {
      expect(await new GangProbe().connect('127.0.0.1', port, 1_000)).toEqual({
        ok: false,
        error: 'not_the_probe',
      });
      const rank0 = new GangProbe();
      probes.push(rank0);
      await expect(rank0.listen(port, 1_000)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await new Promise((r) => other.close(r));
    }
  });
});
