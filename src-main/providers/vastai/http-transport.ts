import { httpError, parseErrorBody, VastApiError, type ErrorBody } from './errors';
import {
  DEFAULT_RETRY,
  realClock,
  verdictFor,
  withRetry,
  type AttemptResult,
  type Clock,
  type Failure,
  type RetryPolicy,
} from './retry';

export interface HttpOptions {
  /** `TENDER_VASTAI_URL`, or https://console.vast.ai. Plain http only to this machine. */
  baseUrl: string;
  /** Sent as a Bearer token only: never in a URL, a log line or an error message. */
  apiKey: string;
  /** One attempt, connect to last body byte. */
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  clock?: Clock;
  random?: () => number;
}

// Vast.ai answers in well under a second; 30 s is a server stuck, not a slow one.
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface VastRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** From the API root: `/api/v0/instances/12/`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** False for a create: see `verdictFor`. */
  idempotent: boolean;
  /** Names the call in errors: "create instance on offer 7". */
  what: string;
}

export interface VastResponse {
  status: number;
  contentType: string;
  text: string;
  /** The parsed body; undefined when it is not JSON. */
  json: unknown;
}

/** HTTP requests to Vast.ai through the one retry layer (retry.ts), with a per-request
 *  timeout and Bearer auth. */
export class HttpTransport {
  private readonly base: string;
  private readonly apiKey: string;
  private readonly requestTimeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly clock: Clock;
  private readonly random: () => number;

  constructor(opts: HttpOptions) {
    this.base = checkBaseUrl(opts.baseUrl);
    if (!opts.apiKey.trim())
      throw new VastApiError('no Vast.ai API key', null, null, {
        fatal: true,
        hint: 'set TENDER_VASTAI_API_KEY (Vast.ai console → Account → Keys)',
      });
    this.apiKey = opts.apiKey.trim();
    this.requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.policy = { ...DEFAULT_RETRY, ...opts.retry };
    this.clock = opts.clock ?? realClock;
    this.random = opts.random ?? Math.random;
  }

  /** Returns the final answer (2xx or a status not worth retrying); throws when retries run
   *  out, the outcome is unknown, or the caller aborts. */
  async send(req: VastRequest, signal: AbortSignal): Promise<VastResponse> {
    const url = this.url(req);
    return withRetry((n) => this.attempt(req, url, n, signal), {
      policy: this.policy,
      clock: this.clock,
      random: this.random,
      signal,
      giveUp: (last, attempts, elapsedMs) => {
        const e = last as VastApiError;
        const took = Math.round(elapsedMs / 1000);
        return new VastApiError(
          `${last.message} (gave up after ${attempts} attempts in ${took} s)`,
          e.status ?? null,
          e.code ?? null,
          e.opts,
        );
      },
    }).catch((err: unknown) => {
      // Aborted while waiting between attempts: the last attempt was turned away, so even a
      // create is known not to have happened.
      if (!(err instanceof VastApiError) && signal.aborted) throw cancelled(req, signal, false);
      throw err;
    });
  }

  private async attempt(
    req: VastRequest,
    url: string,
    n: number,
    signal: AbortSignal,
  ): Promise<AttemptResult<VastResponse>> {
    if (signal.aborted)
      return { ok: false, retryable: false, error: cancelled(req, signal, false) };
    // One controller per attempt, fed by our timeout and the caller's signal (listener
    // removed after: a long-lived caller signal must not collect one per request).
    const stop = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stop.abort();
    }, this.requestTimeoutMs);
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let failure: Failure;
    let res: VastResponse | null = null;
    try {
      const answer = await fetch(url, {
        method: req.method,
        headers: this.headers(req.body !== undefined),
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        redirect: 'manual', // a redirect must not carry the key anywhere
        signal: stop.signal,
      });
      const text = redact(await answer.text(), this.apiKey);
      const contentType = answer.headers.get('content-type') ?? '';
      res = { status: answer.status, contentType, text, json: parseJson(text) };
      if (res.status !== 429 && res.status < 500) return { ok: true, value: res };
      failure = { kind: 'status', status: res.status };
    } catch (err) {
      if (signal.aborted) return { ok: false, retryable: false, error: cancelled(req, signal) };
      failure = timedOut ? { kind: 'timeout' } : { kind: 'network', code: errCode(err) };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
    const verdict = verdictFor(failure, req.idempotent);
    const unknown = verdict === 'outcome-unknown';
    const error = attemptError(req, failure, res, this.requestTimeoutMs, n, unknown);
    return { ok: false, retryable: verdict === 'retry', error };
  }

  private url(req: VastRequest): string {
    const q = req.query ? `?${new URLSearchParams(req.query).toString()}` : '';
    return `${this.base}${req.path}${q}`;
  }

  private headers(hasBody: boolean): Record<string, string> {
    const h: Record<string, string> = {
      Authorization: `Bearer ${this.apiKey}`,
      Accept: 'application/json',
      'User-Agent': 'tender',
    };
    if (hasBody) h['Content-Type'] = 'application/json';
    return h;
  }
}

export function bodyOf(res: VastResponse | null): ErrorBody {
  return res ? parseErrorBody(res.text, res.contentType) : { code: null, message: '' };
}

function attemptError(
  req: VastRequest,
  failure: Failure,
  res: VastResponse | null,
  timeoutMs: number,
  n: number,
  outcomeUnknown: boolean,
): VastApiError {
  const opts = outcomeUnknown ? { outcomeUnknown: true } : {};
  const tail = outcomeUnknown
    ? '; it may have happened anyway — look the label up before creating again'
    : '';
  switch (failure.kind) {
    case 'status': {
      const what = failure.status === 429 ? `${req.what} (rate limited)` : req.what;
      const e = httpError(what, failure.status, bodyOf(res), opts);
      return new VastApiError(`${e.message}${tail}`, e.status, e.code, e.opts);
    }
    case 'timeout': {
      const limit = timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`;
      const msg = `${req.what}: no answer within ${limit} (attempt ${n + 1})${tail}`;
      return new VastApiError(msg, null, null, opts);
    }
    case 'network':
      return new VastApiError(
        `${req.what}: cannot reach Vast.ai (${failure.code ?? 'network error'})${tail}`,
        null,
        null,
        { ...opts, hint: 'check the network, or TENDER_VASTAI_URL' },
      );
  }
}

/** The caller gave up. A create already on the wire may still happen. */
function cancelled(req: VastRequest, signal: AbortSignal, mayHaveHappened = !req.idempotent) {
  const why = signal.reason instanceof Error ? `: ${signal.reason.message}` : '';
  return new VastApiError(
    `${req.what} cancelled${why}${mayHaveHappened ? ' (it may have happened anyway)' : ''}`,
    null,
    null,
    mayHaveHappened ? { outcomeUnknown: true } : {},
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errCode(err: unknown): string | null {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = e.cause?.code ?? e.code;
  return typeof code === 'string' ? code : null;
}

/** Should a server ever echo the key, it goes no further than here. */
function redact(text: string, secret: string): string {
  return secret.length >= 8 ? text.split(secret).join('[redacted]') : text;
}

function checkBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new VastApiError(`TENDER_VASTAI_URL is not a URL: "${raw}"`, null, null, {
      fatal: true,
    });
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
    throw new VastApiError(
      `TENDER_VASTAI_URL must be https (plain http only to this machine): "${url.origin}"`,
      null,
      null,
      { fatal: true },
    );
  if (url.username || url.password || url.search)
    throw new VastApiError('TENDER_VASTAI_URL must not carry credentials or a query', null, null, {
      fatal: true,
    });
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
