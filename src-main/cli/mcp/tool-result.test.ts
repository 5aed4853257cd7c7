import { describe, expect, it } from 'vitest';
import { TenderError } from '../../base/tender-error';
import { answer, redactDeep, toolError } from './tool-result';

const redact = (t: string) => t.split('s3cr3t-value').join('***');

describe('what a tool sends the agent', () => {
  it.each([
    ['a string', 'key s3cr3t-value!', 'key ***!'],
    [
      'nested',
      { a: ['x s3cr3t-value', { b: 's3cr3t-value' }], n: 3, z: null },
      { a: ['x ***', { b: '***' }], n: 3, z: null },
    ],
    ['a key', { 's3cr3t-value': 1 }, { '***': 1 }],
    ['numbers and booleans as they are', [1, true, false], [1, true, false]],
  ])('scrubs %s', (_name, value, expected) => {
    expect(redactDeep(value, redact)).toEqual(expected);
  });

  it('an error names the fix, scrubbed', () => {
    const r = toolError(new TenderError('bad_input', 'bad s3cr3t-value', 'do this'), redact);
    expect(r).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'bad_input: bad ***\nhint: do this' }],
    });
  });

  it('a tool body that throws answers an error, not a throw', async () => {
    const r = await answer(
      () => redact,
      async () => {
        throw new Error('boom s3cr3t-value');
      },
    );
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r)).not.toContain('s3cr3t-value');
  });

  it('structured content and text, both scrubbed', async () => {
    const r = await answer(
      () => redact,
      async () => ({ structured: { line: 's3cr3t-value' }, text: 'said s3cr3t-value' }),
    );
    expect(r).toEqual({
      structuredContent: { line: '***' },
      content: [{ type: 'text', text: 'said ***' }],
    });
  });
});
