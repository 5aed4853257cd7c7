import { gaveUp } from '../http/api-error';
import { parseBaseUrl } from '../http/base-url';
import { fetchOnce, limitText } from '../http/fetch-once';
import {
  graphqlError,
  graphqlErrorsOf,
  httpError,
  isRecord,
  parseErrorBody,
  RunpodApiError,
} from './errors';
import {
  DEFAULT_RETRY,
  parseRetryAfter,
  realClock,
  verdictFor,
  withRetry,
  type AttemptResult,
  type Clock,
  type Failure,
  type RetryPolicy,
} from './retry';

export interface HttpOptions {
  /** `TENDER_RUNPOD_URL`, or https://api.runpod.io: requests go to `${baseUrl}/graphql`.
   *  Plain http only to this machine. */
  baseUrl: string;
  /** Sent as a Bearer token only: never in a URL, a log line or an error message. */
  apiKey: string;
  /** One attempt, connect to last body byte. */
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  clock?: Clock;
  random?: () => number;
}

// RunPod's GraphQL answers in well under a second; 30 s is a server stuck, not a slow one.
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface GraphqlRequest {
  /** The document; every value travels in `variables`, never inside it. */
  query: string;
  variables?: Record<string, unknown>;
  /** False for a create: see `verdictFor`. */
  idempotent: boolean;
  /** Names the call in errors: "create pod tender-…". */
  what: string;
}

/** GraphQL requests to RunPod through the one retry layer (retry.ts), with a per-request
 *  timeout and Bearer auth. */
export class GraphqlTransport {
  private readonly url: string;
  private readonly apiKey: string;
  private readonly requestTimeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly clock: Clock;
  private readonly random: () => number;

  constructor(opts: HttpOptions) {
    this.url = `${checkBaseUrl(opts.baseUrl)}/graphql`;
    if (!opts.apiKey.trim())
      throw new RunpodApiError('no RunPod API key', null, null, {
        fatal: true,
        hint: 'set TENDER_RUNPOD_API_KEY (RunPod console → Settings → API Keys)',
      });
    this.apiKey = opts.apiKey.trim();
    this.requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.policy = { ...DEFAULT_RETRY, ...opts.retry };
    this.clock = opts.clock ?? realClock;
    this.random = opts.random ?? Math.random;
  }

  /** The answer's `data`. Throws a RunpodApiError for a GraphQL error (HTTP 200 with
   *  `errors`), a final HTTP error, retries run out, an unknown outcome, or an abort. */
  async request(req: GraphqlRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    return withRetry((n) => this.attempt(req, n, signal), {
      policy: this.policy,
      clock: this.clock,
      random: this.random,
      signal,
      giveUp: gaveUp,
    }).catch((err: unknown) => {
      // Aborted while waiting between attempts: the last attempt was turned away, so even a
      // create is known not to have happened.
      if (!(err instanceof RunpodApiError) && signal.aborted) throw cancelled(req, signal, false);
      throw err;
    });
  }

