import type { z } from 'zod';
import { commands, type CommandName, type CommandOutput, type Result } from '../contract';
import type { Handlers } from '../contract/handlers';
import { TenderError, toErrorData } from '../base/tender-error';

export type { Handlers } from '../contract/handlers';

/** Parses the request at the boundary, runs the handler, and returns errors as data. A bad
 *  request never reaches a handler, so it never half-applies. */
export async function dispatch<C extends CommandName>(
  handlers: Handlers,
  command: C,
  input: unknown,
): Promise<Result<CommandOutput<C>>> {
  // Own keys only: `toString` or `__proto__` from a client is an unknown command, not a
  // property of Object.prototype to call.
  const spec = Object.hasOwn(commands, command)
    ? (commands[command] as (typeof commands)[CommandName])
    : undefined;
  if (!spec) {
    return {
      ok: false,
      error: { code: 'bad_request', message: `unknown command "${String(command)}"` },
    };
  }
  const parsed = (spec.input as z.ZodType).safeParse(input);
  if (!parsed.success) {
    return { ok: false, error: { code: 'bad_request', message: describeIssues(parsed.error) } };
  }
  try {
    const handler = handlers[command] as (args: unknown) => Promise<CommandOutput<C>>;
    return { ok: true, value: await handler(parsed.data) };
  } catch (err) {
    return { ok: false, error: toErrorData(err) };
  }
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join('.') : '(request)';
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

/** Unwraps a result for callers that prefer exceptions (the CLI). */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw new TenderError(result.error.code, result.error.message, result.error.hint);
}
