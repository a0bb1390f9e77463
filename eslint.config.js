// One lint setup for the whole repo: typescript-eslint's recommended rules plus the layering rules
// of the design card (shared/ is platform-neutral; only app/main and app/preload touch Electron).
import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

/** Plain-Node folders below the CLI and capture: the vault, the audit log, terminal text, files, JSON. */
const NODE_LAYER = ['app/vault', 'app/audit', 'app/terminal', 'app/files', 'app/json'];
/** Node's built-in modules by bare name (`fs`, `fs/promises`, …), and as `node:*`, refused with `message`. */
const nodeBuiltins = (message) => builtinModules.map((name) => ({ name, message }));
const nodeScheme = (message) => ({ group: ['node:*'], message });
const SHARED_NO_NODE = 'shared/ is platform-neutral: no Node APIs (inject them from app/).';
const RENDERER_NO_NODE = 'The renderer runs in a sandboxed page: no Node APIs.';
const ELECTRON = { name: 'electron', message: 'Only app/main and app/preload import electron.' };

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/.corpus/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-control-regex': 'off',
    },
  },
  {
    files: ['bench/**/*.mjs', 'scripts/**/*.mjs', 'app/bin/*.js', 'test/fixtures/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', performance: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: nodeBuiltins(SHARED_NO_NODE), patterns: [
        nodeScheme(SHARED_NO_NODE),
        { group: ['electron', 'react', 'react-dom', '**/app/**', '**/renderer/**'], message: 'shared/ depends on nothing outside itself.' },
      ] }],
      'no-restricted-globals': ['error', 'Buffer', 'process', 'window', 'document', 'require'],
    },
  },
  {
    // The vault, the audit log and the Node helpers (terminal text, files, JSON) are plain Node
    // modules the CLI, capture, MCP and the app all use: they sit below them.
    files: [...NODE_LAYER.map((d) => `${d}/**/*.ts`)],
    rules: {
      'no-restricted-imports': ['error', { paths: [ELECTRON], patterns: [
        { group: ['**/cli/**', '**/capture/**'], message: `${NODE_LAYER.join(', ')} sit below the CLI and capture: they must not import them.` },
      ] }],
    },
  },
  {
    files: ['app/**/*.ts', 'test/**/*.ts'],
    ignores: ['app/main/**', 'app/preload/**', ...NODE_LAYER.map((d) => `${d}/**`)],
    rules: {
      'no-restricted-imports': ['error', { paths: [ELECTRON] }],
    },
  },
  {
    // The renderer runs in a sandboxed page and reaches main only through window.airlock: no Node,
    // no app/ code, no electron (renderer/tsconfig.json has no Node types either). Its Vite
    // configs run in Node.
    files: ['renderer/**/*.{ts,tsx}'],
    ignores: ['renderer/**/vite.config.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [ELECTRON, ...nodeBuiltins(RENDERER_NO_NODE)], patterns: [
        nodeScheme(RENDERER_NO_NODE),
        { group: ['**/app/**'], message: 'The renderer reaches main only through window.airlock: it imports no app/ code.' },
      ] }],
    },
  },
);
