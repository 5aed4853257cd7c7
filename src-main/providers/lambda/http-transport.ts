import { gaveUp } from '../http/api-error';
import { parseBaseUrl } from '../http/base-url';
import { fetchOnce, limitText } from '../http/fetch-once';
import { httpError, LambdaApiError, parseErrorBody } from './errors';
import {
  DEFAULT_LAUNCH_INTERVAL_MS,
  DEFAULT_RETRY,
  LaunchSpacing,
  realClock,
  verdictFor,
  withRetry,
  type AttemptResult,
  type Clock,
  type Failure,
  type RetryPolicy,
} from './retry';

export interface HttpOptions {
  /** `TENDER_LAMBDA_URL`, or https://cloud.lambda.ai; paths go under `/api/v1`. Plain
   *  http only to this machine. */
  baseUrl: string;
  /** Sent as a Bearer token only: never in a URL, a log line or an error message. */
  apiKey: string;
  /** One attempt, connect to last body byte. */
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Launches at least this far apart (default 12 s: Lambda's documented limit). */
  launchIntervalMs?: number;
  clock?: Clock;
  random?: () => number;
}

// dstack gives Lambda 120 s; a launch answers in seconds, a listing in well under one.
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export interface LambdaRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Under `/api/v1`: `/instances/abc`. */
  path: string;
  body?: unknown;
  /** False for a launch: see `verdictFor`. */
  idempotent: boolean;
  /** A launch: waits for its slot (LaunchSpacing) first. */
  spaced?: boolean;
  /** Names the call in errors: "launch gpu_1x_a10 in us-east-1". */
  what: string;
}

/** HTTP requests to Lambda Cloud through the one retry layer (retry.ts): Bearer auth, a
 *  per-request timeout, redirects refused (a redirect must not carry the key anywhere; a
 *  POST through the old host's 301 would turn into a GET), the key redacted from answers.
 *  Returns the `data` of a 2xx answer; throws `LambdaApiError` otherwise. */
export class HttpTransport {
  private readonly base: string;
  private readonly apiKey: string;
  private readonly requestTimeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly launches: LaunchSpacing;

  constructor(opts: HttpOptions) {
    this.base = `${checkBaseUrl(opts.baseUrl)}/api/v1`;
    if (!opts.apiKey.trim())
      throw new LambdaApiError('no Lambda Cloud API key', null, null, {
        fatal: true,
        hint: 'set TENDER_LAMBDA_API_KEY (cloud.lambda.ai → API keys)',
      });
    this.apiKey = opts.apiKey.trim();
    this.requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.policy = { ...DEFAULT_RETRY, ...opts.retry };
    this.clock = opts.clock ?? realClock;
    this.random = opts.random ?? Math.random;
    this.launches = new LaunchSpacing(
      opts.launchIntervalMs ?? DEFAULT_LAUNCH_INTERVAL_MS,
      this.clock,
    );
  }

  async send(req: LambdaRequest, signal: AbortSignal): Promise<unknown> {
    return withRetry(
      async (n) => {
        if (req.spaced) await this.launches.take(signal).catch(() => {});
        return this.attempt(req, n, signal);
      },
      {
        policy: this.policy,
        clock: this.clock,
        random: this.random,
        signal,
        giveUp: gaveUp,
      },
    ).catch((err: unknown) => {
      // Aborted between attempts: the last one was turned away, so even a launch did not run.
      if (!(err instanceof LambdaApiError) && signal.aborted) throw cancelled(req, signal, false);
      throw err;
    });
  }

  private async attempt(
    req: LambdaRequest,
    n: number,
    signal: AbortSignal,
  ): Promise<AttemptResult<unknown>> {
    if (signal.aborted)
      return { ok: false, retryable: false, error: cancelled(req, signal, false) };
    const out = await fetchOnce({
      url: `${this.base}${req.path}`,
      method: req.method,
      apiKey: this.apiKey,
      body: req.body,
      timeoutMs: this.requestTimeoutMs,
      signal,
    });
    if (out.kind === 'aborted')
      return { ok: false, retryable: false, error: cancelled(req, signal) };
    let failure: Failure;
    let text = '';
    let contentType = '';
    if (out.kind === 'answer') {
      ({ text, contentType } = out.answer);
      const status = out.answer.status;
      if (status >= 200 && status < 300) return this.data(req, text);
      if (status !== 429 && status < 500) {
        const e = httpError(req.what, status, parseErrorBody(text, contentType));
        return { ok: false, retryable: false, error: e };
      }
      failure = { kind: 'status', status };
    } else {
      failure = out.failure;
    }
    const verdict = verdictFor(failure, req.idempotent);
    const unknown = verdict === 'outcome-unknown';
    const opts = unknown ? { outcomeUnknown: true } : {};
    const tail = unknown
      ? '; it may have happened anyway — look the label up before launching again'
      : '';
    let error: LambdaApiError;
    if (failure.kind === 'status') {
      const what = failure.status === 429 ? `${req.what} (rate limited)` : req.what;
      const e = httpError(what, failure.status, parseErrorBody(text, contentType), opts);
      error = new LambdaApiError(`${e.message}${tail}`, e.status, e.code, e.opts);
    } else if (failure.kind === 'timeout') {
      const limit = limitText(this.requestTimeoutMs);
      error = new LambdaApiError(
        `${req.what}: no answer within ${limit} (attempt ${n + 1})${tail}`,
        null,
        null,
        opts,
      );
    } else {
      error = new LambdaApiError(
        `${req.what}: cannot reach Lambda Cloud (${failure.code ?? 'network error'})${tail}`,
        null,
        null,
        { ...opts, hint: 'check the network, or TENDER_LAMBDA_URL' },
      );
    }
    return { ok: false, retryable: verdict === 'retry', error };
  }

  /** The `data` of a success envelope; a 2xx that is not one is an error that names the fix. */
  private data(req: LambdaRequest, text: string): AttemptResult<unknown> {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (typeof json === 'object' && json !== null && 'data' in json)
      return { ok: true, value: (json as { data: unknown }).data };
    const unknown = !req.idempotent;
    return {
      ok: false,
      retryable: false,
      error: new LambdaApiError(
        `${req.what}: the answer is not Lambda Cloud's {"data": …}; check TENDER_LAMBDA_URL${unknown ? ' (the launch may have happened anyway)' : ''}`,
        null,
        null,
        unknown ? { outcomeUnknown: true } : {},
      ),
    };
  }
}

/** The caller gave up. A launch already on the wire may still happen. */
function cancelled(req: LambdaRequest, signal: AbortSignal, mayHaveHappened = !req.idempotent) {
  const why = signal.reason instanceof Error ? `: ${signal.reason.message}` : '';
  return new LambdaApiError(
    `${req.what} cancelled${why}${mayHaveHappened ? ' (it may have happened anyway)' : ''}`,
    null,
    null,
    mayHaveHappened ? { outcomeUnknown: true } : {},
  );
}

export function checkBaseUrl(raw: string): string {
  const parsed = parseBaseUrl(raw, 'TENDER_LAMBDA_URL');
  if ('problem' in parsed) throw new LambdaApiError(parsed.problem, null, null, { fatal: true });
  // `…/api/v1` given by hand is accepted too: the paths are added once.
  return parsed.url.replace(/\/api\/v1$/, '');
}
