import { describe, expect, it } from 'vitest';
import { scancelCommand } from './scancel';

describe('scancelCommand', () => {
  it('cancels many jobs in one call', () => {
    expect(scancelCommand(['12', '13', '14_2', '15+0'])).toBe('scancel 12 13 14_2 15+0');
  });

  it.each([[[]], [['12;x']], [['$(reboot)']], [['']]])('refuses %j', (ids) => {
    expect(() => scancelCommand(ids)).toThrow();
  });
});
