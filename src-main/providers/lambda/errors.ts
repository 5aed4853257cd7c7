import { MarketApiError } from '../http/api-error';
import type { ProviderError } from '../provider';

/** What a Lambda Cloud error answer says. The API answers errors as
 *  `{"error": {"code", "message", "suggestion"?}, "field_errors"?: {param: {code, message}}}`
 *  (openapi.yaml `ApiErrorResponse`); proxies and load balancers in front of it answer
 *  text or HTML. Branch on `code`, never on the words. */
export interface ErrorBody {
  /** `global/invalid-api-key`, `instance-operations/launch/insufficient-capacity`… */
  code: string | null;
  /** One readable line (message, suggestion, field errors); empty when nothing was said. */
  message: string;
}

export const CODE = {
  invalidKey: 'global/invalid-api-key',
  inactive: 'global/account-inactive',
  notFound: 'global/object-does-not-exist',
  duplicate: 'global/duplicate',
  invalidParameters: 'global/invalid-parameters',
  quota: 'global/quota-exceeded',
  noCapacity: 'instance-operations/launch/insufficient-capacity',
} as const;

const MAX_MESSAGE = 300; // one line in a terminal and in the ledger's last_error

export function parseErrorBody(text: string, contentType = ''): ErrorBody {
  const trimmed = text.trim();
  if (trimmed === '') return { code: null, message: '' };
  if (/html/i.test(contentType) || /^<(!doctype|html|head|body)/i.test(trimmed))
    return { code: null, message: htmlMessage(trimmed) };
  let json: unknown;
  try {
    json = JSON.parse(trimmed);
  } catch {
    return { code: null, message: oneLine(trimmed) };
  }
  if (!isRecord(json) || !isRecord(json.error)) return { code: null, message: oneLine(trimmed) };
  const e = json.error;
  const code = typeof e.code === 'string' && e.code !== '' ? e.code : null;
  const parts = [str(e.message), str(e.suggestion)].filter((s) => s !== '');
  if (isRecord(json.field_errors))
    for (const [field, fe] of Object.entries(json.field_errors))
      if (isRecord(fe)) parts.push(`${field}: ${str(fe.message) || str(fe.code)}`);
  return { code, message: oneLine(parts.join('; ') || (code ?? '')) };
}

/** A failed call to the Lambda Cloud API: status and code stay inspectable by the mapping. */
export class LambdaApiError extends MarketApiError {
  override name = 'LambdaApiError';
}

/** The error for a final non-2xx answer; `what` names the call ("launch gpu_1x_a10 in us-east-1"). */
export function httpError(
  what: string,
  status: number,
  body: ErrorBody,
  opts: ProviderError['opts'] = {},
): LambdaApiError {
  const said = body.message ? `: ${body.message}` : '';
  const tag = body.code ? ` (${body.code})` : '';
  if (status === 401 || body.code === CODE.invalidKey)
    return new LambdaApiError(
      `Lambda Cloud refused the API key on ${what}${said}`,
      status,
      body.code,
      {
        ...opts,
        fatal: true,
        hint: 'set TENDER_LAMBDA_API_KEY to a valid key (cloud.lambda.ai → API keys)',
      },
    );
  if (status === 403 || body.code === CODE.inactive)
    return new LambdaApiError(`Lambda Cloud refused ${what}${tag}${said}`, status, body.code, {
      ...opts,
      fatal: true,
      hint: 'the account is inactive or lacks permission: check billing at cloud.lambda.ai',
    });
  if (body.code === CODE.noCapacity)
    return new LambdaApiError(`${what}: Lambda Cloud has no capacity${said}`, status, body.code, {
      ...opts,
      noCapacity: true,
      hint: 'try another region or instance type, or later',
    });
  if (body.code === CODE.quota)
    return new LambdaApiError(`${what}: quota exceeded${said}`, status, body.code, {
      ...opts,
      fatal: true,
      hint: 'new Lambda accounts may run few instances: terminate one or ask Lambda support to raise the quota',
    });
  const kind = body.code === null && status >= 400 ? notLambda(status, body) : '';
  return new LambdaApiError(
    `${what} failed: HTTP ${status}${tag}${said}${kind}`,
    status,
    body.code,
    opts,
  );
}

/** Whether the answer says the object (instance, key) does not exist. Only Lambda's own
 *  JSON code counts: a bare 404 page (a proxy, a wrong TENDER_LAMBDA_URL) is not proof that
 *  a billed instance is gone. */
export function isNotFound(err: unknown): boolean {
  return err instanceof LambdaApiError && err.code === CODE.notFound;
}

export function isNoCapacity(err: unknown): boolean {
  return err instanceof LambdaApiError && err.code === CODE.noCapacity;
}

export function isDuplicate(err: unknown): boolean {
  return err instanceof LambdaApiError && err.code === CODE.duplicate;
}

/** A non-JSON error answer: most likely not the Lambda API at all. Names the fix. */
function notLambda(status: number, body: ErrorBody): string {
  if (status === 404 || /html/i.test(body.message))
    return ' — not a Lambda Cloud API answer; check TENDER_LAMBDA_URL (https://cloud.lambda.ai)';
  return '';
}

function htmlMessage(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const h1 = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1];
  const text = oneLine((title ?? h1 ?? '').replace(/<[^>]*>/g, ' '));
  return text ? `${text} (an HTML page)` : 'an HTML page';
}

function str(v: unknown): string {
  return typeof v === 'string' ? v.trim() : '';
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
