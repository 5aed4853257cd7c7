// How every tool answers: structured content for a program, a short text for a model, and
// errors as a text naming the fix. Everything bound for the agent is scrubbed of the
// session's secrets (job secrets, provider keys) on the way out.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toErrorData } from '../../base/tender-error';

export type Redact = (text: string) => string;

/** Every string inside `value`, scrubbed (keys too: a record may be keyed by a value). */
export function redactDeep<T>(value: T, redact: Redact): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactDeep(v, redact)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redact(k)] = redactDeep(v, redact);
    return out as T;
  }
  return value;
}

export function toolResult(
  structured: Record<string, unknown>,
  text: string,
  redact: Redact,
): CallToolResult {
  return {
    structuredContent: redactDeep(structured, redact),
    content: [{ type: 'text', text: redact(text) }],
  };
}

/** An error as the agent sees it: what went wrong and what to do about it. */
export function toolError(err: unknown, redact: Redact): CallToolResult {
  const e = toErrorData(err);
  const text = e.hint ? `${e.message}\nhint: ${e.hint}` : e.message;
  return { isError: true, content: [{ type: 'text', text: redact(`${e.code}: ${text}`) }] };
}

/** Runs a tool's body; anything it throws becomes an error result. */
export async function answer(
  redact: () => Redact,
  body: () => Promise<{ structured: Record<string, unknown>; text: string }>,
): Promise<CallToolResult> {
  try {
    const { structured, text } = await body();
    return toolResult(structured, text, redact());
  } catch (err) {
    return toolError(err, redact());
  }
}
