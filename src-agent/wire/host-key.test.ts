import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJson, hostKey, type HostKeyInput } from './host-key';

const fixture = JSON.parse(
  readFileSync(new URL('../../test/fixtures/host-key-vectors.json', import.meta.url), 'utf8'),
) as { vectors: { input: HostKeyInput; key: string }[] };

describe('host key (hk1 placement key)', () => {
  it('has golden vectors to check against', () => {
    expect(fixture.vectors.length).toBeGreaterThanOrEqual(2);
  });

  for (const v of fixture.vectors) {
    it(`${JSON.stringify(v.input)} → ${v.key}`, () => {
      expect(hostKey(v.input)).toBe(v.key);
    });
  }

  it('treats absent, empty and null as the same input', () => {
    const k = hostKey({});
    expect(
      hostKey({
        runner: null,
        image: '',
        resources: {},
        host_setup: [],
        provider: null,
        extras: {},
      }),
    ).toBe(k);
  });

  it('normalises resource key order but not host_setup order', () => {
    expect(hostKey({ resources: { a: 1, b: 'x' } })).toBe(hostKey({ resources: { b: 'x', a: 1 } }));
    expect(hostKey({ host_setup: ['a', 'b'] })).not.toBe(hostKey({ host_setup: ['b', 'a'] }));
  });

  it('refuses floats rather than coercing them', () => {
    expect(() => hostKey({ resources: { vram: 1.5 } })).toThrow(/not an integer/);
  });

  it('writes canonical JSON with recursively sorted keys and no whitespace', () => {
    expect(canonicalJson({ b: { d: 1, c: [2, 'x'] }, a: null })).toBe(
      '{"a":null,"b":{"c":[2,"x"],"d":1}}',
    );
  });
});
