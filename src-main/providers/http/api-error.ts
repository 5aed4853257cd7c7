import { ProviderError } from '../../base/provider-error';

/** What a marketplace adapter's HTTP layer throws: the message names the call and the fix;
 *  `status` is the HTTP status (null when no answer came), `code` the API's own error code.
 *  Each adapter has its subclass (VastApiError, RunpodApiError, LambdaApiError), which its
 *  callers test for. */
export class MarketApiError extends ProviderError {
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: string | null,
    opts: ProviderError['opts'] = {},
  ) {
    super(message, opts);
    this.name = 'MarketApiError';
  }

  /** The same error, of the same class, saying `message` instead. */
  withMessage(message: string): MarketApiError {
    const Same = this.constructor as new (
      message: string,
      status: number | null,
      code: string | null,
      opts: ProviderError['opts'],
    ) => MarketApiError;
    return new Same(message, this.status, this.code, this.opts);
  }
}

/** The error a retry loop gives up with: the last one, saying how long it kept trying. */
export function gaveUp(last: Error, attempts: number, elapsedMs: number): Error {
  const text = `${last.message} (gave up after ${attempts} attempts in ${Math.round(elapsedMs / 1000)} s)`;
  return last instanceof MarketApiError ? last.withMessage(text) : new Error(text);
}
