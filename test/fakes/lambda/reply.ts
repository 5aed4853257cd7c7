// The envelopes of the Lambda Cloud API (openapi.yaml): `{"data": …}` on success,
// `{"error": {code, message, suggestion?}, "field_errors"?: {…}}` on failure.

export type Reply =
  { status: number; kind: 'json'; body: unknown } | { status: number; kind: 'text'; body: string };

export function data(payload: unknown): Reply {
  return { status: 200, kind: 'json', body: { data: payload } };
}

export function text(status: number, body: string): Reply {
  return { status, kind: 'text', body };
}

export function apiError(
  status: number,
  code: string,
  message: string,
  suggestion?: string,
  fieldErrors?: Record<string, { code: string; message: string }>,
): Reply {
  return {
    status,
    kind: 'json',
    body: {
      error: { code, message, ...(suggestion ? { suggestion } : {}) },
      ...(fieldErrors ? { field_errors: fieldErrors } : {}),
    },
  };
}

/** A handler's refusal, turned into a reply by the server. */
export class ApiFailure extends Error {
  constructor(readonly reply: Reply) {
    super(`fake lambda: ${reply.status}`);
  }
}

/** openapi.yaml's 401 example. */
export const INVALID_KEY = apiError(
  401,
  'global/invalid-api-key',
  'API key is invalid, expired, or deleted.',
  'Create a new API key and try again.',
);

export const NOT_FOUND = (what: string) =>
  apiError(404, 'global/object-does-not-exist', `Specified ${what} does not exist.`);

export const NO_CAPACITY = apiError(
  400,
  'instance-operations/launch/insufficient-capacity',
  'Not enough capacity to fulfill launch request.',
  'Choose an instance type with more availability, or try again later.',
);

/** The body of a 429 is not specified (openapi.yaml): this one is a guess. */
export const RATE_LIMITED = apiError(
  429,
  'global/too-many-requests',
  'Too many requests.',
  'Wait and try again.',
);

export function invalidParameters(field: string, message: string): ApiFailure {
  return new ApiFailure(
    apiError(400, 'global/invalid-parameters', 'Invalid request parameters.', undefined, {
      [field]: { code: 'global/invalid-parameters', message },
    }),
  );
}
