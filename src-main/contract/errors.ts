import { z } from 'zod';

/** Error codes a caller can branch on. Messages are for people; codes are for code. */
export const ErrorCode = z.enum([
  'bad_request', // the request did not match the contract's schema
  'bad_input', // a job file, path or value the user gave is wrong
  'not_found', // no run / node / lease with that id
  'conflict', // the thing is in a state that does not allow this
  'busy', // another Tender process holds the ledger
  'provider', // a provider refused or failed
  'infrastructure', // SSH, agent, disk: the machinery failed, not the job
  'internal', // a bug in Tender
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorData = z.object({
  code: ErrorCode,
  message: z.string(),
  /** What to do about it, when there is something to do. */
  hint: z.string().optional(),
});
export type ErrorData = z.infer<typeof ErrorData>;

export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorData };
