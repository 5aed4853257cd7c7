import { describe, expect, test } from 'vitest';
import { httpError, isOfferTaken, parseErrorBody, saysInstanceGone, VastApiError } from './errors';

describe('parseErrorBody', () => {
  const long = 'x'.repeat(1000);
  test.each([
    ['empty', '', '', null, ''],
    ['whitespace', ' \n\t ', '', null, ''],
    [
      '429 plain text',
      'API requests too frequent',
      'text/plain',
      null,
      'API requests too frequent',
    ],
    [
      'plain text, two lines',
      'API requests too frequent:\n endpoint threshold=4.5',
      '',
      null,
      'API requests too frequent: endpoint threshold=4.5',
    ],
    [
      'Vast.ai JSON error',
      '{"success":false,"error":"invalid_args","msg":"error 400/1782: Invalid args"}',
      'application/json',
      'invalid_args',
      'error 400/1782: Invalid args',
    ],
    [
      'JSON detail (429 in the OpenAPI files)',
      '{"detail":"API requests too frequent endpoint threshold=4.5"}',
      'application/json',
      null,
      'API requests too frequent endpoint threshold=4.5',
    ],
    ['code only', '{"success":false,"error":"auth_error"}', '', 'auth_error', 'auth_error'],
    ['message instead of msg', '{"message":"Instance not found"}', '', null, 'Instance not found'],
    [
      'detail as a list',
      '{"detail":[{"msg":"field required"},{"msg":"bad id"}]}',
      '',
      null,
      'field required; bad id',
    ],
    ['JSON string', '"just words"', 'application/json', null, 'just words'],
    ['JSON array', '[1, 2]', 'application/json', null, '[1, 2]'],
    ['JSON with empty error', '{"error":"","msg":""}', '', null, ''],
    [
      'HTML with a title',
      '<html><head><title>502 Bad Gateway</title></head><body><h1>x</h1></body></html>',
      'text/html',
      null,
      '502 Bad Gateway (an HTML page)',
    ],
    [
      'HTML without a content type',
      '<!DOCTYPE html><body><h1>Service <b>Unavailable</b></h1></body>',
      '',
      null,
      'Service Unavailable (an HTML page)',
    ],
    ['HTML with nothing in it', '<html><body></body></html>', 'text/html', null, 'an HTML page'],
    ['long text is cut', long, '', null, `${'x'.repeat(299)}…`],
  ])('%s', (_name, text, contentType, code, message) => {
    expect(parseErrorBody(text, contentType)).toEqual({ code, message });
  });
});

describe('httpError', () => {
  test('401 names the variable to fix and is final', () => {
    const e = httpError('list instances', 401, { code: 'auth_error', message: 'Invalid user key' });

    expect(e.message).toContain('TENDER_VASTAI_API_KEY');
    expect(e.message).toContain('Invalid user key');
    expect(e.opts.fatal).toBe(true);
    expect(e.opts.hint).toContain('TENDER_VASTAI_API_KEY');
  });

  test('other statuses say the call, the status and the body', () => {
    const e = httpError('destroy instance 7', 400, { code: 'invalid_args', message: 'bad id' });

    expect(e.message).toBe('destroy instance 7 failed: HTTP 400: bad id');
    expect(e.status).toBe(400);
    expect(e.code).toBe('invalid_args');
  });
});

describe('isOfferTaken', () => {
  const err = (status: number | null, code: string | null, msg: string) =>
    new VastApiError(msg, status, code);
  test.each([
    [
      '404 from create_instance.yaml',
      err(
        404,
        'invalid_args',
        'error 404/3603: no_such_ask Instance type by id 1 is not available.',
      ),
      true,
    ],
    ['410 no_such_ask', err(410, 'no_such_ask', 'no longer available'), true],
    ['no_such_ask on a 200 refusal', err(200, 'no_such_ask', 'refused'), true],
    ['404 not available, no code', err(404, null, 'offer 5 is not available'), true],
    ['400 bad args', err(400, 'invalid_args', 'disk too small'), false],
    ['500', err(500, null, 'internal error'), false],
    ['a plain Error', new Error('no_such_ask'), false],
  ])('%s', (_n, e, expected) => {
    expect(isOfferTaken(e)).toBe(expected);
  });
});

describe('saysInstanceGone', () => {
  const said = (code: string | null, message: string) => ({ code, message });
  test.each([
    ['404 JSON not_found', 404, said('not_found', 'Instance not found'), 'json', true],
    ['404 JSON msg only', 404, said(null, 'Instance not found'), 'json', true],
    ['200 no_such_instance', 200, said('no_such_instance', ''), 'json', true],
    ['400 no_such_instance in msg', 400, said(null, 'no_such_instance 7'), 'json', true],
    ['404 text naming the instance', 404, said(null, 'Instance 7 not found'), 'text', true],
    ['404 plain "Not Found" (an unknown path)', 404, said(null, 'Not Found'), 'text', false],
    ['404 HTML page from a proxy', 404, said(null, 'Not Found'), 'html', false],
    ['404 JSON with nothing said', 404, said(null, ''), 'json', false],
    ['404 empty body', 404, said(null, ''), 'text', false],
    ['500', 500, said(null, 'Instance not found?'), 'json', false],
  ] as const)('%s', (_n, status, body, kind, expected) => {
    expect(saysInstanceGone(status, body, kind)).toBe(expected);
  });
});
