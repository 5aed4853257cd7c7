// Bundles the `tender` command line (plain Node; no electron) into out/cli/tender-main.js,
// and its launcher (launch.ts: the compile cache, then tender-main.js) into out/cli/tender.js.
// Dependencies stay external: they are installed beside it and better-sqlite3 is native.
// CommonJS, not ESM: every `tender` command pays the module loader at start-up, and
// loading the (CommonJS) dependencies through the ESM loader costs ~45 ms more per command
// here (`tender --version` 0.12 s vs 0.17 s) — most of a warm rerun's budget. out/cli has
// its own package.json saying so; import.meta is mapped to the CommonJS equivalents.
import { build } from 'esbuild';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const outfile = 'out/cli/tender.js';
const mainfile = 'out/cli/tender-main.js';
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

// Pure-JavaScript dependencies go into the bundle (one file to load, not ~130);
// native ones and those loaded only by some commands stay installed beside it.
const BUNDLED = new Set(['zod', 'js-yaml', 'smol-toml', 'ignore']);
const EXTERNAL = Object.keys(pkg.dependencies)
  .filter((d) => !BUNDLED.has(d))
  .flatMap((d) => [d, `${d}/*`]);

mkdirSync('out/cli', { recursive: true });
writeFileSync('out/cli/package.json', '{ "type": "commonjs" }\n');
await build({
  entryPoints: ['src-main/cli/launch.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['./tender-main.js'],
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
await build({
  entryPoints: ['src-main/cli/main.ts'],
  outfile: mainfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: EXTERNAL,
  banner: {
    js: 'const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;',
  },
  define: {
    __TENDER_VERSION__: JSON.stringify(pkg.version),
    'import.meta.url': '__importMetaUrl',
    'import.meta.dirname': '__dirname',
  },
  sourcemap: 'linked',
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
console.log(`cli: ${outfile}`);
