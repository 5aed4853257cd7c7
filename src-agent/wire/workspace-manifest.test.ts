import { describe, expect, test } from 'vitest';
import type { ManifestEntry } from './protocol';
import { filesOf, manifestDigest, toManifest } from './workspace-manifest';

const e = (size: number, mode = 0o644, fill = 'a'): ManifestEntry => ({
  size,
  mode,
  sha256: fill.repeat(64),
});

describe('manifestDigest', () => {
  const files = new Map([
    ['b.txt', e(1)],
    ['a/x.py', e(2)],
  ]);

  test('does not depend on the order files or folders were listed in', () => {
    const reversed = new Map([...files].reverse());
    expect(manifestDigest(reversed, ['z', 'a'])).toBe(manifestDigest(files, ['a', 'z']));
  });

  test('changes with size, mode, hash, path and folders', () => {
    const base = manifestDigest(files, ['a']);
    const variants = [
      new Map([...files, ['b.txt', e(9)]]),
      new Map([...files, ['b.txt', e(1, 0o755)]]),
      new Map([...files, ['b.txt', e(1, 0o644, 'b')]]),
      new Map([
        ['c.txt', e(1)],
        ['a/x.py', e(2)],
      ]),
    ];
    for (const v of variants) expect(manifestDigest(v, ['a'])).not.toBe(base);
    expect(manifestDigest(files, ['a', 'empty'])).not.toBe(base);
  });
});

describe('toManifest / filesOf', () => {
  test('round-trip through JSON, a file named __proto__ included', () => {
    const files = new Map([
      ['__proto__', e(1)],
      ['b', e(2)],
    ]);
    const json = JSON.parse(JSON.stringify(toManifest(files, ['d']))) as { files: unknown };
    const back = filesOf(json.files, 'test');
    expect([...back.keys()]).toEqual(['__proto__', 'b']);
    expect(manifestDigest(back, ['d'])).toBe(manifestDigest(files, ['d']));
  });

  test.each([
    [{ a: { size: -1, mode: 0o644, sha256: 'a'.repeat(64) } }],
    [{ a: { size: 1, mode: 0o4755, sha256: 'a'.repeat(64) } }],
    [{ a: { size: 1, mode: 0o644, sha256: 'XYZ' } }],
    [[]],
  ])('refuses a malformed entry: %j', (files) => {
    expect(() => filesOf(files, 'test')).toThrow();
  });
});
