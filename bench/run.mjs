#!/usr/bin/env node
// Runs a TypeScript bench (bench/<name>.ts) against the real code: bundles it with esbuild
// (dependencies stay external) into out/bench/ and runs it with the arguments that follow.
// Usage: node bench/run.mjs push [reps]   |   node bench/run.mjs push-shaped [reps] [dataMB]
//        node bench/run.mjs join [runs]   |   node bench/run.mjs logs-cli [lines]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { build } from 'esbuild';

const [name, ...args] = process.argv.slice(2);
const root = resolve(import.meta.dirname, '..');
// A bench name, or a path to any .ts entry (e.g. test/demo/ui-demo.ts).
const entry = name?.endsWith('.ts') ? resolve(name) : join(root, 'bench', `${name}.ts`);
if (!name || !existsSync(entry)) {
  console.error(
    'usage: node bench/run.mjs <push|push-shaped|join|teardown|ui-logs|logs-cli> [args]   (npm run build first)',
  );
  process.exit(2);
}
const outfile = join(root, 'out', 'bench', `${basename(name, '.ts')}.mjs`);
await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
const r = spawnSync(process.execPath, [outfile, ...args], { stdio: 'inherit', cwd: root });
process.exit(r.status ?? 1);
