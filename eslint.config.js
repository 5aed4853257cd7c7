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
