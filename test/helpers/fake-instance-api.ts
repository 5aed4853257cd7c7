// A stand-in for the part of the Vast.ai API a node uses to destroy itself: it records every
// request on 127.0.0.1 and answers 200, or a failure status from its script first.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

export class FakeInstanceApi {
  readonly requests: SeenRequest[] = [];
  /** Statuses to answer with, one per request, before answering 200. */
  failures: number[] = [];
  /** When set, every request is answered with this status. */
  failAllWith: number | null = null;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeInstanceApi> {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        api.requests.push({
          method: req.method ?? '',
          path: req.url ?? '',
          authorization: req.headers.authorization,
          body,
        });
        const status = api.failAllWith ?? api.failures.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(status === 200 ? '{"success":true}' : `{"error":"status ${status}"}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const api = new FakeInstanceApi(server, `http://127.0.0.1:${port}`);
    return api;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
