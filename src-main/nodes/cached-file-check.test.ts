import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cachedFileProblem,
  cachedFileScript,
  parseCachedFile,
  type CachedFile,
} from './cached-file-check';
import { shq } from '../transport/exec-helpers';

const MARKER = 'TENDER-SHA-test';
const BODY = 'console.log("agent")\n';
const SHA = createHash('sha256').update(BODY).digest('hex');
let dir: string;

/** A PATH holding only `head` and the named tools: a node with just those. */
function pathWith(tools: string[]): string {
  const bin = join(dir, `bin-${tools.join('-') || 'none'}`);
  if (existsSync(bin)) return bin;
  mkdirSync(bin);
  for (const t of ['head', ...tools]) symlinkSync(`/usr/bin/${t}`, join(bin, t));
  return bin;
}

function check(file: string, tools: string[]): CachedFile {
  const out = execFileSync('/bin/bash', ['-c', cachedFileScript(shq(file), MARKER)], {
    env: { PATH: pathWith(tools) },
    encoding: 'utf8',
  });
  return parseCachedFile(out, MARKER);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tender-cached-'));
  writeFileSync(join(dir, 'agent.cjs'), BODY);
  writeFileSync(join(dir, 'empty.cjs'), '');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cachedFileScript on a node', () => {
  it.each([
    { tools: ['sha256sum'], file: 'agent.cjs', want: { state: 'present', sha256: SHA } },
    { tools: ['shasum'], file: 'agent.cjs', want: { state: 'present', sha256: SHA } },
    { tools: ['openssl'], file: 'agent.cjs', want: { state: 'present', sha256: SHA } },
    { tools: [], file: 'agent.cjs', want: { state: 'unverifiable' } },
    { tools: ['sha256sum'], file: 'nothing.cjs', want: { state: 'missing' } },
    { tools: ['sha256sum'], file: 'empty.cjs', want: { state: 'missing' } },
  ])('with $tools, $file → $want.state', ({ tools, file, want }) => {
    expect(check(join(dir, file), tools)).toEqual(want);
  });
});

describe('parseCachedFile', () => {
  it.each([
    { out: `noise from .bashrc\n${MARKER} ${SHA}\n`, want: { state: 'present', sha256: SHA } },
    { out: `${MARKER} *${SHA.toUpperCase()}\n`, want: { state: 'present', sha256: SHA } },
    { out: `${MARKER} \n`, want: { state: 'unverifiable' } },
    { out: `${MARKER} garbage\n`, want: { state: 'unverifiable' } },
    { out: `${MARKER} missing\n`, want: { state: 'missing' } },
    { out: '', want: { state: 'missing' } },
  ])('$out → $want.state', ({ out, want }) => {
    expect(parseCachedFile(out, MARKER)).toEqual(want);
  });
});

describe('cachedFileProblem', () => {
  it('is null only for the wanted hash', () => {
    expect(cachedFileProblem('agent', { state: 'present', sha256: SHA }, SHA)).toBeNull();
    expect(cachedFileProblem('agent', { state: 'present', sha256: '0'.repeat(64) }, SHA)).toMatch(
      /does not match its sha256.*never running it/,
    );
    expect(cachedFileProblem('agent', { state: 'unverifiable' }, SHA)).toMatch(/pushing it again/);
    expect(cachedFileProblem('agent', { state: 'missing' }, SHA)).toMatch(/not cached/);
  });
});
