// Fetches the pinned Node runtime Tender installs on nodes that have no Node >= 18, from the
// npm registry's node-linux-<arch> packages, and stores just `bin/node`, gzipped, in
// out/runtime/ (with its hashes). Nodes get it pushed once and cache it by hash.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export const RUNTIME_VERSION = '20.20.0';
const ARCHES = ['x64', 'arm64'];
const outDir = 'out/runtime';
mkdirSync(outDir, { recursive: true });

for (const arch of ARCHES) {
  const gzPath = join(outDir, `node-linux-${arch}.gz`);
  const metaPath = join(outDir, `node-linux-${arch}.json`);
  if (existsSync(gzPath) && existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
    const sha = createHash('sha256').update(readFileSync(gzPath)).digest('hex');
    if (meta.version === RUNTIME_VERSION && meta.gzSha256 === sha) continue;
  }
  const work = mkdtempSync(join(tmpdir(), 'tender-runtime-'));
  try {
    const pkg = `node-linux-${arch}@${RUNTIME_VERSION}`;
    const file = execFileSync('npm', ['pack', pkg, '--silent', '--pack-destination', work], {
      encoding: 'utf8',
    }).trim();
    execFileSync('tar', ['-xzf', join(work, file), '-C', work, 'package/bin/node']);
    const binary = readFileSync(join(work, 'package', 'bin', 'node'));
    const gz = gzipSync(binary, { level: 6 });
    writeFileSync(gzPath, gz);
    const meta = {
      version: RUNTIME_VERSION,
      arch,
      gzSha256: createHash('sha256').update(gz).digest('hex'),
      binarySha256: createHash('sha256').update(binary).digest('hex'),
      bytes: binary.length,
    };
    writeFileSync(metaPath, JSON.stringify(meta, null, 2) + '\n');
    console.log(`runtime: ${pkg} → ${gzPath} (${(gz.length / 1e6).toFixed(1)} MB)`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
