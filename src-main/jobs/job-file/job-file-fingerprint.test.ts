// `[job] setup_fingerprint = [...]` in tender.toml (checkSetupFingerprint, job-file-paths.ts).
// Kept apart from job-file.test.ts, which is past the 300-line limit.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { BadInputError } from '../../base/bad-input-error';
import { rejection } from './job-file.test-util';
import { loadJobFile } from './job-file';

const HEAD = '[job]\nname = "hello"\nrun = "python train.py"\n'; // lines 1-3
const SETUP = `${HEAD}setup = "pip install -r req.txt"\n`; // lines 1-4

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tender-job-fingerprint-'));
  file = path.join(dir, 'tender.toml');
  await mkdir(path.join(dir, 'src', 'deps'), { recursive: true });
  await writeFile(path.join(dir, 'req.txt'), 'numpy\n');
  await writeFile(path.join(dir, 'src', 'deps', 'lock.txt'), 'torch\n');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(toml: string) {
  await writeFile(file, toml);
  return loadJobFile(file, { knownProviders: ['local'], env: {} });
}

const failure = (toml: string): Promise<BadInputError> => rejection(() => load(toml));

describe('setup_fingerprint is accepted', () => {
  // [what, file text, expected job.setup_fingerprint]
  // prettier-ignore
  const cases: [string, string, string[]][] = [
    ['left out', SETUP, []],
    ['empty, even without setup', `${HEAD}setup_fingerprint = []\n`, []],
    ['a file in the workspace', `${SETUP}setup_fingerprint = ["req.txt"]\n`, ['req.txt']],
    ['files in the order written', `${SETUP}setup_fingerprint = ["src/deps/lock.txt", "req.txt"]\n`, ['src/deps/lock.txt', 'req.txt']],
    ['a path that stays inside after normalising', `${SETUP}setup_fingerprint = ["src/../req.txt"]\n`, ['src/../req.txt']],
    ['relative to a workdir', `${SETUP}workspace = { workdir = "src" }\nsetup_fingerprint = ["deps/lock.txt"]\n`, ['deps/lock.txt']],
  ];

  test.each(cases)('%s', async (_what, toml, expected) => {
    expect((await load(toml)).job.setup_fingerprint).toEqual(expected);
  });
});

describe('setup_cache: setup is cached by default', () => {
  // [what, file text, expected job.setup_cache]
  // prettier-ignore
  const cases: [string, string, boolean][] = [
    ['left out: cached', SETUP, true],
    ['false: setup runs every time', `${SETUP}setup_cache = false\n`, false],
    ['true beside setup_fingerprint', `${SETUP}setup_cache = true\nsetup_fingerprint = ["req.txt"]\n`, true],
    ['false without setup (nothing to cache)', `${HEAD}setup_cache = false\n`, false],
  ];
  test.each(cases)('%s', async (_what, toml, expected) => {
    expect((await load(toml)).job.setup_cache).toBe(expected);
  });
});

