import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

// Our folders are not electron-vite's defaults, so every entry is named. The preload is
// CommonJS (a sandboxed preload cannot be ESM) with its dependencies bundled in (a sandboxed
// preload cannot require node_modules). The agent and the CLI are built by esbuild
// (build/build-agent.mjs, build/build-cli.mjs).
export default defineConfig({
  main: {
    define: { __TENDER_VERSION__: JSON.stringify(version) },
    build: {
      outDir: 'out/main',
      lib: { entry: resolve('src-main/index.ts') },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      externalizeDeps: false,
      lib: { entry: resolve('src-main/app/preload.ts'), formats: ['cjs'] },
      rolldownOptions: { output: { entryFileNames: 'preload.cjs' } },
    },
  },
  renderer: {
    root: 'src-renderer',
    build: {
      outDir: 'out/renderer',
      rolldownOptions: { input: resolve('src-renderer/index.html') },
    },
    plugins: [react()],
  },
});
