import { describe, expect, it } from 'vitest';
import { readOpenPort, typedPort } from './port-input';

describe('the Open a port form', () => {
  it('reads the node port, and the local port when given (0: a free one)', () => {
    expect(readOpenPort(' 6006 ', '')).toEqual({
      ok: true,
      remotePort: 6006,
      localPort: undefined,
    });
    expect(readOpenPort('6006', '16006')).toEqual({ ok: true, remotePort: 6006, localPort: 16006 });
    expect(readOpenPort('6006', '0')).toEqual({ ok: true, remotePort: 6006, localPort: 0 });
  });
  it('names what to fix', () => {
    expect(readOpenPort('', '')).toEqual({ ok: false, problem: 'Give the node port' });
    for (const bad of ['0', '65536', 'abc', '60.6'])
      expect(readOpenPort(bad, ''), bad).toEqual({
        ok: false,
        problem: 'The node port is a number from 1 to 65535',
      });
    expect(readOpenPort('6006', '70000')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^The local port is a number from 1 to 65535/),
    });
  });
  it('a typed port is digits, 1–65535', () => {
    expect(typedPort('65535')).toBe(65535);
    expect(typedPort('0')).toBeNaN();
    expect(typedPort('0', true)).toBe(0);
    expect(typedPort('-1', true)).toBeNaN();
  });
});
