// A container registry on 127.0.0.1 that describes the fake images over the OCI distribution
// API, as Docker Hub does for a public image: `GET /v2/<repo>/manifests/<ref>` answers 401
// with `WWW-Authenticate: Bearer realm=…,service=…,scope=…`; the realm hands out an
// anonymous pull token; with it, a multi-platform image answers an index, a one-platform one
// its manifest (layers with sizes, a config digest), and `/blobs/<digest>` the config (its
// `User`, os, architecture). Images are named `<host>/<repo>:<tag>` so that Tender's client
// finds this registry by the name alone, as it finds ghcr.io.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFakeHttpServer } from '../fake-http-server';
import { imageOf, type FakeImage, type ImageCatalog, type ImageSpec } from './image';

const INDEX = 'application/vnd.oci.image.index.v1+json';
const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';

export interface FakeRegistry {
  /** `127.0.0.1:<port>` */
  host: string;
  /** `<host>/<name>`: the image's full name. */
  ref(name: string): string;
  /** The catalog the marketplace fakes take (full names). */
  catalog: ImageCatalog;
  /** Paths asked, in order (tokens left out). */
  requests(): string[];
  stop(): Promise<void>;
}

export async function startFakeRegistry(images: Record<string, FakeImage>): Promise<FakeRegistry> {
  /** Pull tokens handed out: token → the repository it may read. */
  const tokens = new Map<string, string>();
  const blobs = new Map<string, string>();
  const asked: string[] = [];
  let host = '';
  const server = await startFakeHttpServer(async (req, res) => {
    handle(req, res);
  });
  host = server.url.replace('http://', '');
  const find = (repo: string, ref: string): ImageSpec | null => {
    const img = images[`${repo}:${ref}`];
    return img ? imageOf(() => img, '') : null;
  };

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', `http://${host}`);
    if (url.pathname === '/token') return issueToken(req, res, url);
    asked.push(url.pathname);
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(url.pathname);
    if (!m) return send(res, 404, 'text/plain', 'not found');
    const [, repo, kind, ref] = m as unknown as [string, string, string, string];
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || tokens.get(bearer) !== repo) {
      res.setHeader(
        'www-authenticate',
        `Bearer realm="http://${host}/token",service="fake-registry",scope="repository:${repo}:pull"`,
      );
      return send(res, 401, 'application/json', '{"errors":[{"code":"UNAUTHORIZED"}]}');
    }
    if (kind === 'blobs') {
      const blob = blobs.get(ref);
      return blob
        ? send(res, 200, 'application/octet-stream', blob)
        : send(res, 404, 'application/json', '{"errors":[{"code":"BLOB_UNKNOWN"}]}');
    }
    const byDigest = blobs.get(ref);
    if (byDigest) return send(res, 200, MANIFEST, byDigest);
    const img = find(repo, ref);
    if (!img) return send(res, 404, 'application/json', '{"errors":[{"code":"MANIFEST_UNKNOWN"}]}');
    const manifests = img.platforms.map((p) => {
      const config = put(
        JSON.stringify({ os: p.os, architecture: p.architecture, config: { User: img.user } }),
      );
      return put(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: MANIFEST,
          config: { digest: config.digest, size: config.size },
          layers: img.layers.map((size, i) => ({ digest: `sha256:${String(i).repeat(64)}`, size })),
        }),
      );
    });
    if (img.platforms.length === 1)
      return send(res, 200, MANIFEST, blobs.get(manifests[0]!.digest)!);
    const index = {
      schemaVersion: 2,
      mediaType: INDEX,
      manifests: manifests.map((m, i) => ({
        mediaType: MANIFEST,
        digest: m.digest,
        size: m.size,
        platform: img.platforms[i],
      })),
    };
    return send(res, 200, INDEX, JSON.stringify(index));
  }

  /** Docker Hub's token service: anonymous for a public repository; a private one's
   *  (an image with a `login`) only with its login as Basic auth. */
  function issueToken(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const repo = /^repository:(.+):pull$/.exec(url.searchParams.get('scope') ?? '')?.[1] ?? '';
    const login = Object.entries(images).find(([k]) => k.startsWith(`${repo}:`))?.[1].login;
    if (login) {
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const given = basic ? Buffer.from(basic, 'base64').toString() : '';
      if (given !== `${login.username}:${login.password}`)
        return send(res, 401, 'application/json', '{"details":"incorrect username or password"}');
    }
    const token = randomBytes(16).toString('hex');
    tokens.set(token, repo);
    return send(res, 200, 'application/json', JSON.stringify({ token }));
  }

  function put(body: string): { digest: string; size: number } {
    const digest = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    blobs.set(digest, body);
    return { digest, size: Buffer.byteLength(body) };
  }

  const full = (name: string) => `${host}/${name}`;
  return {
    host,
    ref: full,
    catalog: (image) => {
      const prefix = `${host}/`;
      return image.startsWith(prefix) ? images[image.slice(prefix.length)] : undefined;
    },
    requests: () => [...asked],
    stop: () => server.close(),
  };
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
