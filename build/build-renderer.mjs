#!/usr/bin/env node
// Builds only the renderer, into a folder of your choosing (default out/renderer), with the
// same settings as electron-vite's renderer build. For working on the UI in web mode:
//   node build/build-renderer.mjs /tmp/my-renderer && TENDER_RENDERER_DIR=/tmp/my-renderer tender serve
import react from '@vitejs/plugin-react';
import { resolve } from 'node:path';
import { build } from 'vite';

const root = resolve(import.meta.dirname, '..');
const outDir = resolve(process.argv[2] ?? resolve(root, 'out/renderer'));
await build({
  configFile: false,
  root: resolve(root, 'src-renderer'),
  base: './',
  logLevel: 'warn',
  plugins: [react()],
  build: { outDir, emptyOutDir: true },
});
console.log(`renderer built into ${outDir}`);
