// One HTTP attempt of a marketplace adapter: its own timeout, the caller's signal, the key
// sent as a Bearer token and never followed through a redirect, and the key scrubbed from
// whatever the server answers. What the attempt means (retry or not, which error) is the
// adapter's: it gets the answer, or why there was none.
import type { Failure } from './retry';

export interface FetchedAnswer {
  status: number;
  contentType: string;
  /** The body, the API key replaced by `[redacted]` should a server ever echo it. */
  text: string;
  headers: Headers;
}

export type FetchOutcome =
  | { kind: 'answer'; answer: FetchedAnswer }
  /** The caller's signal aborted it: a request already on the wire may have been acted on. */
  | { kind: 'aborted' }
  /** No answer: our timeout fired, or the connection failed. */
  | { kind: 'failed'; failure: Exclude<Failure, { kind: 'status' }> };

export interface FetchOnce {
  url: string;
  method: string;
  /** Sent as `Authorization: Bearer …` only. */
  apiKey: string;
  /** JSON-encoded when given. */
  body?: unknown;
  timeoutMs: number;
  signal: AbortSignal;
}

export async function fetchOnce(req: FetchOnce): Promise<FetchOutcome> {
  // One controller per attempt, fed by our timeout and the caller's signal (listener
  // removed after: a long-lived caller signal must not collect one per request).
  const stop = new AbortController();
  let isTimedOut = false;
  const timer = setTimeout(() => {
    isTimedOut = true;
    stop.abort();
  }, req.timeoutMs);
  const onAbort = () => stop.abort();
  req.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await fetch(req.url, {
      method: req.method,
      headers: headers(req.apiKey, req.body !== undefined),
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      redirect: 'manual', // a redirect must not carry the key anywhere
      signal: stop.signal,
    });
    const text = redact(await res.text(), req.apiKey);
    const contentType = res.headers.get('content-type') ?? '';
    return {
      kind: 'answer',
      answer: { status: res.status, contentType, text, headers: res.headers },
    };
  } catch (err) {
    if (req.signal.aborted) return { kind: 'aborted' };
    return {
      kind: 'failed',
      failure: isTimedOut ? { kind: 'timeout' } : { kind: 'network', code: errCode(err) },
    };
  } finally {
    clearTimeout(timer);
    req.signal.removeEventListener('abort', onAbort);
  }
}

function headers(apiKey: string, hasBody: boolean): Record<string, string> {
  const h: Record<string, string> = {
    Authorization: `Bearer ${apiKey}`,
    Accept: 'application/json',
    'User-Agent': 'tender',
  };
  if (hasBody) h['Content-Type'] = 'application/json';
  return h;
}

/** The socket error of a failed fetch (undici puts it on `cause`). */
function errCode(err: unknown): string | null {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = e.cause?.code ?? e.code;
  return typeof code === 'string' ? code : null;
}

/** Should a server ever echo the key, it goes no further than here. */
export function redact(text: string, secret: string): string {
  return secret.length >= 8 ? text.split(secret).join('[redacted]') : text;
}

/** "30 s", "500 ms": a timeout as errors name it. */
export function limitText(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}
