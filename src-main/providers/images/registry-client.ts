// What an image's registry tells before anything is rented: the platforms it is built for,
// its compressed size (what a host without it must pull) and the user it runs as. The OCI
// distribution API (`GET /v2/<repo>/manifests/<ref>`, `/blobs/<digest>`), anonymous pull
// tokens as Docker Hub, ghcr.io and nvcr.io hand them out (a 401 with
// `WWW-Authenticate: Bearer realm=…,service=…,scope=…`). Never throws: an image the registry
// will not describe (private, offline, unknown) is `unknown` with the reason.
import { parseImageRef, registryBaseUrl, type ImageRef } from './image-ref';

export interface ImagePlatform {
  os: string;
  architecture: string;
}

export interface ImageFacts {
  ref: string;
  /** The platforms the image is built for (an index's entries, or the one manifest's). */
  platforms: ImagePlatform[];
  /** Layers plus config of the linux/amd64 variant (else the first linux one), as the
   *  registry lists them: the bytes a host without any of it pulls. */
  compressedBytes: number | null;
  /** The config's `User` ('' when the image runs as root by default). */
  user: string;
  /** Where it was read: the registry's host. */
  source: string;
}

export type ImageLookup = { facts: ImageFacts } | { unknown: string };

/** A private image's registry login (the pool's `image_login`, its password read). Sent
 *  only to the registry's own token service (or the registry, for Basic auth), as docker
 *  login does; never logged, never kept. */
export interface RegistryLogin {
  username: string;
  password: string;
}

export type InspectImage = (
  image: string,
  signal: AbortSignal,
  login?: RegistryLogin,
) => Promise<ImageLookup>;

const ACCEPT = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
].join(', ');
const DEFAULT_TIMEOUT_MS = 8_000; // a registry that is slower than this is asked again next run
const MAX_BODY_BYTES = 4 << 20; // a manifest or config is KBs; never read a layer by mistake
const PREFERRED_ARCH = 'amd64';

interface Manifest {
  manifests?: { digest?: string; platform?: { os?: string; architecture?: string } }[];
  layers?: { size?: number }[];
  config?: { digest?: string; size?: number };
}

/** An inspector over HTTP (`fetch`). `timeoutMs` bounds the whole lookup. */
export function registryInspector(opts: { timeoutMs?: number } = {}): InspectImage {
  return (image, signal, login) =>
    inspectImage(image, signal, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, login);
}

async function inspectImage(
  image: string,
  outer: AbortSignal,
  timeoutMs: number,
  login: RegistryLogin | undefined,
): Promise<ImageLookup> {
  const ref = parseImageRef(image);
  if ('problem' in ref) return { unknown: ref.problem };
  const signal = AbortSignal.any([outer, AbortSignal.timeout(timeoutMs)]);
  const session = new RegistrySession(ref, signal, login);
  try {
    let top = await session.json<Manifest>(`manifests/${ref.reference}`, ACCEPT);
    let platforms: ImagePlatform[] = [];
    if (Array.isArray(top.manifests)) {
      platforms = top.manifests
        .map((m) => ({ os: m.platform?.os ?? '', architecture: m.platform?.architecture ?? '' }))
        .filter((p) => p.os !== 'unknown' && p.os !== ''); // attestations, not platforms
      const pick =
        top.manifests.find(
          (m) => m.platform?.os === 'linux' && m.platform.architecture === PREFERRED_ARCH,
        ) ?? top.manifests.find((m) => m.platform?.os === 'linux');
      if (!pick?.digest) return { facts: facts(ref, platforms, null, '') };
      top = await session.json<Manifest>(`manifests/${pick.digest}`, ACCEPT);
    }
    const layers = Array.isArray(top.layers) ? top.layers : [];
    const bytes =
      layers.reduce((n, l) => n + (typeof l.size === 'number' ? l.size : 0), 0) +
      (typeof top.config?.size === 'number' ? top.config.size : 0);
    if (!top.config?.digest)
      return { unknown: `${ref.registry} answered a manifest without a config` };
    const config = await session.json<{
      os?: string;
      architecture?: string;
      config?: { User?: string };
    }>(`blobs/${top.config.digest}`, '*/*');
    if (platforms.length === 0)
      platforms = [{ os: config.os ?? '', architecture: config.architecture ?? '' }];
    return { facts: facts(ref, platforms, bytes || null, config.config?.User ?? '') };
  } catch (err) {
    if (outer.aborted) throw err;
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError') return { unknown: `${ref.registry} did not answer in time` };
    if (e.message === 'fetch failed')
      return { unknown: `${ref.registry} unreachable${e.cause?.code ? ` (${e.cause.code})` : ''}` };
    return { unknown: e.message };
  }
}

