// The `lease` request, checked strictly: a switch armed with a wrong policy either never
// protects the money or destroys a node the user wanted.
import type { LeaseParams, SelfTeardown } from '../../wire/protocol';
import { RequestError, oneOf, optionalNumber, requiredString } from '../socket/request-checks';

/** Below this a renewal over a slow link could not keep up; a test's grace is larger. */
export const MIN_GRACE_MS = 100;
/** Checks more often than this would only burn the node's CPU. */
export const MIN_CHECK_MS = 10;

type Fields = Record<string, unknown>;

export function parseLease(req: Fields): LeaseParams {
  const graceMs = optionalNumber(req, 'graceMs', MIN_GRACE_MS);
  if (graceMs === undefined) throw bad('graceMs', `a number ≥ ${MIN_GRACE_MS}`);
  return {
    graceMs,
    maxDurationMs: optionalNumber(req, 'maxDurationMs') ?? null,
    budgetMs: optionalNumber(req, 'budgetMs') ?? null,
    afterJob: oneOf(req, 'afterJob', ['destroy', 'keep_warm'] as const) as LeaseParams['afterJob'],
    idleTimeoutMs: optionalNumber(req, 'idleTimeoutMs') ?? null,
    ...optionalGpuIdle(req),
    collectGraceMs: optionalNumber(req, 'collectGraceMs') ?? null,
    inUse: optionalBoolean(req, 'inUse'),
    collected: optionalBoolean(req, 'collected'),
    teardown: parseTeardown(req.teardown),
    ...optionalCheck(req),
  };
}

function parseTeardown(v: unknown): SelfTeardown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw bad('teardown', 'an object with "kind"');
  }
  const t = v as Fields;
  const kind = oneOf(t, 'kind', ['vastai', 'runpod', 'remove-files'] as const);
  if (kind === undefined || kind === 'remove-files') return { kind: 'remove-files' };
  const apiUrl = requiredString(t, 'apiUrl');
  if (!isHttpUrl(apiUrl)) throw bad('teardown.apiUrl', 'an http:// or https:// URL');
  const envFiles = t.envFiles;
  if (!Array.isArray(envFiles) || envFiles.some((f) => typeof f !== 'string' || f === '')) {
    throw bad('teardown.envFiles', 'an array of non-empty paths');
  }
  return { kind, apiUrl, envFiles: [...(envFiles as string[])] };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '';
  } catch {
    return false;
  }
}

function optionalBoolean(req: Fields, key: string): boolean {
  const v = req[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw bad(key, 'true or false');
  return v;
}

/** Absent unless given: an older app never sends it, and the result stays as it was. */
function optionalGpuIdle(req: Fields): { idleGpuUtilBelow?: number } {
  const v = req.idleGpuUtilBelow;
  if (v === undefined || v === null) return {};
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > 100)
    throw bad('idleGpuUtilBelow', 'a percentage above 0 and at most 100');
  return { idleGpuUtilBelow: v };
}

function optionalCheck(req: Fields): { checkMs?: number } {
  const checkMs = optionalNumber(req, 'checkMs', MIN_CHECK_MS);
  return checkMs === undefined ? {} : { checkMs };
}

function bad(key: string, what: string): RequestError {
  return new RequestError('bad_request', `"${key}" must be ${what}`);
}
