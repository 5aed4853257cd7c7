import { gaveUp } from '../http/api-error';
import { fetchOnce, limitText } from '../http/fetch-once';
import { parseBaseUrl } from '../http/base-url';
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
      giveUp: gaveUp,
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
    const out = await fetchOnce({
      url,
      method: req.method,
      apiKey: this.apiKey,
      body: req.body,
      timeoutMs: this.requestTimeoutMs,
      signal,
    });
    if (out.kind === 'aborted')
      return { ok: false, retryable: false, error: cancelled(req, signal) };
    let failure: Failure;
    let res: VastResponse | null = null;
    if (out.kind === 'answer') {
      const { status, contentType, text } = out.answer;
      res = { status, contentType, text, json: parseJson(text) };
      if (status !== 429 && status < 500) return { ok: true, value: res };
      failure = { kind: 'status', status };
    } else {
      failure = out.failure;
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
      const limit = limitText(timeoutMs);
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

function checkBaseUrl(raw: string): string {
  const parsed = parseBaseUrl(raw, 'TENDER_VASTAI_URL');
  if ('problem' in parsed) throw new VastApiError(parsed.problem, null, null, { fatal: true });
  return parsed.url;
}
