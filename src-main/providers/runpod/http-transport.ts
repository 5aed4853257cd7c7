import { MarketTransport, type TransportOptions } from '../http/market-transport';
import {
  graphqlError,
  graphqlErrorsOf,
  httpError,
  isRecord,
  parseErrorBody,
  RunpodApiError,
} from './errors';
import { DEFAULT_RETRY, parseRetryAfter, type AttemptResult } from './retry';

export interface HttpOptions extends TransportOptions {
  /** `TENDER_RUNPOD_URL`, or https://api.runpod.io: requests go to `${baseUrl}/graphql`.
   *  Plain http only to this machine. */
  baseUrl: string;
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

/** The marketplace as the shared transport names it. */
const RUNPOD = {
  name: 'RunPod',
  urlVariable: 'TENDER_RUNPOD_URL',
  missingKey: {
    message: 'no RunPod API key',
    hint: 'set TENDER_RUNPOD_API_KEY (RunPod console → Settings → API Keys)',
  },
  createVerb: 'creating',
  error: RunpodApiError,
  httpError,
  parseErrorBody,
} as const;

/** GraphQL requests to RunPod through the one retry layer (retry.ts), with a per-request
 *  timeout and Bearer auth. */
export class GraphqlTransport {
  private readonly url: string;
  private readonly http: MarketTransport<RunpodApiError>;

  constructor(opts: HttpOptions) {
    this.url = `${checkBaseUrl(opts.baseUrl)}/graphql`;
    this.http = new MarketTransport(RUNPOD, opts, {
      requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
      retry: DEFAULT_RETRY,
    });
  }

  /** The answer's `data`. Throws a RunpodApiError for a GraphQL error (HTTP 200 with
   *  `errors`), a final HTTP error, retries run out, an unknown outcome, or an abort. */
  async request(req: GraphqlRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    return this.http.run(req, signal, (n) => this.attempt(req, n, signal));
  }

  private async attempt(
    req: GraphqlRequest,
    n: number,
    signal: AbortSignal,
  ): Promise<AttemptResult<Record<string, unknown>>> {
    if (signal.aborted) return this.http.notSent(req, signal);
    const out = await this.http.fetch(
      { url: this.url, method: 'POST', body: { query: req.query, variables: req.variables ?? {} } },
      signal,
    );
    if (out.kind === 'aborted') return this.http.abortedOnTheWire(req, signal);
    if (out.kind === 'failed') return this.http.failed(req, out.failure, null, n);
    const { status, contentType, text, headers } = out.answer;
    if (status >= 200 && status < 300) {
      try {
        return { ok: true, value: this.dataOf(req, { contentType, text }) };
      } catch (err) {
        if (err instanceof RunpodApiError) return { ok: false, retryable: false, error: err };
        throw err;
      }
    }
    if (status !== 429 && status < 500) {
      const body = parseErrorBody(text, contentType);
      return { ok: false, retryable: false, error: httpError(req.what, status, body) };
    }
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'), this.http.clock.now());
    return this.http.failed(req, { kind: 'status', status, retryAfterMs }, out.answer, n);
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

/** The base URL, checked; `…/graphql` given by hand is accepted too (the path is added
 *  once). */
export function checkBaseUrl(raw: string): string {
  return MarketTransport.checkedBaseUrl(RUNPOD, raw).replace(/\/graphql$/, '');
}
