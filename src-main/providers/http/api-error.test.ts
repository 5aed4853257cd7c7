import { describe, expect, it } from 'vitest';
import { LambdaApiError } from '../lambda/errors';
import { RunpodApiError } from '../runpod/errors';
import { VastApiError } from '../vastai/errors';
import { gaveUp } from './api-error';

describe('gaveUp: the last error, saying how long the retries ran', () => {
  it.each([
    [
      'vastai',
      new VastApiError('list instances (rate limited): HTTP 429', 429, null, { hint: 'h' }),
    ],
    ['runpod', new RunpodApiError('pod x: HTTP 503', 503, 'busy', { outcomeUnknown: true })],
    ['lambda', new LambdaApiError('launch: no answer within 30 s', null, null, {})],
  ])('%s: same class, status, code and opts', (_, last) => {
    const e = gaveUp(last, 4, 12_400);
    expect(e).toBeInstanceOf(last.constructor);
    expect(e.name).toBe(last.name);
    expect(e.message).toBe(`${last.message} (gave up after 4 attempts in 12 s)`);
    expect(e).toMatchObject({ status: last.status, code: last.code, opts: last.opts });
  });
});
