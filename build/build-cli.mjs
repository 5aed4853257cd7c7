// Bundles the `tender` command line (plain Node; no electron) into out/cli/tender.js.
// Dependencies stay external: they are installed beside it and better-sqlite3 is native.
import { build } from 'esbuild';
import { chmodSync, readFileSync } from 'node:fs';

const outfile = 'out/cli/tender.js';
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

await build({
  entryPoints: ['src-main/cli/main.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  banner: { js: '#!/usr/bin/env node' },
  define: { __TENDER_VERSION__: JSON.stringify(pkg.version) },
  sourcemap: 'linked',
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
console.log(`cli: ${outfile}`);
