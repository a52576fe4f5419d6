// Lint rules: typescript-eslint's recommended set over sources, tests and scripts, and the
// layers of docs/ARCHITECTURE.md (scripts/eslint-layers.mjs).
// Generated protocol files carry their own eslint-disable header and are checked by tsc.
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layersPlugin } from './scripts/eslint-layers.mjs';

/**
 * Which layers each layer of src/ may import from (docs/ARCHITECTURE.md, Layers):
 * cli → broker → {coordinator, storage}, cli → client → assignors, kafkajs → client → assignors,
 * all → protocol → util.
 * A layer always imports from itself; src/index.ts, bench/, test/ and scripts/ are free.
 */
export const LAYERS = {
  util: [],
  protocol: ['util'],
  storage: ['protocol', 'util'],
  coordinator: ['protocol', 'util'],
  assignors: ['protocol', 'util'],
  broker: ['coordinator', 'storage', 'protocol', 'util'],
  client: ['assignors', 'protocol', 'util'],
  // brook/kafkajs: KafkaJS's API over Brook's client.
  kafkajs: ['client', 'assignors', 'protocol', 'util'],
  cli: ['broker', 'client', 'coordinator', 'storage', 'assignors', 'protocol', 'util'],
};

export default tseslint.config(
  // KafkaJS's spec files and examples, vendored unmodified (their folders' README.md).
  { ignores: ['dist/**', 'node_modules/**', 'test/support/java/**', 'data/**', 'test/interop/kafkajs-examples/**', 'test/interop/kafkajs-suite/vendor/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/protocol/messages/*.ts', 'src/protocol/coordinator-records/*.ts'],
    linterOptions: { reportUnusedDisableDirectives: 'off' },
  },
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setImmediate: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // The web console's page scripts (no build step): browser modules.
    files: ['console/**/*.js'],
    languageOptions: {
      globals: { document: 'readonly', location: 'readonly', fetch: 'readonly', EventSource: 'readonly', confirm: 'readonly', setTimeout: 'readonly', URL: 'readonly' },
    },
  },
  {
    // The shims and Jest setup that run KafkaJS's own tests against brook/kafkajs: CommonJS, as Jest loads them.
    files: ['test/interop/kafkajs-suite/shims/**/*.js', 'test/interop/kafkajs-suite/harness/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', jest: 'readonly', expect: 'readonly', describe: 'readonly', test: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { layers: layersPlugin },
    rules: { 'layers/direction': ['error', { root: fileURLToPath(new URL('./src', import.meta.url)), allowed: LAYERS }] },
  },
);
