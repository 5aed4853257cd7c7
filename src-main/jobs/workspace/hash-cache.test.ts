import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { acquireHashCache, HashCache, hashCacheFile } from './hash-cache';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tender-hash-cache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const DAY = 24 * 3600_000;
const key = { size: 3, mtimeMs: 1_000, ino: 42 };

describe('HashCache', () => {
  test('a hash holds while size, mtime and inode are unchanged', async () => {
    const cache = await HashCache.load(undefined, () => 10 * DAY);
    cache.set('/w/a', key, 'h1', 5 * DAY);
    expect(cache.get('/w/a', key)).toBe('h1');
    expect(cache.get('/w/a', { ...key, size: 4 })).toBeUndefined();
    expect(cache.get('/w/a', { ...key, mtimeMs: 1_001 })).toBeUndefined();
    expect(cache.get('/w/a', { ...key, ino: 43 })).toBeUndefined();
    expect(cache.get('/w/b', key)).toBeUndefined();
    expect({ hits: cache.hits, misses: cache.misses }).toEqual({ hits: 1, misses: 4 });
  });

  test('is saved to <home>/cache/file-hashes.json and read back', async () => {
    const file = hashCacheFile(path.join(dir, 'home'));
    expect(file).toBe(path.join(dir, 'home', 'cache', 'file-hashes.json'));
    const first = await HashCache.load(file);
    first.set('/w/a', key, 'h1', Date.now());
    await first.save();
    const second = await HashCache.load(file);
    expect(second.get('/w/a', key)).toBe('h1');
  });

  test('a corrupt cache file is an empty cache', async () => {
    const file = path.join(dir, 'file-hashes.json');
    await writeFile(file, '{"version":1,"files":{"/w/a":[3,1000,42,"h1",0]');
    expect((await HashCache.load(file)).size).toBe(0);
  });

  test('does not remember a hash of a file modified within 2 s of reading it', async () => {
    const cache = await HashCache.load(undefined);
    cache.set('/w/a', { ...key, mtimeMs: 10_000 }, 'h1', 11_000);
    expect(cache.get('/w/a', { ...key, mtimeMs: 10_000 })).toBeUndefined();
    cache.set('/w/a', { ...key, mtimeMs: 10_000 }, 'h1', 12_001);
    expect(cache.get('/w/a', { ...key, mtimeMs: 10_000 })).toBe('h1');
  });

  test('forgets rows unused for 30 days when saving', async () => {
    let now = 100 * DAY;
    const file = path.join(dir, 'file-hashes.json');
    const cache = await HashCache.load(file, () => now);
    cache.set('/w/old', key, 'h-old', now);
    now += 10 * DAY;
    cache.set('/w/new', key, 'h-new', now);
    now += 25 * DAY;
    await cache.save();
    const saved = JSON.parse(await readFile(file, 'utf8')) as { files: object };
    expect(Object.keys(saved.files)).toEqual(['/w/new']);
  });

  test('hashOnce runs one hash for concurrent asks, and none once cached', async () => {
    const cache = await HashCache.load(undefined, () => 10 * DAY);
    let runs = 0;
    const hash = async () => {
      runs++;
      await new Promise((r) => setTimeout(r, 5));
      return { sha256: 'h1', key, readStartedMs: 5 * DAY };
    };
    const both = await Promise.all([
      cache.hashOnce('/w/a', key, hash),
      cache.hashOnce('/w/a', key, hash),
    ]);
    expect(both).toEqual(['h1', 'h1']);
    expect(await cache.hashOnce('/w/a', key, hash)).toBe('h1');
    expect(runs).toBe(1);
  });

  test('acquireHashCache shares one instance per file, kept loaded a while after use', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const file = path.join(dir, 'file-hashes.json');
      const a = await acquireHashCache(file);
      const b = await acquireHashCache(file);
      expect(a.cache).toBe(b.cache);
      a.cache.set('/w/a', key, 'h1', Date.now());
      await a.release();
      await b.release();
      const c = await acquireHashCache(file);
      expect(c.cache).toBe(a.cache); // still loaded: nothing read back
      await c.release();
      vi.advanceTimersByTime(5 * 60_000);
      const d = await acquireHashCache(file);
      expect(d.cache).not.toBe(a.cache);
      expect(d.cache.get('/w/a', key)).toBe('h1'); // saved on release, read back now
      await d.release();
    } finally {
      vi.useRealTimers();
    }
  });
});
