import { describe, expect, it } from 'vitest';
import {
  graphqlError,
  graphqlErrorsOf,
  httpError,
  isPodNotFound,
  parseErrorBody,
  RunpodApiError,
} from './errors';

describe('parseErrorBody: one line from any answer', () => {
  it.each([
    [
      'GraphQL errors',
      JSON.stringify({ errors: [{ message: 'a' }, { message: 'b' }], data: null }),
      '',
      'a; b',
    ],
    ['REST v1 {message}', '{"message":"Pod not found"}', 'application/json', 'Pod not found'],
    [
      'RFC 9457',
      '{"title":"Not Found","status":404,"detail":"The requested Pod does not exist."}',
      '',
      'The requested Pod does not exist.',
    ],
    ['plain text', 'Too Many Requests', 'text/plain', 'Too Many Requests'],
    [
      'an HTML page',
      '<html><head><title>502 Bad Gateway</title></head><body>…</body></html>',
      'text/html',
      '502 Bad Gateway (an HTML page)',
    ],
    ['empty', '', '', ''],
    ['multi-line text', 'line one\n  line two', '', 'line one line two'],
  ])('%s', (_name, text, type, message) => {
    expect(parseErrorBody(text, type).message).toBe(message);
  });

  it('keeps the first error code, and caps the length', () => {
    const body = graphqlErrorsOf({
      errors: [{ message: 'x', extensions: { code: 'BAD_USER_INPUT' } }],
    });
    expect(body).toEqual({ code: 'BAD_USER_INPUT', message: 'x' });
    expect(parseErrorBody('y'.repeat(1000)).message.length).toBe(300);
    expect(graphqlErrorsOf({ data: {} })).toBeNull();
  });
});

describe('error mapping', () => {
  it.each([
    'There are no longer any instances available with the requested specifications. Please refresh and try again.',
    'There are no longer any instances available with the requested specifications. Please try again later.',
    'There are no longer any instances available with enough disk space.',
  ])('no capacity: %s', (message) => {
    const e = graphqlError('create pod x', { code: null, message });
    expect(e.opts).toMatchObject({ noCapacity: true });
    expect(e.opts.fatal).toBeUndefined();
  });

  it('an auth refusal is fatal with a hint, as HTTP 401/403 and inside a 200', () => {
    for (const e of [
      httpError('list pods', 401, { code: null, message: 'Unauthorized' }),
      httpError('list pods', 403, { code: null, message: '' }),
      graphqlError('list pods', { code: null, message: 'Unauthorized' }),
    ]) {
      expect(e.opts.fatal).toBe(true);
      expect(e.opts.hint).toMatch(/TENDER_RUNPOD_API_KEY/);
    }
  });

  it('other failures say what failed, in one line', () => {
    expect(httpError('show pod p', 500, { code: null, message: 'boom' }).message).toBe(
      'show pod p failed: HTTP 500: boom',
    );
    expect(
      graphqlError('resume pod p', { code: null, message: 'not enough GPUs free' }).opts.noCapacity,
    ).toBe(true);
    expect(graphqlError('resume pod p', { code: null, message: 'odd' }).message).toBe(
      'resume pod p failed: odd',
    );
  });

  it('"pod not found to terminate" is a pod not found, only from a GraphQL answer', () => {
    expect(
      isPodNotFound(
        graphqlError('terminate', { code: null, message: 'pod not found to terminate' }),
      ),
    ).toBe(true);
    expect(isPodNotFound(new RunpodApiError('Not Found', 404, null))).toBe(false);
    expect(isPodNotFound(new Error('pod not found'))).toBe(false);
  });
});
