import { describe, expect, it } from 'vitest';
import type { CommandName } from '../contract';
import type { Handlers } from '../contract/handlers';
import { dispatch } from './dispatch';

describe('dispatch', () => {
  // A name that is a property of every object must not reach Object.prototype: before the
  // own-key check, `toString` threw out of dispatch (an unhandled rejection in web mode).
  it.each(['toString', '__proto__', 'constructor', 'hasOwnProperty', 'nope'])(
    '"%s" is an unknown command, answered as data',
    async (name) => {
      const r = await dispatch({} as Handlers, name as CommandName, {});
      expect(r).toEqual({
        ok: false,
        error: { code: 'bad_request', message: `unknown command "${name}"` },
      });
    },
  );
});
