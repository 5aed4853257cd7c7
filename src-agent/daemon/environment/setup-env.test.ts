import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ENV_MAX_AGE_MS,
  READY_FILE,
  STALE_LOCK_MS,
  envFingerprint,
  isEnvReady,
  lockEnv,
  markEnvReady,
  pruneEnvs,
  touchEnv,
} from './setup-env';

// Whole seconds, so file mtimes round-trip exactly on every file system.
const NOW = 1_700_000_000_000;
const MIN = 60_000;
const DAY = 24 * 3_600_000;

let root: string;
let ws: string;
let envs: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tender-setup-env-'));
  ws = join(root, 'ws');
  envs = join(root, 'envs');
  mkdirSync(join(ws, 'sub'), { recursive: true });
  writeFileSync(join(ws, 'req.txt'), 'numpy==1\n');
  writeFileSync(join(ws, 'sub', 'lock.txt'), 'torch==2\n');
  writeFileSync(join(root, 'outside.txt'), 'not in the workspace');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('envFingerprint', () => {
  const CMD = 'pip install -r req.txt';
  const key = (command = CMD, files = ['req.txt', 'sub/lock.txt'], workspace = ws) =>
    envFingerprint(command, files, workspace);

  it('is sixteen hex characters, the same for the same inputs', () => {
    expect(key()).toMatch(/^[0-9a-f]{16}$/);
    expect(key()).toBe(key());
    expect(key(CMD, [])).toMatch(/^[0-9a-f]{16}$/);
  });

  it('depends on paths relative to the workspace, not on where the workspace is', () => {
    const other = join(root, 'other');
    mkdirSync(join(other, 'sub'), { recursive: true });
    writeFileSync(join(other, 'req.txt'), 'numpy==1\n');
    writeFileSync(join(other, 'sub', 'lock.txt'), 'torch==2\n');
    expect(key(CMD, undefined, other)).toBe(key());
    expect(key(CMD, ['./req.txt', 'sub/../sub/lock.txt'])).toBe(key());
  });

  // [what changes, how]
  const changes: [string, () => string][] = [
    ['the command', () => key('pip install -r req.txt -U')],
    ['the order of the files', () => key(CMD, ['sub/lock.txt', 'req.txt'])],
    [
      'an added file',
      () => {
        writeFileSync(join(ws, 'extra.txt'), '');
        return key(CMD, ['req.txt', 'sub/lock.txt', 'extra.txt']);
      },
    ],
    ['a file left out', () => key(CMD, ['req.txt'])],
    [
      'the content of a file',
      () => {
        writeFileSync(join(ws, 'req.txt'), 'numpy==2\n');
        return key();
      },
    ],
    [
      'a file renamed, content the same',
      () => {
        writeFileSync(join(ws, 'req2.txt'), 'numpy==1\n');
        return key(CMD, ['req2.txt', 'sub/lock.txt']);
      },
    ],
  ];
  it.each(changes)('changes with %s', (_what, changed) => {
    const before = key();
    expect(changed()).not.toBe(before);
  });

  it('names a file that is missing', () => {
    expect(() => key(CMD, ['req.txt', 'nope.txt'])).toThrow(
      'setup_fingerprint file nope.txt is not in the workspace on the node',
    );
  });

  // [what, entry; ROOT stands for the folder holding the workspace]
  it.each([
    ['a parent path', '../outside.txt'],
    ['a path that climbs out after normalising', 'sub/../../outside.txt'],
    ['an absolute path outside', 'ROOT/outside.txt'],
  ])('refuses %s even when the file exists', (_what, text) => {
    const entry = text.replace('ROOT', root);
    expect(() => key(CMD, [entry])).toThrow(
      `setup_fingerprint entry ${entry} is outside the workspace`,
    );
  });

  it('accepts a file whose name starts with two dots', () => {
    // BUG: `rel.startsWith('..')` also matches "..env", a file inside the workspace, which
    // the main side (checkSetupFingerprint) accepts.
    writeFileSync(join(ws, '..env'), 'A=1\n');
    expect(key(CMD, ['..env'])).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('lockEnv', () => {
  const lockFile = () => join(envs, 'k1.lock');
  const writeLock = (text: string) => {
    mkdirSync(envs, { recursive: true });
    writeFileSync(lockFile(), text);
  };
  const alive = () => true;

  it('takes a free lock, creating the envs folder and <key>.lock', () => {
    const got = lockEnv(envs, 'k1', NOW, alive);
    expect('release' in got).toBe(true);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toEqual({ pid: process.pid, at: NOW });
  });

  it('release removes the lock file, and the key can be locked again', () => {
    const got = lockEnv(envs, 'k1', NOW, alive);
    if (!('release' in got)) throw new Error('expected the lock');
    got.release();
    expect(existsSync(lockFile())).toBe(false);
    expect('release' in lockEnv(envs, 'k1', NOW, alive)).toBe(true);
  });

  it('a second call while the holder is alive and the lock is young says who holds it', () => {
    lockEnv(envs, 'k1', NOW, alive);
    expect(lockEnv(envs, 'k1', NOW + STALE_LOCK_MS - 1, alive)).toEqual({ heldBy: process.pid });
    expect('release' in lockEnv(envs, 'k2', NOW, alive)).toBe(true); // other keys lock apart
    writeLock(JSON.stringify({ pid: 4242, at: NOW }));
    expect(lockEnv(envs, 'k1', NOW, alive)).toEqual({ heldBy: 4242 });
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toEqual({ pid: 4242, at: NOW });
  });

  // [what, lock file text, now, isAlive]
  const stale: [string, string, number, (pid: number) => boolean][] = [
    ['its holder is gone', JSON.stringify({ pid: 4242, at: NOW }), NOW, () => false],
    ['it is too old', JSON.stringify({ pid: 4242, at: NOW }), NOW + STALE_LOCK_MS + 1, alive],
    ['it is not JSON', '{"pid": 42', NOW, alive],
    ['it lacks the pid', JSON.stringify({ at: NOW }), NOW, alive],
    ['its time is not a number', JSON.stringify({ pid: 4242, at: 'now' }), NOW, alive],
  ];
  it.each(stale)('breaks and takes a lock when %s', (_what, text, now, isAlive) => {
    writeLock(text);
    const got = lockEnv(envs, 'k1', now, isAlive);
    expect('release' in got).toBe(true);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toEqual({ pid: process.pid, at: now });
  });

  it('asks isAlive about the holder', () => {
    writeLock(JSON.stringify({ pid: 4242, at: NOW }));
    const asked: number[] = [];
    lockEnv(envs, 'k1', NOW, (pid) => {
      asked.push(pid);
      return true;
    });
    expect(asked).toEqual([4242]);
  });
});

describe('ready marker', () => {
  it('an env is ready once marked; touch sets its last use', () => {
    const env = join(envs, 'k1');
    expect(isEnvReady(env)).toBe(false); // no folder yet
    mkdirSync(env, { recursive: true });
    expect(isEnvReady(env)).toBe(false);
    markEnvReady(env, { command: 'pip install x', builtAt: NOW });
    expect(isEnvReady(env)).toBe(true);
    expect(JSON.parse(readFileSync(join(env, READY_FILE), 'utf8'))).toEqual({
      command: 'pip install x',
      builtAt: NOW,
    });
    touchEnv(env, NOW - DAY);
    expect(statSync(join(env, READY_FILE)).mtimeMs).toBe(NOW - DAY);
  });
});

describe('pruneEnvs', () => {
  /** A ready env last used at `usedAt`, or an unready one (a failed build) when null. */
  const env = (name: string, usedAt: number | null) => {
    mkdirSync(join(envs, name, 'bin'), { recursive: true });
    if (usedAt === null) return;
    writeFileSync(join(envs, name, READY_FILE), '{}\n');
    utimesSync(join(envs, name, READY_FILE), new Date(usedAt), new Date(usedAt));
  };
  const lock = (name: string) => writeFileSync(join(envs, `${name}.lock`), '{}');
  const left = () => readdirSync(envs).sort();
  const limits = { maxAgeMs: DAY, maxCount: 10 };

  it('removes ready envs unused longer than maxAgeMs', () => {
    env('old', NOW - DAY - 1000);
    env('edge', NOW - DAY);
    env('fresh', NOW - 1000);
    expect(pruneEnvs(envs, 'none', NOW, limits)).toEqual(['old']);
    expect(left()).toEqual(['edge', 'fresh']);
  });

  it('keeps the most recently used, counting keep as one of the kept', () => {
    env('keep', NOW - 5 * MIN);
    env('a', NOW - 1 * MIN);
    env('b', NOW - 2 * MIN);
    env('c', NOW - 3 * MIN);
    env('d', NOW - 4 * MIN);
    expect(pruneEnvs(envs, 'keep', NOW, { maxAgeMs: DAY, maxCount: 3 })).toEqual(['c', 'd']);
    expect(left()).toEqual(['a', 'b', 'keep']);
  });

  it('removes unready folders nobody holds a lock on', () => {
    env('failed', null);
    env('building', null);
    lock('building');
    env('ok', NOW);
    expect(pruneEnvs(envs, 'none', NOW, limits)).toEqual(['failed']);
    expect(left()).toEqual(['building', 'building.lock', 'ok']);
  });

  it('never removes keep, even unready or old', () => {
    env('keep', null);
    expect(pruneEnvs(envs, 'keep', NOW, limits)).toEqual([]);
    rmSync(join(envs, 'keep'), { recursive: true });
    env('keep', NOW - 30 * DAY);
    expect(pruneEnvs(envs, 'keep', NOW, { maxAgeMs: DAY, maxCount: 1 })).toEqual([]);
    expect(left()).toEqual(['keep']);
  });

  it('never removes a locked folder, however old or many', () => {
    env('locked-old', NOW - 30 * DAY);
    env('locked-extra', NOW - 2 * MIN);
    lock('locked-old');
    lock('locked-extra');
    env('keep', NOW);
    expect(pruneEnvs(envs, 'keep', NOW, { maxAgeMs: DAY, maxCount: 1 })).toEqual([]);
    expect(left()).toEqual([
      'keep',
      'locked-extra',
      'locked-extra.lock',
      'locked-old',
      'locked-old.lock',
    ]);
  });

  it('leaves .lock files and other files alone', () => {
    env('keep', NOW);
    lock('gone'); // a lock whose folder is not there (yet)
    writeFileSync(join(envs, 'notes.txt'), 'x');
    expect(pruneEnvs(envs, 'keep', NOW, { maxAgeMs: DAY, maxCount: 1 })).toEqual([]);
    expect(left()).toEqual(['gone.lock', 'keep', 'notes.txt']);
  });

  it('returns the removed names sorted', () => {
    env('zz-failed', null);
    env('mm-old', NOW - 2 * DAY);
    env('aa-extra', NOW - 3 * MIN);
    env('keep', NOW);
    env('bb', NOW - 1 * MIN);
    expect(pruneEnvs(envs, 'keep', NOW, { maxAgeMs: DAY, maxCount: 2 })).toEqual([
      'aa-extra',
      'mm-old',
      'zz-failed',
    ]);
    expect(left()).toEqual(['bb', 'keep']);
  });

  it('uses a week and twenty by default', () => {
    env('week-old', NOW - ENV_MAX_AGE_MS - 1000);
    env('six-days', NOW - 6 * DAY);
    for (let i = 0; i < 20; i++) env(`n${String(i).padStart(2, '0')}`, NOW - i * 1000);
    // keep + 19 newest; n19 is the 20th-newest other, six-days older than all of them.
    expect(pruneEnvs(envs, 'keep', NOW)).toEqual(['n19', 'six-days', 'week-old']);
  });

  it('a missing envs folder removes nothing', () => {
    expect(pruneEnvs(join(root, 'nope'), 'keep', NOW)).toEqual([]);
  });
});
