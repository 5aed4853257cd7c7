import { MarketApiError } from '../http/api-error';
import type { ProviderError } from '../provider';

/** What an HTTP error body says, whatever its shape. Vast.ai answers errors as JSON
 *  `{success, error, msg}` on most endpoints, `{detail}` on some 429s, plain text on most
 *  429s, and proxies in front of it answer HTML (rate-limits-and-errors page, OpenAPI). */
export interface ErrorBody {
  /** The machine-readable code (`no_such_ask`, `auth_error`…), when the body has one. */
  code: string | null;
  /** One readable line; empty when the body said nothing. */
  message: string;
}

const MAX_MESSAGE = 300; // one line in a terminal and in the ledger's last_error

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
  if (typeof json === 'string') return { code: null, message: oneLine(json) };
  if (!isRecord(json)) return { code: null, message: oneLine(trimmed) };
  const code = typeof json.error === 'string' && json.error !== '' ? json.error : null;
  const said = [json.msg, json.message, json.detail, json.error_description]
    .map(textOf)
    .find((s) => s !== '');
  return { code, message: oneLine(said ?? code ?? '') };
}

export function isHtml(text: string, contentType: string): boolean {
  return /html/i.test(contentType) || /^<(!doctype|html|head|body|\?xml)/i.test(text.trimStart());
}

/** A failed call to the Vast.ai API: the status and code stay inspectable by the mapping. */
export class VastApiError extends MarketApiError {
  override name = 'VastApiError';
}

/** The error for a final non-2xx answer. `what` names the call: "create instance on offer 7". */
export function httpError(
  what: string,
  status: number,
  body: ErrorBody,
  opts: ProviderError['opts'] = {},
): VastApiError {
  const said = body.message ? `: ${body.message}` : '';
  if (status === 401 || status === 403) {
    return new VastApiError(
      `Vast.ai refused the API key (HTTP ${status}) on ${what}${said}; check TENDER_VASTAI_API_KEY`,
      status,
      body.code,
      {
        ...opts,
        fatal: true,
        hint: 'set TENDER_VASTAI_API_KEY to a valid key from the Vast.ai console (Account → Keys)',
      },
    );
  }
  return new VastApiError(`${what} failed: HTTP ${status}${said}`, status, body.code, opts);
}

/** The offer was rented by someone else between our search and our create (404/410
 *  `no_such_ask`, per create_instance.yaml). The caller tries the next offer. */
export function isOfferTaken(err: unknown): boolean {
  if (!(err instanceof VastApiError)) return false;
  if (err.code === 'no_such_ask' || /no_such_ask/i.test(err.message)) return true;
  return (
    (err.status === 404 || err.status === 410) &&
    /not available|no longer available|not found/i.test(err.message)
  );
}

/** How an answer body was written. */
export type BodyKind = 'json' | 'html' | 'text';

/** Whether an answer says the instance does not exist. A 404 counts only when Vast.ai itself
 *  said so: in its JSON error shape, or in words that name the instance. A bare "Not Found"
 *  (an unknown path, a proxy, a wrong TENDER_VASTAI_URL) is not proof that a lease is gone. */
export function saysInstanceGone(status: number, body: ErrorBody, kind: BodyKind): boolean {
  if (kind === 'html') return false;
  if (body.code === 'no_such_instance' || /no[_ ]such[_ ]instance/i.test(body.message)) return true;
  if (status !== 404) return false;
  if (kind === 'json')
    return body.code !== null || /not[_ ]found|does not exist|no instance/i.test(body.message);
  return /instance/i.test(body.message) && /not[_ ]found|does not exist/i.test(body.message);
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
  if (isRecord(v)) return textOf(v.msg ?? v.message ?? '');
  return '';
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
