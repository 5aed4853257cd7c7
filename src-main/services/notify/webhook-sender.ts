import type { WebhookBody } from './webhook-body';

/** One POST may take this long: a receiver that hangs does not hold a notice for ever. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Waits before the 2nd, 3rd and 4th try, after a 5xx, a 429 or a network error. */
export const WEBHOOK_RETRY_DELAYS_MS = [500, 2_000, 8_000] as const;

export type WebhookResult =
  { ok: true; attempts: number } | { ok: false; attempts: number; error: string };

export interface WebhookOptions {
  fetch?: typeof fetch;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  delaysMs?: readonly number[];
  timeoutMs?: number;
  /** Aborted: stop retrying now (Tender is closing). */
  signal?: AbortSignal;
}

/** POSTs `body` as JSON; retries a few times with backoff on 5xx, 429 and network errors,
 *  never on another 4xx. Redirects are refused (a body is never sent on to a host the user
 *  did not name). Errors name the URL's origin only: Slack's path carries its token. */
export async function sendWebhook(
  url: string,
  body: WebhookBody,
  o: WebhookOptions = {},
): Promise<WebhookResult> {
  const doFetch = o.fetch ?? fetch;
  const sleep = o.sleep ?? abortableSleep;
  const delays = o.delaysMs ?? WEBHOOK_RETRY_DELAYS_MS;
  const closing = o.signal ?? new AbortController().signal;
  const origin = new URL(url).origin;
  let error: string;
  for (let attempt = 1; ; attempt++) {
    let retryable: boolean;
    try {
      const res = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'tender' },
        body: JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.any([closing, AbortSignal.timeout(o.timeoutMs ?? WEBHOOK_TIMEOUT_MS)]),
      });
      await res.body?.cancel().catch(() => undefined);
      if (res.ok) return { ok: true, attempts: attempt };
      error = `${origin} answered ${res.status}${res.status >= 300 && res.status < 400 ? ' (a redirect: set the URL it points to)' : ''}`;
      retryable = res.status >= 500 || res.status === 429;
    } catch (err) {
      error = `${origin}: ${describe(err)}`;
      retryable = !closing.aborted;
    }
    const delay = delays[attempt - 1];
    if (!retryable || delay === undefined || closing.aborted)
      return {
        ok: false,
        attempts: attempt,
        error: closing.aborted ? `${error} (Tender closed)` : error,
      };
    await sleep(delay, closing).catch(() => undefined);
  }
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return 'no answer in time';
  if (err.name === 'AbortError') return 'aborted';
  // undici: "fetch failed" with the reason (ECONNREFUSED, ENOTFOUND…) as its cause.
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? err.message;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
