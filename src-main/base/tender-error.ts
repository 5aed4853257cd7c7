import type { ErrorCode, ErrorData } from '../contract';
import { ProviderError } from './provider-error';

/** An error that travels as data: `{ code, message, hint }`. Messages name the fix. */
export class TenderError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'TenderError';
  }

  toData(): ErrorData {
    return this.hint === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, hint: this.hint };
  }
}

/** Maps anything thrown to error data; unknown errors become `internal`. */
export function toErrorData(err: unknown): ErrorData {
  if (err instanceof TenderError) return err.toData();
  if (err instanceof ProviderError) {
    return err.opts.hint === undefined
      ? { code: 'provider', message: err.message }
      : { code: 'provider', message: err.message, hint: err.opts.hint };
  }
  if (isCodedError(err)) {
    const data: ErrorData = { code: err.code, message: err.message };
    if (typeof err.hint === 'string') data.hint = err.hint;
    return data;
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'internal', message, hint: 'This is a bug in Tender; please report it.' };
}

const PASS_THROUGH_CODES = new Set<string>(['bad_input', 'not_found', 'conflict', 'busy']);

function isCodedError(err: unknown): err is Error & { code: ErrorCode; hint?: unknown } {
  return (
    err instanceof Error &&
    typeof (err as { code?: unknown }).code === 'string' &&
    PASS_THROUGH_CODES.has((err as unknown as { code: string }).code)
  );
}
