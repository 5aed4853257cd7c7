// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { floorsPlugin } from './build/eslint-floors.mjs';

// The runtime boundaries of docs/architecture.md, enforced here rather than remembered:
// only src-main/app imports electron; the renderer sees only the contract; the agent is
// Node's standard library and nothing else.
const electronOnlyInApp = {
  paths: [{ name: 'electron', message: 'Only src-main/app/ may import electron.' }],
};

// A file is read whole: past 400 lines (comments and blank lines count: they are read too)
// it holds more than one concept, and is split by concept, not cut in half. An error, so
// that `npm run lint` fails on it.
const SOURCE_MAX_LINES = 400;
// Tests run longer: each case spells out its own arrange / act / assert and its fixtures
// inline (tables of stage x message, fake servers, seeded data) rather than sharing helpers
// that hide what is asserted, so a suite for one concept reads fine at half again a source
// file's length. Past 600 it covers more than one concept: split it by what it tests.
const TEST_MAX_LINES = 600;
const testFiles = ['**/*.test.ts', '**/*.test.tsx', '**/*.test-util.ts', 'test/**'];
const maxLines = (max) => ['error', { max, skipBlankLines: false, skipComments: false }];

export default tseslint.config(
  {
    ignores: ['out/**', 'node_modules/**', 'resources/agent/**', 'coverage/**', 'dist/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', electronOnlyInApp],
    },
  },
  {
    files: ['src-main/**/*.{ts,tsx}', 'src-agent/**/*.{ts,tsx}', 'src-renderer/**/*.{ts,tsx}'],
    rules: { 'max-lines': maxLines(SOURCE_MAX_LINES) },
  },
  {
    files: testFiles,
    rules: { 'max-lines': maxLines(TEST_MAX_LINES) },
  },
  {
    // The floor order of src-main (build/eslint-floors.mjs): imports run downward only, and
    // reach the agent only through src-agent/wire/. Tests may use any floor as a fixture.
    files: ['src-main/**/*.ts'],
    ignores: ['src-main/**/*.test.ts', 'src-main/**/*.test-util.ts'],
    plugins: { tender: floorsPlugin },
    rules: { 'tender/floors': 'error' },
  },
  {
    files: ['src-main/app/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['src-main/contract/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...electronOnlyInApp,
          patterns: [
            {
              regex: '^(node:|\\.\\./(?!contract))',
              message: 'The contract is runtime-free: schemas and types only (zod allowed).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src-renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          ...electronOnlyInApp,
          patterns: [
            {
              regex: '^node:',
              message: 'The renderer runs in a sandbox: no Node modules.',
            },
            {
              regex: 'src-main/(?!contract)',
              message: 'The renderer may import only src-main/contract.',
            },
            {
              regex: 'src-agent',
              message:
                'The renderer may not import the agent: what it needs of the agent reaches it as contract views (src-main/contract).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src-agent/**'],
    ignores: ['src-agent/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!node:|\\.)',
              message: 'The agent is Node standard library only (import node:* or relative files).',
            },
            { regex: 'src-main', message: 'The agent must not import app code.' },
          ],
        },
      ],
    },
  },
);
