// known_hosts parsing against files written and hashed by the real ssh-keygen.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostFieldMatches, knownHostKeys, parseKnownHosts, readKnownHosts } from './known-hosts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tender-known-hosts-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh ed25519 key from ssh-keygen: its public line and its fingerprint as ssh prints it. */
function key(name: string): { line: string; fingerprint: string } {
  const file = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
  const line = readFileSync(`${file}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' ');
  const fingerprint = execFileSync('ssh-keygen', ['-l', '-f', `${file}.pub`], {
    encoding: 'utf8',
  }).split(' ')[1]!;
  return { line, fingerprint };
}

const fps = (keys: { fingerprint: string }[]) => keys.map((k) => k.fingerprint);

describe('known_hosts', () => {
  it('finds keys by plain name, in comma lists and as [host]:port, hashed by ssh-keygen -H', () => {
    const a = key('a');
    const b = key('b');
    const file = join(dir, 'known_hosts');
    writeFileSync(file, `gpu-1.lan,10.0.0.7 ${a.line}\n[gpu-2.lan]:2222 ${b.line}\n`);
    for (const text of [readFileSync(file, 'utf8'), hashed(file)]) {
      const entries = parseKnownHosts(text);
      expect(fps(knownHostKeys(entries, 'gpu-1.lan', 22).keys)).toEqual([a.fingerprint]);
      expect(fps(knownHostKeys(entries, 'GPU-1.lan', 22).keys)).toEqual([a.fingerprint]);
      expect(fps(knownHostKeys(entries, '10.0.0.7', 22).keys)).toEqual([a.fingerprint]);
      expect(fps(knownHostKeys(entries, 'gpu-2.lan', 2222).keys)).toEqual([b.fingerprint]);
      // The port is part of the name: the same host on 22 or another port is not known.
      expect(knownHostKeys(entries, 'gpu-2.lan', 22).keys).toEqual([]);
      expect(knownHostKeys(entries, 'gpu-1.lan', 2222).keys).toEqual([]);
      expect(knownHostKeys(entries, 'elsewhere', 22).keys).toEqual([]);
    }
  });

  it('agrees with ssh-keygen -F on which hashed line matches', () => {
    const a = key('a');
    const file = join(dir, 'known_hosts');
    writeFileSync(file, `[10.1.2.3]:22001 ${a.line}\n`);
    const text = hashed(file);
    const found = execFileSync('ssh-keygen', ['-F', '[10.1.2.3]:22001', '-f', file], {
      encoding: 'utf8',
    });
    expect(found).toContain('found: line 1');
    expect(knownHostKeys(parseKnownHosts(text), '10.1.2.3', 22001).keys).toHaveLength(1);
  });

  it('lists @revoked keys for every host and ignores @cert-authority lines', () => {
    const a = key('a');
    const r = key('revoked');
    const ca = key('ca');
    const text = [
      '# a comment',
      '',
      `@revoked * ${r.line}`,
      `@cert-authority *.lan ${ca.line}`,
      `gpu-1.lan ${a.line} with a comment`,
    ].join('\n');
    const known = knownHostKeys(parseKnownHosts(text), 'gpu-1.lan', 22);
    expect(fps(known.keys)).toEqual([a.fingerprint]);
    expect(fps(known.revoked)).toEqual([r.fingerprint]);
    expect(known.revoked[0]!.line).toBe(3);
  });

  it('computes fingerprints exactly as ssh-keygen -l does', () => {
    const a = key('a');
    const [entry] = parseKnownHosts(`h ${a.line}\n`);
    expect(entry!.fingerprint).toBe(a.fingerprint);
    expect(entry!.keyType).toBe('ssh-ed25519');
  });

  it('matches wildcards and honours negation', () => {
    expect(hostFieldMatches('*.lan', 'gpu-1.lan')).toBe(true);
    expect(hostFieldMatches('gpu-?.lan', 'gpu-7.lan')).toBe(true);
    expect(hostFieldMatches('*.lan,!gpu-9.lan', 'gpu-9.lan')).toBe(false);
    expect(hostFieldMatches('*.lan', 'gpu-1.lan.evil.com')).toBe(false);
    expect(hostFieldMatches('[*.lan]:2222', '[gpu.lan]:2222')).toBe(true);
    expect(hostFieldMatches('a.b', 'axb')).toBe(false); // a dot is not a wildcard
  });

  it('skips lines it cannot read instead of failing, and reads CRLF files', () => {
    const a = key('a');
    const text = `garbage\r\nhost-only\r\nh ssh-ed25519 !!notbase64!!\r\n@weird h ${a.line}\r\nh ${a.line}\r\n`;
    expect(parseKnownHosts(text).map((e) => e.line)).toEqual([5]);
  });

  it('reads a missing file as empty', () => {
    expect(readKnownHosts(join(dir, 'nope'))).toEqual([]);
    const file = join(dir, 'kh');
    writeFileSync(file, `h ${key('a').line}\n`);
    appendFileSync(file, 'junk\n');
    expect(readKnownHosts(file)).toHaveLength(1);
  });
});

function hashed(file: string): string {
  execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' });
  const text = readFileSync(file, 'utf8');
  expect(text).toMatch(/^\|1\|/);
  expect(text).not.toMatch(/[.[\]]/); // no name left in clear (base64 has no . [ ])
  return text;
}
