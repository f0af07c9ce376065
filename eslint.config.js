// Lint: typescript-eslint's recommended rules, plus the purity rules that keep core/ deterministic.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    // The application SDK and demo applications: plain JavaScript run by Node on cluster nodes.
    files: ['assets/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
  {
    // The core is pure: no Node APIs, no wall clock, no timers, no unseeded randomness.
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['node:*', 'fs', 'path', 'os', 'child_process', 'worker_threads', 'crypto', 'electron', '../../runners/*', '../../electron/*', '../runners/*', '../electron/*'], message: 'core/ is pure: no Node APIs and nothing outside core/.' }] }],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'setImmediate', 'process', 'performance', 'require'],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use core/random.ts (seeded).' },
        { object: 'Date', property: 'now', message: 'Time is passed in.' },
      ],
      'no-restricted-syntax': ['error', { selector: "NewExpression[callee.name='Date']", message: 'Time is passed in.' }],
    },
  },
);
