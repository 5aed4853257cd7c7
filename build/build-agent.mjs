// Bundles src-agent into one CommonJS file that any Node >= 18 runs with no node_modules.
// The app pushes this file to nodes and compares its sha256 to skip unchanged pushes.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

const outfile = 'out/agent/tender-agent.cjs';
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));

await build({
  entryPoints: ['src-agent/main.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  define: { __AGENT_VERSION__: JSON.stringify(pkg.version) },
  legalComments: 'none',
  // Smaller pushes to slow nodes; identifiers stay readable in a node's stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});

const sha256 = createHash('sha256').update(readFileSync(outfile)).digest('hex');
writeFileSync(
  'out/agent/tender-agent.json',
  JSON.stringify({ version: pkg.version, sha256 }) + '\n',
);
console.log(`agent: ${outfile} sha256 ${sha256.slice(0, 12)}`);