describe('setup_fingerprint problems name the entry, its line and column', () => {
  // [what, file text, expected message after "<file>:"; WS stands for the workspace]
  // prettier-ignore
  const cases: [string, string, string][] = [
    ['a missing file', `${SETUP}setup_fingerprint = ["req.txt", "nope.txt"]\n`, '5:33: setup_fingerprint file "nope.txt" does not exist in the workspace WS'],
    ['a file outside the workdir', `${SETUP}workspace = { workdir = "src" }\nsetup_fingerprint = ["req.txt"]\n`, '6:22: setup_fingerprint file "req.txt" does not exist in the workspace WS/src'],
    ['a multi-line array', `${SETUP}setup_fingerprint = [\n  "req.txt",\n  "gone.txt",\n]\n`, '7:3: setup_fingerprint file "gone.txt" does not exist in the workspace WS'],
    ['a parent path', `${SETUP}setup_fingerprint = ["../x"]\n`, '5:22: setup_fingerprint entry "../x" is not inside the workspace'],
    ['a path that climbs out after normalising', `${SETUP}setup_fingerprint = ["src/../../x"]\n`, '5:22: setup_fingerprint entry "src/../../x" is not inside the workspace'],
    ['an absolute path', `${SETUP}setup_fingerprint = ["/etc/passwd"]\n`, '5:22: setup_fingerprint entry "/etc/passwd" is not inside the workspace'],
    ['a drive-letter path', `${SETUP}setup_fingerprint = ['C:\\req.txt']\n`, '5:22: setup_fingerprint entry "C:\\req.txt" is not inside the workspace'],
    ['no setup', `${HEAD}setup_fingerprint = ["req.txt"]\n`, '4:1: setup_fingerprint names the files setup depends on, but the job has no setup'],
    ['a non-string entry', `${SETUP}setup_fingerprint = [1]\n`, '5:22: job.setup_fingerprint[0] must be a string, not an integer'],
    ['an empty entry', `${SETUP}setup_fingerprint = [""]\n`, '5:22: job.setup_fingerprint[0] must not be empty'],
    ['not an array', `${SETUP}setup_fingerprint = "req.txt"\n`, '5:1: job.setup_fingerprint must be an array, not a string'],
    ['a typo in the key', `${SETUP}setup_fingerprnt = ["req.txt"]\n`, '5:1: unknown key "setup_fingerprnt" in [job]; did you mean "setup_fingerprint"?'],
    ['files to key a setup that is not cached', `${SETUP}setup_cache = false\nsetup_fingerprint = ["req.txt"]\n`, '5:1: setup_fingerprint names the files that key a cached setup, but setup_cache = false runs setup every time'],
    ['setup_cache not a boolean', `${SETUP}setup_cache = "no"\n`, '5:1: job.setup_cache must be a boolean, not a string'],
  ];

  test.each(cases)('%s', async (_what, toml, expected) => {
    const err = await failure(toml);
    const want = `${file}:${expected.replace('WS', dir)}`;
    expect(err.message.startsWith(want), err.message).toBe(true);
    expect(err.message).not.toContain('\n');
    expect(err.code).toBe('bad_input');
    const [, line, column] = /^(\d+):(\d+):/.exec(expected) ?? [];
    expect([err.line, err.column]).toEqual([Number(line), Number(column)]);
  });

  test('each problem says how to fix it', async () => {
    const missing = await failure(`${SETUP}setup_fingerprint = ["nope.txt"]\n`);
    expect(missing.hint).toMatch(/relative to the workspace/);
    const outside = await failure(`${SETUP}setup_fingerprint = ["../x"]\n`);
    expect(outside.hint).toMatch(/relative to the workspace folder/);
    const noSetup = await failure(`${HEAD}setup_fingerprint = ["req.txt"]\n`);
    expect(noSetup.hint).toBe('add setup = "…" to [job], or leave setup_fingerprint out');
  });

  test('a workdir that does not exist is the one problem reported', async () => {
    const err = await failure(
      `${SETUP}workspace = { workdir = "nope" }\nsetup_fingerprint = ["nope.txt"]\n`,
    );
    expect(err.message).toBe(`${file}:5:15: workdir does not exist: ${path.join(dir, 'nope')}`);
  });
});

describe('setup_fingerprint entries the node cannot use (bugs)', () => {
  // BUG: ".." normalises to "..", which the check does not catch (it tests "../" only;
  // checkOutputs tests both), and the parent folder exists, so the job is accepted; the
  // node then refuses it (envFingerprint: "outside the workspace").
  test.each([['..'], ['src/../..']])('"%s" is not inside the workspace', async (entry) => {
    const err = await failure(`${SETUP}setup_fingerprint = ["${entry}"]\n`);
    expect(err.message).toBe(
      `${file}:5:22: setup_fingerprint entry "${entry}" is not inside the workspace`,
    );
  });

  // BUG: a folder passes the existsSync check; the node cannot read it as a file
  // (envFingerprint: "is not in the workspace on the node").
  test('a folder is not a file setup reads', async () => {
    const err = await failure(`${SETUP}setup_fingerprint = ["src"]\n`);
    expect([err.line, err.column]).toEqual([5, 22]);
  });

  // BUG (job-file-issues.ts quoteHint): the hint treats the array index as a key name.
  test('a non-string entry does not hint "0 = ..."', async () => {
    const err = await failure(`${SETUP}setup_fingerprint = [1]\n`);
    expect(err.hint ?? '').not.toContain('0 = ');
  });
});
