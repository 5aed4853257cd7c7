// What the marketplaces' transports (vastai/, runpod/, lambda/) share around one HTTP
// attempt: their base URL and key checks and options, the retry loop and the abort while
// it waits, the error of an attempt that got no final answer (a status worth retrying, a
// timeout, no network) with what the retry layer makes of it, and the error of a call its
// caller gave up on. Each adapter keeps what an answer means and its own error wording.
import type { ProviderError } from '../../base/provider-error';
import { gaveUp, type MarketApiError } from './api-error';
import { parseBaseUrl } from './base-url';
import { fetchOnce, type FetchOutcome, limitText } from './fetch-once';
import {
  type AttemptResult,
  type Clock,
  type Failure,
  realClock,
  type RetryPolicy,
  verdictFor,
  withRetry,
} from './retry';

type ErrorOpts = ProviderError['opts'];

/** What an error answer said: the API's code and one readable line. */
export interface ErrorBody {
  code: string | null;
  message: string;
}

/** A marketplace, as its transport names it in errors. */
export interface Marketplace<E extends MarketApiError> {
  /** In "cannot reach Vast.ai". */
  name: string;
  /** The base URL's variable (`TENDER_VASTAI_URL`), named in a network error's hint. */
  urlVariable: string;
  /** Its key is missing: the error's message and hint. */
  missingKey: { message: string; hint: string };
  /** What its create is called: "look the label up before creating again". */
  createVerb: 'creating' | 'launching';
  /** Its error class (what its callers test for). */
  error: new (message: string, status: number | null, code: string | null, opts?: ErrorOpts) => E;
  /** The error for a final non-2xx answer. */
  httpError(what: string, status: number, body: ErrorBody, opts?: ErrorOpts): E;
  parseErrorBody(text: string, contentType?: string): ErrorBody;
}

/** The part of a request the shared layer reads. */
export interface MarketRequest {
  /** Names the call in errors: "create instance on offer 7". */
  what: string;
  /** False for a create: see `verdictFor`. */
  idempotent: boolean;
}

export interface TransportOptions {
  /** Sent as a Bearer token only: never in a URL, a log line or an error message. */
  apiKey: string;
  /** One attempt, connect to last body byte. */
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  clock?: Clock;
  random?: () => number;
}

export class MarketTransport<E extends MarketApiError> {
  readonly apiKey: string;
  readonly clock: Clock;
  private readonly requestTimeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly random: () => number;

  constructor(
    private readonly market: Marketplace<E>,
    opts: TransportOptions,
    defaults: { requestTimeoutMs: number; retry: RetryPolicy },
  ) {
    if (!opts.apiKey.trim()) {
      throw new market.error(market.missingKey.message, null, null, {
        fatal: true,
        hint: market.missingKey.hint,
      });
    }
    this.apiKey = opts.apiKey.trim();
    this.requestTimeoutMs = opts.requestTimeoutMs ?? defaults.requestTimeoutMs;
    this.policy = { ...defaults.retry, ...opts.retry };
    this.clock = opts.clock ?? realClock;
    this.random = opts.random ?? Math.random;
  }

  /** `raw` as a base URL, checked (https, or plain http only to this machine); a fatal
   *  error of the marketplace's class otherwise. */
  static checkedBaseUrl<E extends MarketApiError>(
    market: Pick<Marketplace<E>, 'urlVariable' | 'error'>,
    raw: string,
  ): string {
    const parsed = parseBaseUrl(raw, market.urlVariable);
    if ('problem' in parsed) throw new market.error(parsed.problem, null, null, { fatal: true });
    return parsed.url;
  }

  /** Runs `attempt` through the retry layer: its value, or the error it failed with for
   *  good (or gave up on, saying for how long). */
  run<T>(
    req: MarketRequest,
    signal: AbortSignal,
    attempt: (n: number) => Promise<AttemptResult<T>>,
  ): Promise<T> {
    return withRetry(attempt, {
      policy: this.policy,
      clock: this.clock,
      random: this.random,
      signal,
      giveUp: gaveUp,
    }).catch((err: unknown) => {
      // Aborted while waiting between attempts: the last attempt was turned away, so even
      // a create is known not to have happened.
      if (!(err instanceof this.market.error) && signal.aborted) {
        throw this.cancelled(req, signal, false);
      }
      throw err;
    });
  }

  /** One attempt's request, with the key and this transport's timeout. */
  fetch(
    call: { url: string; method: string; body?: unknown },
    signal: AbortSignal,
  ): Promise<FetchOutcome> {
    return fetchOnce({
      ...call,
      apiKey: this.apiKey,
      timeoutMs: this.requestTimeoutMs,
      signal,
    });
  }

  /** The result of an attempt the caller gave up on before it was sent. */
  notSent(req: MarketRequest, signal: AbortSignal): AttemptResult<never> {
    return { ok: false, retryable: false, error: this.cancelled(req, signal, false) };
  }

  /** The result of an attempt the caller gave up on while it was on the wire. */
  abortedOnTheWire(req: MarketRequest, signal: AbortSignal): AttemptResult<never> {
    return { ok: false, retryable: false, error: this.cancelled(req, signal) };
  }

  /** The result of attempt `n`, which got no final answer: retried, final, or (a create
   *  that may have reached the server) with its outcome unknown. `answer`: what a status
   *  failure answered. */
  failed(
    req: MarketRequest,
    failure: Failure,
    answer: { text: string; contentType: string } | null,
    n: number,
  ): AttemptResult<never> {
    const verdict = verdictFor(failure, req.idempotent);
    const error = this.failureError(req, failure, answer, n, verdict === 'outcome-unknown');
    return {
      ok: false,
      retryable: verdict === 'retry',
      error,
      retryAfterMs: failure.kind === 'status' ? (failure.retryAfterMs ?? null) : null,
    };
  }

  /** The caller gave up. A create already on the wire may still happen. */
  cancelled(req: MarketRequest, signal: AbortSignal, mayHaveHappened = !req.idempotent): E {
    const why = signal.reason instanceof Error ? `: ${signal.reason.message}` : '';
    return new this.market.error(
      `${req.what} cancelled${why}${mayHaveHappened ? ' (it may have happened anyway)' : ''}`,
      null,
      null,
      mayHaveHappened ? { outcomeUnknown: true } : {},
    );
  }

  private failureError(
    req: MarketRequest,
    failure: Failure,
    answer: { text: string; contentType: string } | null,
    n: number,
    outcomeUnknown: boolean,
  ): E {
    const { market } = this;
    const opts = outcomeUnknown ? { outcomeUnknown: true } : {};
    const tail = outcomeUnknown
      ? `; it may have happened anyway — look the label up before ${market.createVerb} again`
      : '';
    switch (failure.kind) {
      case 'status': {
        const what = failure.status === 429 ? `${req.what} (rate limited)` : req.what;
        const body = answer
          ? market.parseErrorBody(answer.text, answer.contentType)
          : { code: null, message: '' };
        const e = market.httpError(what, failure.status, body, opts);
        return new market.error(`${e.message}${tail}`, e.status, e.code, e.opts);
      }
      case 'timeout': {
        const limit = limitText(this.requestTimeoutMs);
        return new market.error(
          `${req.what}: no answer within ${limit} (attempt ${n + 1})${tail}`,
          null,
          null,
          opts,
        );
      }
      case 'network':
        return new market.error(
          `${req.what}: cannot reach ${market.name} (${failure.code ?? 'network error'})${tail}`,
          null,
          null,
          { ...opts, hint: `check the network, or ${market.urlVariable}` },
        );
    }
  }
}
