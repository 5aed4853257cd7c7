import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeCache, cacheEnv, treeBytes } from './node-cache';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'tender-cache-'));
  dirs.push(d);
  return d;
}

describe('cacheEnv', () => {
  it('points the tools at subfolders of TENDER_CACHE unless the job sets them', () => {
    expect(cacheEnv('/c', {})).toEqual({
      TENDER_CACHE: '/c',
      HF_HOME: '/c/huggingface',
      TORCH_HOME: '/c/torch',
      PIP_CACHE_DIR: '/c/pip',
    });
    expect(cacheEnv('/c', { HF_HOME: '/mine' })).toEqual({
      TENDER_CACHE: '/c',
      TORCH_HOME: '/c/torch',
      PIP_CACHE_DIR: '/c/pip',
    });
  });
});

describe('the cache size', () => {
  it('sums regular files, counts a linked file once, and a missing folder as 0', async () => {
    const d = tempDir();
    mkdirSync(join(d, 'blobs'));
    writeFileSync(join(d, 'blobs', 'a'), 'x'.repeat(1000));
    writeFileSync(join(d, 'b'), 'y'.repeat(24));
    symlinkSync(join(d, 'blobs', 'a'), join(d, 'snapshot'));
    expect(await treeBytes(d)).toBe(1024);
    expect(await treeBytes(join(d, 'nope'))).toBe(0);
  });

  it('is measured at most every 30 s, unless a writer ended since', async () => {
    const d = tempDir();
    let now = 1_000_000;
    const cache = new NodeCache(d, () => now);
    expect((await cache.info()).bytes).toBe(0);
    writeFileSync(join(d, 'f'), 'z'.repeat(10));
    now += 10_000;
    expect((await cache.info()).bytes).toBe(0); // the last measure, 10 s old
    cache.markStale();
    expect((await cache.info()).bytes).toBe(10);
    writeFileSync(join(d, 'g'), 'z'.repeat(5));
    now += 30_000;
    expect(await cache.info()).toEqual({ path: d, bytes: 15, measuredAt: now });
  });
});
