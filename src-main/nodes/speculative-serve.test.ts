// The command a first push starts on a guess (speculative-serve.ts), run by a real bash
// against a folder laid out as a node's: it starts the cached agent only where the file has
// the bundle's sha256 and a Node >= 18 runs it, and exits 97 without running anything
// otherwise (a planted or changed file, none at all, only an old Node).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shq } from '../transport/exec-helpers';
import { cachedAgentWord, type NodeLayout } from './node-layout';
import { SPECULATION_MISSED, speculativeServeCommand } from './speculative-serve';
import { speculativeStartCommand } from './speculative-start';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tender-guess-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A bundle that records how it was started (its arguments) in `ran`. */
const bundleBody = (ran: string) =>
  `require('fs').writeFileSync(${JSON.stringify(ran)}, process.argv.slice(2).join(' '));\n`;
const sha = (body: string) => createHash('sha256').update(body).digest('hex');

function layout(): NodeLayout {
  return {
    dirWord: shq(join(dir, 'nodes', 'n0')),
    cacheWord: shq(join(dir, 'cache')),
    rootWord: shq(dir),
    runtimeHints: [],
  };
}

/** Writes `body` where the agent for `bundleSha` is cached. */
function cache(bundleSha: string, body: string): void {
  mkdirSync(join(dir, 'cache', 'agent'), { recursive: true });
  // The path the shell word names (it is what the command reads).
  const word = cachedAgentWord(layout(), { sha256: bundleSha });
  const path = spawnSync('/bin/bash', ['-c', `printf %s ${word}`], { encoding: 'utf8' }).stdout;
  writeFileSync(path, body);
}

/** Runs the command with `PATH` holding the tools it uses and `node` (the real one, or a
 *  fake that says it is Node 16). */
function run(
  bundleSha: string,
  node: 'real' | 'old',
  command = speculativeServeCommand(layout(), { sha256: bundleSha }, ['node', 'nodejs']),
) {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const t of ['sha256sum', 'head', 'mkdir'])
    if (!existsSync(join(bin, t))) symlinkSync(`/usr/bin/${t}`, join(bin, t));
  if (node === 'real') symlinkSync(process.execPath, join(bin, 'node'));
  else {
    writeFileSync(join(bin, 'node'), '#!/bin/sh\nprintf 16.20.2\n');
    chmodSync(join(bin, 'node'), 0o755);
  }
  return spawnSync('/bin/bash', ['-c', command], { env: { PATH: bin }, encoding: 'utf8' });
}

describe('speculativeServeCommand', () => {
  it('starts the cached agent that is the bundle: serve-workspace in the node folder, made 0700', () => {
    const ran = join(dir, 'ran');
    const body = bundleBody(ran);
    cache(sha(body), body);
    const r = run(sha(body), 'real');
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(ran, 'utf8')).toBe(`serve-workspace --dir ${join(dir, 'nodes', 'n0')}`);
    expect(statSync(join(dir, 'nodes', 'n0')).mode & 0o777).toBe(0o700);
  });

  it.each([
    ['a file that is not the bundle (planted, changed)', 'planted'],
    ['no cached file', 'none'],
    ['only Node 16 on the node', 'old'],
  ] as const)('%s: exits 97, nothing run, no node folder made', (_name, kind) => {
    const ran = join(dir, 'ran');
    const body = bundleBody(ran);
    if (kind === 'planted') cache(sha(body), bundleBody(join(dir, 'planted-ran')));
    if (kind === 'old') cache(sha(body), body);
    const r = run(sha(body), kind === 'old' ? 'old' : 'real');
    expect(r.status, r.stderr).toBe(SPECULATION_MISSED);
    expect(existsSync(ran)).toBe(false);
    expect(existsSync(join(dir, 'planted-ran'))).toBe(false);
    expect(existsSync(join(dir, 'nodes'))).toBe(false);
  });
});

describe('speculativeStartCommand: the agent started on the same guess', () => {
  const start = (bundleSha: string) =>
    speculativeStartCommand(
      layout(),
      { sha256: bundleSha },
      ['nodejs', 'node'],
      'TENDER-START-AHEAD-abc',
      " --agent-id 'a 1' --host-decl x",
    );

  it('runs the cached agent’s start with the args, saying first which candidate runtime it used', () => {
    const ran = join(dir, 'ran');
    const body = bundleBody(ran);
    cache(sha(body), body);
    const r = run(sha(body), 'real', start(sha(body)));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('TENDER-START-AHEAD-abc 1\n'); // `nodejs` is not on this PATH
    expect(readFileSync(ran, 'utf8')).toBe(
      `start --dir ${join(dir, 'nodes', 'n0')} --agent-id a 1 --host-decl x`,
    );
  });

  it.each([
    ['a file that is not the bundle', 'planted'],
    ['only Node 16 on the node', 'old'],
  ] as const)('%s: exits 97, nothing started', (_name, kind) => {
    const ran = join(dir, 'ran');
    const body = bundleBody(ran);
    cache(sha(body), kind === 'planted' ? bundleBody(join(dir, 'planted-ran')) : body);
    const r = run(sha(body), kind === 'old' ? 'old' : 'real', start(sha(body)));
    expect(r.status, r.stderr).toBe(SPECULATION_MISSED);
    expect(r.stdout).toBe('');
    expect(existsSync(ran)).toBe(false);
    expect(existsSync(join(dir, 'planted-ran'))).toBe(false);
  });
});
