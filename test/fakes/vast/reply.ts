// What a handler answers, and the error bodies the fake shares between endpoints. JSON goes
// out as exactly `application/json`: vast.py's search__offers refuses any other Content-Type
// (a charset suffix included).

export type Reply =
  { status: number; kind: 'json'; body: unknown } | { status: number; kind: 'text'; body: string };

export function json(status: number, body: unknown): Reply {
  return { status, kind: 'json', body };
}

export function text(status: number, body: string): Reply {
  return { status, kind: 'text', body };
}

/** A handler's refusal, turned into a reply by the server. */
export class ApiFailure extends Error {
  constructor(readonly reply: Reply) {
    super(`fake vast: ${reply.status}`);
  }
}

/** show_instance.yaml's 401 example. */
export const INVALID_KEY = json(401, {
  success: false,
  error: 'auth_error',
  msg: 'Invalid user key',
});

export function invalidArgs(msg: string, extra: Record<string, unknown> = {}): ApiFailure {
  return new ApiFailure(json(400, { success: false, error: 'invalid_args', msg, ...extra }));
}

/** manage_instance.yaml / detach_ssh.yaml: `no_such_instance`. */
export function noSuchInstance(): ApiFailure {
  return new ApiFailure(
    json(404, { success: false, error: 'no_such_instance', msg: 'Instance not found.' }),
  );
}

/** Plain-text bodies, as a proxy or an unhandled server error gives them. */
export const STATUS_TEXT: Record<number, string> = {
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function serverError(status: number): Reply {
  return text(status, STATUS_TEXT[status] ?? 'Internal Server Error');
}
