// The pre-flight of a distributed run (docs/distributed.md): rank 0's agent listens on the
// master port for a while, each other rank's agent connects to rank 0's address, and a
// connection is counted only when it reads the probe's banner (so another service on that
// port is not taken for rank 0). What fails is said in the words the app shows the user.
import { createConnection, createServer, type Server } from 'node:net';

export const PROBE_BANNER = 'tender-gang-probe\n';
const REFUSED_RETRY_MS = 2_000;

export interface ProbeConnectResult {
  ok: boolean;
  /** Connect to banner, in ms (ok only). */
  ms?: number;
  /** `ECONNREFUSED`, `timeout`, `not_the_probe`, `EHOSTUNREACH`… (not ok). */
  error?: string;
}

export class GangProbe {
  private readonly servers = new Map<number, { server: Server; timer: NodeJS.Timeout }>();

  /** Listens on every address at `port` until `close` or `ttlMs`; rejects with the
   *  errno (EADDRINUSE, EACCES) when it cannot. Listening twice on one port is one. */
  async listen(port: number, ttlMs: number): Promise<void> {
    const held = this.servers.get(port);
    if (held) {
      held.timer.refresh();
      return;
    }
    const server = createServer((socket) => {
      socket.on('error', () => socket.destroy());
      socket.end(PROBE_BANNER);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host: '0.0.0.0', exclusive: true }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const timer = setTimeout(() => this.close(port), ttlMs);
    timer.unref();
    this.servers.set(port, { server, timer });
  }

  close(port: number): void {
    const held = this.servers.get(port);
    if (!held) return;
    clearTimeout(held.timer);
    held.server.close();
    this.servers.delete(port);
  }

  closeAll(): void {
    for (const port of [...this.servers.keys()]) this.close(port);
  }

  /** One attempt, retried on refusal for up to `REFUSED_RETRY_MS` (rank 0 listens before
   *  the others are told to connect, but a mapping may lag a moment); a silent drop waits
   *  up to `timeoutMs`. */
  connect(host: string, port: number, timeoutMs: number): Promise<ProbeConnectResult> {
    const deadline = Date.now() + timeoutMs;
    const refusedUntil = Date.now() + Math.min(timeoutMs, REFUSED_RETRY_MS);
    const once = (): Promise<ProbeConnectResult> =>
      new Promise((resolve) => {
        const t0 = Date.now();
        let got = '';
        const socket = createConnection({ host, port });
        const timer = setTimeout(
          () => finish({ ok: false, error: 'timeout' }),
          Math.max(1, deadline - Date.now()),
        );
        const finish = (r: ProbeConnectResult) => {
          clearTimeout(timer);
          socket.destroy();
          resolve(r);
        };
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          got += chunk;
          if (got.length >= PROBE_BANNER.length)
            finish(
              got.startsWith(PROBE_BANNER)
                ? { ok: true, ms: Date.now() - t0 }
                : { ok: false, error: 'not_the_probe' },
            );
        });
        socket.on('end', () =>
          finish({ ok: false, error: got.startsWith(PROBE_BANNER) ? 'timeout' : 'not_the_probe' }),
        );
        socket.on('error', (err: NodeJS.ErrnoException) =>
          finish({ ok: false, error: err.code ?? err.message }),
        );
      });
    const attempt = async (): Promise<ProbeConnectResult> => {
      const r = await once();
      if (r.ok || r.error !== 'ECONNREFUSED' || Date.now() + 100 > refusedUntil) return r;
      await new Promise((w) => setTimeout(w, 100));
      return attempt();
    };
    return attempt();
  }
}
