// Lint: typescript-eslint's recommended rules, the purity rules that keep core/ deterministic, and the layers
// (renderer → electron/api → runners → core, nothing pointing up) with no import cycles anywhere.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (file) => path.join(path.dirname(fileURLToPath(import.meta.url)), file);

// An import that climbs out of its folder to one of the repository's top-level folders (`../../runners/x.js`).
// Decision: the layers are read from the import's text, not its resolved file: no resolver runs for them, and no
// folder under core/, runners/ or renderer/src/ bears a top-level folder's name.
const up = (folders) => `^(\\.\\./)+(${folders})/`;

// Decision: Electron is matched whole (`^electron$`): a group pattern `electron` would also match `../electron/…`.
const CORE_IS_PURE = [
  {
    group: ['node:*', 'fs', 'path', 'os', 'child_process', 'worker_threads', 'crypto'],
    message: 'core/ is pure: no Node APIs.',
  },
  { regex: '^electron$', message: 'core/ is pure: no Node APIs.' },
];
const LAYERS = {
  core: {
    regex: up('electron|runners|renderer|test|assets|scripts|bin'),
    message: 'core/ imports nothing outside core/.',
  },
  runners: {
    regex: up('electron|renderer|test|scripts|bin'),
    message: 'runners/ imports core/ only: the host (electron/) configures it, never the other way.',
  },
  renderer: {
    regex: `^(\\.\\./)+(?!core/model/|electron/api/)(core|electron|runners|test|assets|scripts|bin)/`,
    message: 'The renderer imports only electron/api/ and core/model/.',
  },
  // The contract and dispatcher pull the host's code in: the console takes their types only; the values it shows
  // come from electron/api/choices.ts.
  rendererApi: {
    regex: `^(\\.\\./)+electron/api/(?!choices\\.js$)`,
    allowTypeImports: true,
    message: 'The renderer takes only types from the API (values: electron/api/choices.ts).',
  },
};

// Vue single-file components: their <script> blocks are linted for the layers only (the template uses what the script
// declares, which the TypeScript rules would call unused; no-cycle cannot read a .vue file, so it does not follow
// imports through components). Blocks keep their lines.
const LAYER_RULES = new Set(['no-restricted-imports']);
const vueScripts = {
  meta: { name: 'concertina-vue-scripts' },
  processors: {
    script: {
      preprocess(text) {
        const blocks = [];
        for (const m of text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)) {
          const start = m.index + m[0].indexOf('>') + 1;
          blocks.push({
            text: '\n'.repeat(text.slice(0, start).split('\n').length - 1) + m[1],
            filename: `${blocks.length}.ts`,
          });
        }
        return blocks;
      },
      postprocess: (messages) => messages.flat().filter((m) => m.fatal || LAYER_RULES.has(m.ruleId)),
      supportsAutofix: false,
    },
  },
};

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
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
  { files: ['**/*.vue'], plugins: { 'concertina-vue': vueScripts }, processor: 'concertina-vue/script' },
  {
    // No two modules import each other, through any chain (type-only imports do not count: they vanish when compiled).
    files: ['**/*.ts'],
    ignores: ['**/*.vue/**'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: [here('tsconfig.json'), here('tsconfig.renderer.json')],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // The core is pure: no Node APIs, no wall clock, no timers, no unseeded randomness, nothing outside core/.
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...CORE_IS_PURE, LAYERS.core] }],
      'no-restricted-globals': [
        'error',
        'setTimeout',
        'setInterval',
        'setImmediate',
        'process',
        'performance',
        'require',
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use core/random.ts (seeded).' },
        { object: 'Date', property: 'now', message: 'Time is passed in.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Date']", message: 'Time is passed in.' },
      ],
    },
  },
  { files: ['runners/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [LAYERS.runners] }] } },
  {
    files: ['renderer/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [LAYERS.renderer, LAYERS.rendererApi] }] },
  },
);
