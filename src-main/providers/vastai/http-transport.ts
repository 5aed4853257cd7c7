import { MarketTransport, type TransportOptions } from '../http/market-transport';
import { httpError, parseErrorBody, VastApiError, type ErrorBody } from './errors';
import { DEFAULT_RETRY, type AttemptResult, type Failure } from './retry';

export interface HttpOptions extends TransportOptions {
  /** `TENDER_VASTAI_URL`, or https://console.vast.ai. Plain http only to this machine. */
  baseUrl: string;
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

/** The marketplace as the shared transport names it. */
const VAST = {
  name: 'Vast.ai',
  urlVariable: 'TENDER_VASTAI_URL',
  missingKey: {
    message: 'no Vast.ai API key',
    hint: 'set TENDER_VASTAI_API_KEY (Vast.ai console → Account → Keys)',
  },
  createVerb: 'creating',
  error: VastApiError,
  httpError,
  parseErrorBody,
} as const;

/** HTTP requests to Vast.ai through the one retry layer (retry.ts), with a per-request
 *  timeout and Bearer auth. */
export class HttpTransport {
  private readonly base: string;
  private readonly http: MarketTransport<VastApiError>;

  constructor(opts: HttpOptions) {
    this.base = MarketTransport.checkedBaseUrl(VAST, opts.baseUrl);
    this.http = new MarketTransport(VAST, opts, {
      requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
      retry: DEFAULT_RETRY,
    });
  }

  /** Returns the final answer (2xx or a status not worth retrying); throws when retries run
   *  out, the outcome is unknown, or the caller aborts. */
  async send(req: VastRequest, signal: AbortSignal): Promise<VastResponse> {
    const url = this.url(req);
    return this.http.run(req, signal, (n) => this.attempt(req, url, n, signal));
  }

  private async attempt(
    req: VastRequest,
    url: string,
    n: number,
    signal: AbortSignal,
  ): Promise<AttemptResult<VastResponse>> {
    if (signal.aborted) return this.http.notSent(req, signal);
    const out = await this.http.fetch({ url, method: req.method, body: req.body }, signal);
    if (out.kind === 'aborted') return this.http.abortedOnTheWire(req, signal);
    if (out.kind === 'failed') return this.http.failed(req, out.failure, null, n);
    const { status, contentType, text } = out.answer;
    const res = { status, contentType, text, json: parseJson(text) };
    if (status !== 429 && status < 500) return { ok: true, value: res };
    // Vast.ai sends no Retry-After.
    const failure: Failure = { kind: 'status', status };
    return this.http.failed(req, failure, res, n);
  }

  private url(req: VastRequest): string {
    const q = req.query ? `?${new URLSearchParams(req.query).toString()}` : '';
    return `${this.base}${req.path}${q}`;
  }
}

export function bodyOf(res: VastResponse | null): ErrorBody {
  return res ? parseErrorBody(res.text, res.contentType) : { code: null, message: '' };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
