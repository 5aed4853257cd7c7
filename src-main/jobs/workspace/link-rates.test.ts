import {
  chmodSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { forgetLinkRates, LinkRates, linkRatesFile } from './link-rates';

const dir = mkdtempSync(join(tmpdir(), 'tender-link-rates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 24 * 3600_000;
const at = (bytesPerS: number) => ({ bytesPerS, isLinkBound: true });

describe('LinkRates', () => {
  it('remembers each endpoint in a 0600 file another process reads back', () => {
    const file = linkRatesFile(join(dir, 'home1'));
    let now = 1_000_000;
    const rates = new LinkRates(file, () => now);
    rates.set('root@10.0.0.1:22', at(11.8e6));
    rates.set('me@h2:2222', at(250e6));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const other = new LinkRates(file, () => now);
    expect(other.get('root@10.0.0.1:22')?.bytesPerS).toBe(11.8e6);
    expect(other.get('me@h2:2222')?.bytesPerS).toBe(250e6);
    expect(other.get('root@10.0.0.9:22')).toBeUndefined();
    // The newest measurement replaces the last.
    other.set('root@10.0.0.1:22', at(110e6));
    expect(rates.get('root@10.0.0.1:22')?.bytesPerS).toBe(110e6);
    // A week on, a record is not trusted.
    now += 8 * DAY;
    expect(rates.get('root@10.0.0.1:22')).toBeUndefined();
  });

  it('reads a damaged or foreign file as empty, and replaces it on the next write', () => {
    const file = join(dir, 'damaged.json');
    writeFileSync(file, '{"endpoints": {"a": {"bytesPerS": "fast"}, "b": 3}');
    const rates = new LinkRates(file);
    expect(rates.get('a')).toBeUndefined();
    writeFileSync(file, JSON.stringify({ endpoints: { a: { bytesPerS: -1, atMs: 1 }, b: 7 } }));
    expect(rates.get('a')).toBeUndefined();
    rates.set('c', at(5e6));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      version: 1,
      endpoints: { c: { bytesPerS: 5e6, isLinkBound: true } },
    });
  });

  it('replaces a symlink at its name instead of writing through it', () => {
    const target = join(dir, 'elsewhere');
    writeFileSync(target, 'keep');
    chmodSync(target, 0o644);
    const file = join(dir, 'linked.json');
    symlinkSync(target, file);
    new LinkRates(file).set('a', at(1e6));
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(new LinkRates(file).get('a')?.bytesPerS).toBe(1e6);
  });

  it('without a file, remembers in this process', () => {
    forgetLinkRates();
    new LinkRates(undefined).set('x', at(3e6));
    expect(new LinkRates(undefined).get('x')?.bytesPerS).toBe(3e6);
    forgetLinkRates();
    expect(new LinkRates(undefined).get('x')).toBeUndefined();
  });
});
