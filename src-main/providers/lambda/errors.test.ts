import { describe, expect, it } from 'vitest';
import { httpError, isDuplicate, isNoCapacity, isNotFound, parseErrorBody } from './errors';

const envelope = (code: string, message: string, suggestion?: string, extra = {}) =>
  JSON.stringify({ error: { code, message, ...(suggestion ? { suggestion } : {}) }, ...extra });

describe('Lambda error bodies', () => {
  it.each([
    [
      envelope(
        'global/invalid-api-key',
        'API key is invalid, expired, or deleted.',
        'Create a new API key and try again.',
      ),
      'global/invalid-api-key',
      'API key is invalid, expired, or deleted.; Create a new API key and try again.',
    ],
    [
      envelope('global/invalid-parameters', 'Invalid request.', undefined, {
        field_errors: { name: { code: 'global/invalid-parameters', message: 'Too long.' } },
      }),
      'global/invalid-parameters',
      'Invalid request.; name: Too long.',
    ],
    ['Bad Gateway', null, 'Bad Gateway'],
    ['<html><title>502 Bad Gateway</title></html>', null, '502 Bad Gateway (an HTML page)'],
    ['', null, ''],
    ['{"detail":"x"}', null, '{"detail":"x"}'],
  ])('%s → code %s', (text, code, message) => {
    expect(parseErrorBody(text)).toEqual({ code, message });
  });

  it('a 401 is fatal and names the setting', () => {
    const e = httpError(
      'list instances',
      401,
      parseErrorBody(envelope('global/invalid-api-key', 'bad')),
    );
    expect(e.opts.fatal).toBe(true);
    expect(e.opts.hint).toMatch(/TENDER_LAMBDA_API_KEY/);
  });

  it('insufficient capacity is noCapacity, branching on the code', () => {
    const body = parseErrorBody(
      envelope(
        'instance-operations/launch/insufficient-capacity',
        'Not enough capacity to fulfill launch request.',
      ),
    );
    const e = httpError('launch gpu_1x_a10 in us-east-1', 400, body);
    expect(e.opts.noCapacity).toBe(true);
    expect(isNoCapacity(e)).toBe(true);
    expect(isNotFound(e)).toBe(false);
  });

  it('not found and duplicate are told by code only; a bare 404 page names TENDER_LAMBDA_URL', () => {
    expect(
      isNotFound(
        httpError('x', 404, parseErrorBody(envelope('global/object-does-not-exist', 'gone'))),
      ),
    ).toBe(true);
    const bare = httpError('x', 404, parseErrorBody('Not Found'));
    expect(isNotFound(bare)).toBe(false);
    expect(bare.message).toMatch(/TENDER_LAMBDA_URL/);
    expect(
      isDuplicate(httpError('x', 400, parseErrorBody(envelope('global/duplicate', 'dup')))),
    ).toBe(true);
  });
});
