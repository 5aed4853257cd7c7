import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** A pinned Node runtime Tender can install on a node that has none (gzipped `bin/node`). */
export interface NodeRuntime {
  arch: 'x64' | 'arm64';
  version: string;
  gzSha256: string;
  /** The sha256 of `bin/node` itself: a node checks its cached copy against it. */
  binarySha256(): string;
  /** Read on demand: it is tens of MB and most nodes already have Node. */
  gz(): Buffer;
}

interface Meta {
  version: string;
  arch: 'x64' | 'arm64';
  gzSha256: string;
  /** Written by build/fetch-runtime.mjs; computed from the gz when an older build lacks it. */
  binarySha256?: string;
}

/** Finds the runtimes built by `npm run build:runtime` (out/runtime, or a packaged app's
 *  resources/runtime). Returns a lookup by `uname -m`; null for an architecture we lack. */
export function runtimeLookup(
  env: NodeJS.ProcessEnv = process.env,
): (unameM: string) => NodeRuntime | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const resourcesPath = (process as { resourcesPath?: string }).resourcesPath;
  const dirs = [
    env.TENDER_RUNTIME_DIR,
    join(here, '..', 'runtime'),
    resourcesPath && join(resourcesPath, 'runtime'),
    resolve(here, '..', '..', 'out', 'runtime'),
    resolve(process.cwd(), 'out', 'runtime'),
  ].filter((d): d is string => typeof d === 'string' && d.length > 0);
  return (unameM) => {
    const arch =
      unameM === 'x86_64' || unameM === 'amd64'
        ? 'x64'
        : unameM === 'aarch64' || unameM === 'arm64'
          ? 'arm64'
          : null;
    if (!arch) return null;
    for (const dir of dirs) {
      const metaPath = join(dir, `node-linux-${arch}.json`);
      const gzPath = join(dir, `node-linux-${arch}.gz`);
      if (!existsSync(metaPath) || !existsSync(gzPath)) continue;
      const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Meta;
      let binarySha256 = meta.binarySha256;
      return {
        arch,
        version: meta.version,
        gzSha256: meta.gzSha256,
        binarySha256: () =>
          (binarySha256 ??= createHash('sha256')
            .update(gunzipSync(readFileSync(gzPath)))
            .digest('hex')),
        gz: () => readFileSync(gzPath),
      };
    }
    return null;
  };
}
