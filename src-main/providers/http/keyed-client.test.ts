import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../base/provider-error';
import { KeyedClient } from './keyed-client';

describe('KeyedClient', () => {
  it('makes the client again, and says so, only when the key changes', () => {
    let key = 'k1';
    let changes = 0;
    const made: string[] = [];
    const client = new KeyedClient(
      () => key,
      (k) => {
        made.push(k);
        return { key: k };
      },
      { name: 'Test Cloud', onChange: () => changes++ },
    );
    expect(client.get()).toEqual({ key: 'k1' });
    expect(client.isConfigured()).toBe(true);
    expect([made, changes]).toEqual([['k1'], 1]);
    key = 'k2';
    expect(client.get()).toEqual({ key: 'k2' });
    expect([made, changes]).toEqual([['k1', 'k2'], 2]);
  });

  it('throws what stopped the client being made, a plain error as a fatal ProviderError', () => {
    let key = '';
    const client = new KeyedClient(
      () => key,
      (k) => {
        if (!k) throw new Error('no key');
        return k;
      },
      { name: 'Test Cloud' },
    );
    expect(client.isConfigured()).toBe(false);
    expect(() => client.get()).toThrow(ProviderError);
    expect(() => client.get()).toThrow('Test Cloud is not configured: no key');
    key = 'k';
    expect(client.get()).toBe('k');
  });
});
