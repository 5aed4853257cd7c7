import { MarketTransport, type TransportOptions } from '../http/market-transport';
import { httpError, LambdaApiError, parseErrorBody } from './errors';
import {
  DEFAULT_LAUNCH_INTERVAL_MS,
  DEFAULT_RETRY,
  LaunchSpacing,
  type AttemptResult,
} from './retry';

export interface HttpOptions extends TransportOptions {
  /** `TENDER_LAMBDA_URL`, or https://cloud.lambda.ai; paths go under `/api/v1`. Plain
   *  http only to this machine. */
  baseUrl: string;
  /** Launches at least this far apart (default 12 s: Lambda's documented limit). */
  launchIntervalMs?: number;
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

/** The marketplace as the shared transport names it. */
const LAMBDA = {
  name: 'Lambda Cloud',
  urlVariable: 'TENDER_LAMBDA_URL',
  missingKey: {
    message: 'no Lambda Cloud API key',
    hint: 'set TENDER_LAMBDA_API_KEY (cloud.lambda.ai → API keys)',
  },
  createVerb: 'launching',
  error: LambdaApiError,
  httpError,
  parseErrorBody,
} as const;

/** HTTP requests to Lambda Cloud through the one retry layer (retry.ts): Bearer auth, a
 *  per-request timeout, redirects refused (a redirect must not carry the key anywhere; a
 *  POST through the old host's 301 would turn into a GET), the key redacted from answers.
 *  Returns the `data` of a 2xx answer; throws `LambdaApiError` otherwise. */
export class HttpTransport {
  private readonly base: string;
  private readonly http: MarketTransport<LambdaApiError>;
  private readonly launches: LaunchSpacing;

  constructor(opts: HttpOptions) {
    this.base = `${checkBaseUrl(opts.baseUrl)}/api/v1`;
    this.http = new MarketTransport(LAMBDA, opts, {
      requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
      retry: DEFAULT_RETRY,
    });
    this.launches = new LaunchSpacing(
      opts.launchIntervalMs ?? DEFAULT_LAUNCH_INTERVAL_MS,
      this.http.clock,
    );
  }

  async send(req: LambdaRequest, signal: AbortSignal): Promise<unknown> {
    return this.http.run(req, signal, async (n) => {
      if (req.spaced) await this.launches.take(signal).catch(() => {});
      return this.attempt(req, n, signal);
    });
  }

  private async attempt(
    req: LambdaRequest,
    n: number,
    signal: AbortSignal,
  ): Promise<AttemptResult<unknown>> {
    if (signal.aborted) return this.http.notSent(req, signal);
    const out = await this.http.fetch(
      { url: `${this.base}${req.path}`, method: req.method, body: req.body },
      signal,
    );
    if (out.kind === 'aborted') return this.http.abortedOnTheWire(req, signal);
    if (out.kind === 'failed') return this.http.failed(req, out.failure, null, n);
    const { status, contentType, text } = out.answer;
    if (status >= 200 && status < 300) return this.data(req, text);
    if (status !== 429 && status < 500) {
      const e = httpError(req.what, status, parseErrorBody(text, contentType));
      return { ok: false, retryable: false, error: e };
    }
    return this.http.failed(req, { kind: 'status', status }, out.answer, n);
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

/** The base URL, checked; `…/api/v1` given by hand is accepted too (the paths are added
 *  once). */
export function checkBaseUrl(raw: string): string {
  return MarketTransport.checkedBaseUrl(LAMBDA, raw).replace(/\/api\/v1$/, '');
}