function facts(
  ref: ImageRef,
  platforms: ImagePlatform[],
  compressedBytes: number | null,
  user: string,
): ImageFacts {
  return { ref: ref.text, platforms, compressedBytes, user, source: ref.registry };
}

/** One lookup's requests to one repository, with the pull token once one was asked for. */
class RegistrySession {
  /** The Authorization header once one was earned: a pull token, or the login itself. */
  private auth: string | null = null;
  private readonly base: string;

  constructor(
    private readonly ref: ImageRef,
    private readonly signal: AbortSignal,
    private readonly login: RegistryLogin | undefined,
  ) {
    this.base = `${registryBaseUrl(ref)}/v2/${ref.repository}`;
  }

  async json<T>(path: string, accept: string): Promise<T> {
    let res = await this.get(`${this.base}/${path}`, accept);
    if (res.status === 401 && this.auth === null) {
      await res.body?.cancel();
      this.auth = await this.authFor(res.headers.get('www-authenticate'));
      res = await this.get(`${this.base}/${path}`, accept);
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw new Error(this.refusal());
    }
    if (res.status === 404) {
      await res.body?.cancel();
      throw new Error(`${this.ref.registry} has no image ${this.ref.text}`);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`${this.ref.registry} answered HTTP ${res.status}`);
    }
    const text = await res.text();
    if (text.length > MAX_BODY_BYTES) throw new Error(`${this.ref.registry}: answer too large`);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new Error(`${this.ref.registry} answered something that is not JSON`);
    }
  }

  private get(url: string, accept: string): Promise<Response> {
    const headers: Record<string, string> = { accept };
    if (this.auth) headers.authorization = this.auth;
    return fetch(url, { headers, signal: this.signal });
  }

  private refusal(): string {
    return this.login
      ? `${this.ref.registry} refused the login for ${this.login.username}`
      : `${this.ref.registry} wants a login to describe ${this.ref.text}`;
  }

  private basic(): string {
    const { username, password } = this.login!;
    return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  }

  /** What the 401 asks for: Basic (the login itself, when there is one), or a pull token
   *  from the realm it names (anonymous, or with the login). */
  private async authFor(challenge: string | null): Promise<string> {
    if (this.login && /^\s*Basic\b/i.test(challenge ?? '')) return this.basic();
    const params = parseChallenge(challenge ?? '');
    if (!params.realm) throw new Error(this.refusal());
    const url = new URL(params.realm);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLocalUrl(url)))
      throw new Error(`${this.ref.registry} named a token service that is not https`);
    if (params.service) url.searchParams.set('service', params.service);
    url.searchParams.set('scope', params.scope ?? `repository:${this.ref.repository}:pull`);
    const headers: Record<string, string> = this.login ? { authorization: this.basic() } : {};
    const res = await fetch(url, { headers, signal: this.signal });
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(this.refusal());
    }
    const body = (await res.json()) as { token?: string; access_token?: string };
    const token = body.token ?? body.access_token;
    if (!token) throw new Error(`${this.ref.registry}'s token service answered no token`);
    return `Bearer ${token}`;
  }
}

/** `Bearer realm="…",service="…",scope="…"` → its parameters. */
export function parseChallenge(header: string): Record<string, string> {
  const m = /^\s*Bearer\s+(.*)$/i.exec(header);
  if (!m) return {};
  const out: Record<string, string> = {};
  for (const p of m[1]!.matchAll(/([a-zA-Z_]+)="([^"]*)"/g)) out[p[1]!.toLowerCase()] = p[2]!;
  return out;
}

function isLocalUrl(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}