  private async attempt(
    req: GraphqlRequest,
    n: number,
    signal: AbortSignal,
  ): Promise<AttemptResult<Record<string, unknown>>> {
    if (signal.aborted)
      return { ok: false, retryable: false, error: cancelled(req, signal, false) };
    const out = await fetchOnce({
      url: this.url,
      method: 'POST',
      apiKey: this.apiKey,
      body: { query: req.query, variables: req.variables ?? {} },
      timeoutMs: this.requestTimeoutMs,
      signal,
    });
    if (out.kind === 'aborted')
      return { ok: false, retryable: false, error: cancelled(req, signal) };
    let failure: Failure;
    let answer: { status: number; contentType: string; text: string } | null = null;
    if (out.kind === 'answer') {
      const { status, contentType, text, headers } = out.answer;
      answer = { status, contentType, text };
      if (status >= 200 && status < 300) {
        try {
          return { ok: true, value: this.dataOf(req, answer) };
        } catch (err) {
          if (err instanceof RunpodApiError) return { ok: false, retryable: false, error: err };
          throw err;
        }
      }
      if (status !== 429 && status < 500) {
        const body = parseErrorBody(text, contentType);
        return { ok: false, retryable: false, error: httpError(req.what, status, body) };
      }
      failure = {
        kind: 'status',
        status,
        retryAfterMs: parseRetryAfter(headers.get('retry-after'), this.clock.now()),
      };
    } else {
      failure = out.failure;
    }
    const verdict = verdictFor(failure, req.idempotent);
    const error = attemptError(
      req,
      failure,
      answer,
      this.requestTimeoutMs,
      n,
      verdict === 'outcome-unknown',
    );
    return {
      ok: false,
      retryable: verdict === 'retry',
      error,
      retryAfterMs: failure.kind === 'status' ? failure.retryAfterMs : null,
    };
  }

  /** A 2xx answer's `data`, or the GraphQL error it carries instead. */
  private dataOf(
    req: GraphqlRequest,
    answer: { contentType: string; text: string },
  ): Record<string, unknown> {
    let json: unknown;
    try {
      json = JSON.parse(answer.text);
    } catch {
      const body = parseErrorBody(answer.text, answer.contentType);
      throw new RunpodApiError(
        `${req.what}: RunPod answered something not JSON (${body.message})`,
        200,
        null,
      );
    }
    const errors = graphqlErrorsOf(json);
    if (errors) throw graphqlError(req.what, errors);
    if (!isRecord(json) || !isRecord(json.data))
      throw new RunpodApiError(`${req.what}: RunPod answered without data`, 200, null);
    return json.data;
  }
}

function attemptError(
  req: GraphqlRequest,
  failure: Failure,
  answer: { contentType: string; text: string } | null,
  timeoutMs: number,
  n: number,
  outcomeUnknown: boolean,
): RunpodApiError {
  const opts = outcomeUnknown ? { outcomeUnknown: true } : {};
  const tail = outcomeUnknown
    ? '; it may have happened anyway — look the label up before creating again'
    : '';
  switch (failure.kind) {
    case 'status': {
      const what = failure.status === 429 ? `${req.what} (rate limited)` : req.what;
      const body = answer
        ? parseErrorBody(answer.text, answer.contentType)
        : { code: null, message: '' };
      const e = httpError(what, failure.status, body, opts);
      return new RunpodApiError(`${e.message}${tail}`, e.status, e.code, e.opts);
    }
    case 'timeout': {
      const limit = limitText(timeoutMs);
      return new RunpodApiError(
        `${req.what}: no answer within ${limit} (attempt ${n + 1})${tail}`,
        null,
        null,
        opts,
      );
    }
    case 'network':
      return new RunpodApiError(
        `${req.what}: cannot reach RunPod (${failure.code ?? 'network error'})${tail}`,
        null,
        null,
        { ...opts, hint: 'check the network, or TENDER_RUNPOD_URL' },
      );
  }
}

/** The caller gave up. A create already on the wire may still happen. */
function cancelled(req: GraphqlRequest, signal: AbortSignal, mayHaveHappened = !req.idempotent) {
  const why = signal.reason instanceof Error ? `: ${signal.reason.message}` : '';
  return new RunpodApiError(
    `${req.what} cancelled${why}${mayHaveHappened ? ' (it may have happened anyway)' : ''}`,
    null,
    null,
    mayHaveHappened ? { outcomeUnknown: true } : {},
  );
}

export function checkBaseUrl(raw: string): string {
  const parsed = parseBaseUrl(raw, 'TENDER_RUNPOD_URL');
  if ('problem' in parsed) throw new RunpodApiError(parsed.problem, null, null, { fatal: true });
  // `…/graphql` given by hand is accepted too: the path is added once.
  return parsed.url.replace(/\/graphql$/, '');
}
