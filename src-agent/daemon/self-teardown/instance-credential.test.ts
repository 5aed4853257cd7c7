import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expandHome, findInstanceCredential, parseEnviron } from './instance-credential';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function home(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), 'tender-cred-'));
  dirs.push(d);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
  return d;
}

function environ(vars: Record<string, string>): string {
  return Object.entries(vars)
    .map(([k, v]) => `${k}=${v}\0`)
    .join('');
}

describe('parseEnviron', () => {
  it('reads NUL-ended entries, keeping = and newlines inside values', () => {
    const vars = parseEnviron('A=1\0B=x=y\0PEM=line1\nline2\0=skip\0NOEQ\0');
    expect(Object.fromEntries(vars)).toEqual({ A: '1', B: 'x=y', PEM: 'line1\nline2' });
  });
});

describe('findInstanceCredential', () => {
  it('prefers the agent environment', () => {
    const h = home({ env: environ({ CONTAINER_ID: '9', CONTAINER_API_KEY: 'file-key' }) });
    const env = { CONTAINER_ID: '42', CONTAINER_API_KEY: 'env-key' };
    expect(findInstanceCredential(env, ['~/env'], h)).toEqual({
      containerId: '42',
      apiKey: 'env-key',
    });
  });

  it('takes the first file that has both, skipping missing and partial ones', () => {
    const h = home({
      partial: environ({ CONTAINER_ID: '1' }),
      full: environ({ PATH: '/bin', CONTAINER_ID: '77', CONTAINER_API_KEY: 'k-77' }),
      later: environ({ CONTAINER_ID: '88', CONTAINER_API_KEY: 'k-88' }),
    });
    const found = findInstanceCredential(
      { CONTAINER_ID: 'only-id' },
      ['~/missing', '~/partial', join(h, 'full'), '~/later'],
      h,
    );
    expect(found).toEqual({ containerId: '77', apiKey: 'k-77' });
  });

  it('is null when nothing has both', () => {
    const h = home({ partial: environ({ CONTAINER_API_KEY: 'k' }) });
    expect(findInstanceCredential({}, ['~/partial', '/nonexistent/environ'], h)).toBeNull();
  });

  it('expands only a leading ~/', () => {
    expect(expandHome('~/x/environ', '/home/u')).toBe('/home/u/x/environ');
    expect(expandHome('/proc/1/environ', '/home/u')).toBe('/proc/1/environ');
    expect(expandHome('a/~/b', '/home/u')).toBe('a/~/b');
  });
});
