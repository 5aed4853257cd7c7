import { ApiError, describeError } from '../../api/backend';

export type FieldErrors<F extends string> = Partial<Record<F, string>>;

interface Issue {
  path: readonly PropertyKey[];
  message: string;
  code?: string;
  origin?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  expected?: unknown;
}

/** A zod issue in words a person reads beside a field ("at most 60", not "Too big: …"). */
export function issueText(issue: Issue): string {
  if (issue.code === 'too_big' && issue.maximum !== undefined)
    return `at most ${String(issue.maximum)}`;
  if (issue.code === 'too_small' && issue.origin === 'string')
    return issue.minimum === 1 ? 'required' : `at least ${String(issue.minimum)} characters`;
  if (issue.code === 'too_small' && issue.minimum !== undefined)
    return `at least ${String(issue.minimum)}`;
  if (issue.code === 'invalid_type' && issue.expected === 'int') return 'a whole number, please';
  if (issue.code === 'invalid_type' && issue.expected === 'number') return 'a number, please';
  return issue.message;
}

/** zod issues (the contract's own schemas, run before sending) by field. */
export function issuesByField<F extends string>(
  issues: readonly Issue[],
  fields: readonly F[],
): { fields: FieldErrors<F>; general: string | null } {
  const out: FieldErrors<F> = {};
  const rest: string[] = [];
  for (const issue of issues) {
    const key = String(issue.path[0] ?? '');
    if ((fields as readonly string[]).includes(key)) out[key as F] ??= issueText(issue);
    else rest.push(issue.message);
  }
  return { fields: out, general: rest.length > 0 ? rest.join('; ') : null };
}

/** A command's error by field: a `bad_request` names its fields ("port: Too big…; name: …");
 *  a `conflict` belongs to `conflictField` when given; anything else is general, with its
 *  hint. */
export function errorByField<F extends string>(
  err: unknown,
  fields: readonly F[],
  conflictField?: F,
): { fields: FieldErrors<F>; general: string | null } {
  if (err instanceof ApiError && err.code === 'bad_request') {
    const issues = err.message.split('; ').map((part) => {
      const i = part.indexOf(': ');
      return i === -1
        ? { path: [], message: part }
        : { path: [part.slice(0, i).split('.')[0]!], message: part.slice(i + 2) };
    });
    return issuesByField(issues, fields);
  }
  if (err instanceof ApiError && err.code === 'conflict' && conflictField)
    return { fields: { [conflictField]: describeError(err) } as FieldErrors<F>, general: null };
  return { fields: {}, general: describeError(err) };
}
