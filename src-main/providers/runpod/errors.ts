import { MarketApiError } from '../http/api-error';
import type { ProviderError } from '../provider';

/** What an answer body says, whatever its shape. RunPod's GraphQL answers failures as HTTP 200
 *  with `{"errors":[{"message","path","extensions":{"code"}}]}` (dstack and runpod-python
 *  check every answer for `errors`); REST v1 and some gateways answer `{"message"}` or
 *  `{"error"}`; a proxy in front of it answers HTML or plain text. */
export interface ErrorBody {
  /** `extensions.code` of the first GraphQL error, when it has one. */
  code: string | null;
  /** One readable line; empty when the body said nothing. */
  message: string;
}

const MAX_MESSAGE = 300; // one line in a terminal and in the ledger's last_error

/** The `errors` list of a GraphQL answer, as one body; null when the answer has none. */
export function graphqlErrorsOf(json: unknown): ErrorBody | null {
  if (!isRecord(json) || !Array.isArray(json.errors) || json.errors.length === 0) return null;
  const messages = json.errors.map((e) => (isRecord(e) ? textOf(e.message) : textOf(e)));
  const first: unknown = json.errors[0];
  const ext = isRecord(first) && isRecord(first.extensions) ? first.extensions : null;
  const code = ext && typeof ext.code === 'string' && ext.code !== '' ? ext.code : null;
  const said = [...new Set(messages.filter((m) => m !== ''))].join('; ');
  return { code, message: oneLine(said || code || 'an error without a message') };
}

export function parseErrorBody(text: string, contentType = ''): ErrorBody {
  const trimmed = text.trim();
  if (trimmed === '') return { code: null, message: '' };
  if (isHtml(trimmed, contentType)) return { code: null, message: htmlMessage(trimmed) };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return { code: null, message: oneLine(trimmed) };
  }
  const gql = graphqlErrorsOf(json);
  if (gql) return gql;
  if (typeof json === 'string') return { code: null, message: oneLine(json) };
  if (!isRecord(json)) return { code: null, message: oneLine(trimmed) };
  const said = [json.message, json.detail, json.error, json.title].map(textOf).find(Boolean);
  return { code: null, message: oneLine(said ?? '') };
}

export function isHtml(text: string, contentType: string): boolean {
  return /html/i.test(contentType) || /^<(!doctype|html|head|body|\?xml)/i.test(text.trimStart());
}

/** A failed call to the RunPod API: the status and code stay inspectable by the mapping. */
export class RunpodApiError extends MarketApiError {
  override name = 'RunpodApiError';
}

const KEY_HINT =
  'set TENDER_RUNPOD_API_KEY to a valid key from the RunPod console (Settings → API Keys)';

/** The error for a final non-2xx answer. `what` names the call: "create pod tender-…". */
export function httpError(
  what: string,
  status: number,
  body: ErrorBody,
  opts: ProviderError['opts'] = {},
): RunpodApiError {
  const said = body.message ? `: ${body.message}` : '';
  if (status === 401 || status === 403)
    return new RunpodApiError(
      `RunPod refused the API key (HTTP ${status}) on ${what}${said}; check TENDER_RUNPOD_API_KEY`,
      status,
      body.code,
      { ...opts, fatal: true, hint: KEY_HINT },
    );
  return new RunpodApiError(`${what} failed: HTTP ${status}${said}`, status, body.code, opts);
}

// "There are no longer any instances available with the requested specifications. Please
// refresh and try again." (and "…try again later.", "…with enough disk space.") — dstack
// and SkyPilot match this text; RunPod gives it no code.
const NO_CAPACITY =
  /no longer any instances available|no instances (are )?available|not enough (free )?gpus|insufficient capacity/i;
const UNAUTHORIZED = /unauthori[sz]ed|not authenticated|invalid api key|permission denied/i;

/** The error for a GraphQL answer with `errors` (HTTP 200). No capacity for the spec is
 *  `noCapacity` (a pool naming several providers tries the next); an auth refusal is fatal. */
export function graphqlError(
  what: string,
  body: ErrorBody,
  opts: ProviderError['opts'] = {},
): RunpodApiError {
  if (NO_CAPACITY.test(body.message))
    return new RunpodApiError(
      `${what}: RunPod has no pod for this spec now (${body.message})`,
      200,
      body.code,
      {
        ...opts,
        noCapacity: true,
        hint: 'try another gpu or gpu_count, allow community cloud (verified = false), or raise max_price; `tender offers --provider runpod` shows what is in stock',
      },
    );
  if (UNAUTHORIZED.test(body.message) || body.code === 'UNAUTHENTICATED')
    return new RunpodApiError(
      `RunPod refused the API key on ${what}: ${body.message}`,
      200,
      body.code,
      {
        ...opts,
        fatal: true,
        hint: KEY_HINT,
      },
    );
  return new RunpodApiError(`${what} failed: ${body.message}`, 200, body.code, opts);
}

/** podTerminate of a pod that is not there: "pod not found to terminate" (dstack treats it
 *  as success). */
export function isPodNotFound(err: unknown): boolean {
  return (
    err instanceof RunpodApiError &&
    err.status === 200 &&
    /pod not found|no pod found|pod does not exist/i.test(err.message)
  );
}

function htmlMessage(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const h1 = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1];
  const picked = title ?? h1 ?? html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ');
  const text = oneLine(picked.replace(/<[^>]*>/g, ' '));
  return text ? oneLine(`${text} (an HTML page)`) : 'an HTML page';
}

function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(textOf).filter(Boolean).join('; ');
  if (isRecord(v)) return textOf(v.message ?? '');
  return '';
}

export function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
