import { describe, expect, it } from 'vitest';
import { parseLease } from './lease-params';
import { RequestError } from '../socket/request-checks';

const vast = { kind: 'vastai', apiUrl: 'https://console.vast.ai', envFiles: ['/proc/1/environ'] };
const ok = { graceMs: 600, afterJob: 'destroy', teardown: vast };

describe('parseLease', () => {
  it('fills the optional fields with "none"', () => {
    expect(parseLease({ id: 1, op: 'lease', ...ok })).toEqual({
      graceMs: 600,
      maxDurationMs: null,
      budgetMs: null,
      afterJob: 'destroy',
      idleTimeoutMs: null,
      collectGraceMs: null,
      inUse: false,
      collected: false,
      teardown: vast,
    });
  });

  it('takes each teardown kind: vastai and runpod with their API and env files', () => {
    const runpod = {
      kind: 'runpod',
      apiUrl: 'https://api.runpod.io',
      envFiles: ['/proc/1/environ'],
    };
    expect(parseLease({ ...ok, teardown: runpod }).teardown).toEqual(runpod);
    expect(parseLease({ ...ok, teardown: { kind: 'remove-files' } }).teardown).toEqual({
      kind: 'remove-files',
    });
    expect(() => parseLease({ ...ok, teardown: { kind: 'runpod', envFiles: [] } })).toThrow(
      RequestError,
    );
  });

  it('keeps every field it was given', () => {
    expect(
      parseLease({
        graceMs: 100,
        maxDurationMs: 0,
        budgetMs: 5,
        afterJob: 'keep_warm',
        idleTimeoutMs: 7,
        collectGraceMs: 9,
        idleGpuUtilBelow: 5,
        inUse: true,
        collected: true,
        checkMs: 10,
        teardown: { kind: 'remove-files' },
      }),
    ).toEqual({
      graceMs: 100,
      maxDurationMs: 0,
      budgetMs: 5,
      afterJob: 'keep_warm',
      idleTimeoutMs: 7,
      idleGpuUtilBelow: 5,
      collectGraceMs: 9,
      inUse: true,
      collected: true,
      checkMs: 10,
      teardown: { kind: 'remove-files' },
    });
  });

  it.each([
    ['no grace', { ...ok, graceMs: undefined }, 'graceMs'],
    ['a grace under 100 ms', { ...ok, graceMs: 99 }, 'graceMs'],
    ['a grace that is not a number', { ...ok, graceMs: '600' }, 'graceMs'],
    ['a negative budget', { ...ok, budgetMs: -1 }, 'budgetMs'],
    ['an infinite max duration', { ...ok, maxDurationMs: Infinity }, 'maxDurationMs'],
    ['an unknown afterJob', { ...ok, afterJob: 'sleep' }, 'afterJob'],
    ['inUse as a string', { ...ok, inUse: 'yes' }, 'inUse'],
    ['collected as a number', { ...ok, collected: 1 }, 'collected'],
    ['a check under 10 ms', { ...ok, checkMs: 5 }, 'checkMs'],
    ['a GPU threshold of 0%', { ...ok, idleGpuUtilBelow: 0 }, 'idleGpuUtilBelow'],
    ['a GPU threshold over 100%', { ...ok, idleGpuUtilBelow: 101 }, 'idleGpuUtilBelow'],
    ['a GPU threshold as text', { ...ok, idleGpuUtilBelow: '5' }, 'idleGpuUtilBelow'],
    ['no teardown', { ...ok, teardown: undefined }, 'teardown'],
    ['an unknown teardown kind', { ...ok, teardown: { kind: 'aws' } }, 'kind'],
    ['an ftp API', { ...ok, teardown: { ...vast, apiUrl: 'ftp://console.vast.ai' } }, 'apiUrl'],
    ['an API that is not a URL', { ...ok, teardown: { ...vast, apiUrl: 'console' } }, 'apiUrl'],
    [
      'an API URL with credentials',
      { ...ok, teardown: { ...vast, apiUrl: 'https://me:key@console.vast.ai' } },
      'apiUrl',
    ],
    ['no envFiles', { ...ok, teardown: { kind: 'vastai', apiUrl: vast.apiUrl } }, 'envFiles'],
    ['an empty env file', { ...ok, teardown: { ...vast, envFiles: [''] } }, 'envFiles'],
  ])('refuses %s', (_name, req, field) => {
    let error: unknown;
    try {
      parseLease(req as Record<string, unknown>);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RequestError);
    expect((error as RequestError).code).toBe('bad_request');
    expect((error as RequestError).message).toContain(field);
  });
});
