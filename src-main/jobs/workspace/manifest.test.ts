import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { ManifestEntry } from '../../../src-agent/wire/protocol';
import { manifestDigest } from '../../../src-agent/wire/workspace-manifest';
import { HashCache } from './hash-cache';
import { buildManifest, diffManifests, type ManifestFiles } from './manifest';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
// Manifests carry the owner's bits only (workspaceMode): 0644 on disk is 0600 here.
const entry = (content: string, mode = 0o600): ManifestEntry => ({
  size: content.length,
  mode,
  sha256: sha(content),
});
const files = (o: Record<string, ManifestEntry>): ManifestFiles => new Map(Object.entries(o));

describe('diffManifests', () => {
  const remote = files({
    'same.txt': entry('same'),
    'edit.txt': entry('old'),
    'chmod.sh': entry('run', 0o644),
    'gone.txt': entry('bye'),
    'old-name.txt': entry('moved'),
  });
  test.each([
    ['nothing changed', remote, [], []],
    [
      'a file added',
      files({ ...Object.fromEntries(remote), 'new.txt': entry('n') }),
      ['new.txt'],
      [],
    ],
    [
      'content changed (same size)',
      files({ ...Object.fromEntries(remote), 'edit.txt': entry('new') }),
      ['edit.txt'],
      [],
    ],
    [
      'mode changed: sent whole',
      files({ ...Object.fromEntries(remote), 'chmod.sh': entry('run', 0o755) }),
      ['chmod.sh'],
      [],
    ],
    ['a file deleted', new Map([...remote].filter(([p]) => p !== 'gone.txt')), [], ['gone.txt']],
    [
      'a rename is a deletion and a new file',
      new Map(
        [...remote]
          .filter(([p]) => p !== 'old-name.txt')
          .concat([['new-name.txt', entry('moved')]]),
      ),
      ['new-name.txt'],
      ['old-name.txt'],
    ],
  ] as const)('%s', (_name, local, changed, deletions) => {
    expect(diffManifests(local, remote)).toEqual({ changed, deletions });
  });

  test('against an empty node everything is new; results are in path order', () => {
    const local = files({ 'b.txt': entry('b'), 'a/x.txt': entry('x'), 'A.txt': entry('A') });
    expect(diffManifests(local, new Map())).toEqual({
      changed: ['A.txt', 'a/x.txt', 'b.txt'],
      deletions: [],
    });
  });
});

describe('buildManifest with the hash cache', () => {
  let root: string;
  let cacheFile: string;
  const PAST = new Date('2025-01-01T00:00:00Z');

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'tender-manifest-'));
    cacheFile = path.join(root, 'home', 'cache', 'file-hashes.json');
    await mkdir(path.join(root, 'ws', 'sub'), { recursive: true });
    for (const [rel, content] of Object.entries({
      'a.txt': 'aaa',
      'sub/b.txt': 'bb',
      'c.sh': 'c',
    })) {
      await writeFile(path.join(root, 'ws', rel), content);
      await utimes(path.join(root, 'ws', rel), PAST, PAST);
    }
    await chmod(path.join(root, 'ws', 'c.sh'), 0o755);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const source = () => ({
    root: path.join(root, 'ws'),
    dirs: ['sub'],
    files: [{ path: 'a.txt' }, { path: 'c.sh' }, { path: 'sub/b.txt' }],
  });
  /** A fresh process's view: the cache as saved on disk. */
  async function build() {
    const cache = await HashCache.load(cacheFile);
    const m = await buildManifest(source(), { cache });
    await cache.save();
    return { m, hits: cache.hits, misses: cache.misses };
  }

  test('hashes every file once, then answers from the cache across processes', async () => {
    const first = await build();
    expect(first).toMatchObject({ hits: 0, misses: 3 });
    expect(first.m.hashed).toBe(3);
    expect(Object.fromEntries(first.m.files)).toEqual({
      'a.txt': entry('aaa'),
      'c.sh': entry('c', 0o700),
      'sub/b.txt': entry('bb'),
    });
    expect(first.m.digest).toBe(manifestDigest(first.m.files, ['sub']));

    const second = await build();
    expect(second).toMatchObject({ hits: 3, misses: 0 });
    expect(second.m.hashed).toBe(0);
    expect(second.m.digest).toBe(first.m.digest);
  });

  test('a touched file (new mtime, same content) is re-hashed once, then cached', async () => {
    await build();
    const later = new Date('2025-02-01T00:00:00Z');
    await utimes(path.join(root, 'ws', 'a.txt'), later, later);

    const touched = await build();
    expect(touched).toMatchObject({ hits: 2, misses: 1 });
    expect(touched.m.hashed).toBe(1);
    expect(touched.m.files.get('a.txt')).toEqual(entry('aaa'));

    const again = await build();
    expect(again).toMatchObject({ hits: 3, misses: 0 });
  });

  test('an edited file gets its new hash; a mode change shows without re-hashing', async () => {
    await build();
    const edited = new Date('2025-03-01T00:00:00Z');
    await writeFile(path.join(root, 'ws', 'sub/b.txt'), 'BB');
    await utimes(path.join(root, 'ws', 'sub/b.txt'), edited, edited);
    await chmod(path.join(root, 'ws', 'a.txt'), 0o755);
    const { m, misses } = await build();
    expect(misses).toBe(1);
    expect(m.files.get('sub/b.txt')).toEqual(entry('BB'));
    expect(m.files.get('a.txt')).toEqual(entry('aaa', 0o700));
  });

  test('a file modified moments ago is hashed but not remembered (racy timestamp)', async () => {
    await writeFile(path.join(root, 'ws', 'a.txt'), 'fresh');
    await build();
    const next = await build();
    expect(next.misses).toBe(1);
    expect(next.m.files.get('a.txt')).toEqual(entry('fresh'));
  });

  test('files that vanished since the scan are left out', async () => {
    await rm(path.join(root, 'ws', 'c.sh'));
    const { m } = await build();
    expect([...m.files.keys()]).toEqual(['a.txt', 'sub/b.txt']);
  });
});
