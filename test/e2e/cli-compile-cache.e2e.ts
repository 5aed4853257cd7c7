// The command line's compile cache (src-main/cli/compile-cache.ts), through the built CLI:
// filled by a first command, used by the next, refused when its folder is not ours alone,
// and never in the way: garbage in it, or none at all, and the command still runs.
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompileCacheStats } from '../../src-main/cli/compile-cache';
import { requireBuilt, runCli, tempHome } from '../helpers/cli';

const h = tempHome('tender-compile-cache-');
beforeAll(() => requireBuilt());
afterAll(() => h.cleanup());

async function version(dir: string): Promise<{ out: string; stats: CompileCacheStats }> {
  const r = await runCli(['--version'], {
    home: h.home,
    env: { TENDER_COMPILE_CACHE: dir, TENDER_COMPILE_CACHE_STATS: '1' },
  });
  expect(r.code, r.stderr).toBe(0);
  const line = /compile cache: (.*)/.exec(r.stderr);
  expect(line, r.stderr).not.toBeNull();
  return { out: r.stdout, stats: JSON.parse(line![1]!) as CompileCacheStats };
}

describe('the CLI compile cache', () => {
  it('is written by the first command and read by the next, in a folder only its user may use', async () => {
    const dir = join(h.root, 'cache');
    const first = await version(dir);
    expect(first.out).toMatch(/^\d+\.\d+\.\d+/);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    if (first.stats.mode === 'native') return; // Node ≥ 22.1 keeps its own (module.enableCompileCache)
    expect(first.stats).toMatchObject({ mode: 'vm', hits: 0 });
    expect(first.stats.misses).toBeGreaterThan(10); // the bundle and its dependencies
    expect(readdirSync(dir)).toHaveLength(first.stats.misses);

    const second = await version(dir);
    expect(second.out).toBe(first.out);
    expect(second.stats).toMatchObject({ mode: 'vm', hits: first.stats.misses, misses: 0 });
  });

  it('takes garbage in place of cached code for a miss, and writes it again', async () => {
    const dir = join(h.root, 'garbage');
    const clean = await version(dir);
    if (clean.stats.mode === 'native') return;
    for (const name of readdirSync(dir)) writeFileSync(join(dir, name), 'not V8 code cache');
    const spoiled = await version(dir);
    expect(spoiled.out).toBe(clean.out);
    expect(spoiled.stats.misses).toBe(clean.stats.misses); // every entry rejected
    expect((await version(dir)).stats.misses).toBe(0); // and rewritten
  });

  it('is not used from a folder others may write to, or when turned off; the command runs the same', async () => {
    const shared = join(h.root, 'shared');
    mkdirSync(shared, { recursive: true });
    chmodSync(shared, 0o777);
    const open = await version(shared);
    expect(open.stats).toMatchObject({ mode: 'off', reason: `${shared} is writable by others` });
    expect(readdirSync(shared)).toEqual([]);
    const off = await version('off');
    expect(off.stats).toMatchObject({ mode: 'off', reason: 'TENDER_COMPILE_CACHE=off' });
    expect(off.out).toBe(open.out);
  });
});
