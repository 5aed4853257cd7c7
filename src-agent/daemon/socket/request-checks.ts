// Checks of request fields at the socket boundary; failures answer `bad_request`.
import type { ErrorCode } from '../../wire/protocol';

export class RequestError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

type Fields = Record<string, unknown>;

export function requiredString(req: Fields, key: string): string {
  const v = req[key];
  if (typeof v !== 'string' || v === '') throw badField(key, 'a non-empty string');
  return v;
}

export function optionalNumber(req: Fields, key: string, min = 0): number | undefined {
  const v = req[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min)
    throw badField(key, `a number ≥ ${min}`);
  return v;
}

export function requiredInteger(req: Fields, key: string, min = 0): number {
  const v = req[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min)
    throw badField(key, `an integer ≥ ${min}`);
  return v;
}

export function stringMap(req: Fields, key: string): Record<string, string> {
  const v = req[key];
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw badField(key, 'an object of strings');
  for (const [k, value] of Object.entries(v as Fields)) {
    if (typeof value !== 'string') throw badField(`${key}.${k}`, 'a string');
  }
  return { ...(v as Record<string, string>) };
}

export function oneOf<T extends string>(
  req: Fields,
  key: string,
  allowed: readonly T[],
  isOptional = false,
): T | undefined {
  const v = req[key];
  if (v === undefined && isOptional) return undefined;
  if (!allowed.includes(v as T)) throw badField(key, `one of ${allowed.join(', ')}`);
  return v as T;
}

function badField(key: string, what: string): RequestError {
  return new RequestError('bad_request', `"${key}" must be ${what}`);
}
