import { defineConfig } from 'vitest/config';

// Three levels, run as separate projects so `npm test` can report them apart:
// unit (pure code beside its source), integration (real SQLite files, real processes,
// real sockets on 127.0.0.1) and end to end (the built CLI, later Chromium).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src-main/**/*.test.ts', 'src-agent/**/*.test.ts', 'src-renderer/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.int.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.e2e.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 60_000,
          // The e2e tests drive the built CLI as separate processes; two at a time is
          // what two cores carry without timing noise.
          maxWorkers: 2,
        },
      },
    ],
  },
});
