// Builds everything `npm start`, `npm test` and packaging need:
//   dist/airlock.mjs               the CLI's executable: dist/sanitize-main.mjs for `sanitize` and
//                                  dist/inspect-main.mjs for `inspect` (one file each; inspect loads
//                                  dist/inspect-restricted.mjs on demand),
//                                  else dist/cli.mjs (+ chunks, one ESM file per command: fast start)
//   dist/renderer/                 the viewer (renderer/vite.config.ts)
//   dist/app/main.cjs              Electron main (electron external)
//   dist/app/artifact-worker.cjs   the index and query worker; dist/app/screen-worker.cjs the screen worker
//   dist/app/preload-viewer.cjs    the viewer windows' preload (sandboxed: bundled, electron external)
//   dist/app/preload-prompt.cjs    the prompt window's preload
//   dist/prompt/                   the authorization prompt page (HTML + JS + CSS, shipped with the app)
// `node scripts/build.mjs --no-renderer` skips the vite build.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const common = { bundle: true, legalComments: 'none', logLevel: 'warning', absWorkingDir: root };

// Chunk names carry content hashes: without this, every build would leave the old ones behind.
rmSync(join(root, 'dist/chunks'), { recursive: true, force: true });
rmSync(join(root, 'dist/airlock.mjs.map'), { force: true });
const cli = { ...common, platform: 'node', format: 'esm', target: 'node20', sourcemap: 'linked', outExtension: { '.js': '.mjs' } };
await build({
  ...cli,
  entryPoints: { cli: 'app/cli/main.ts' },
  outdir: 'dist',
  // One chunk per command (they are imported on demand), shared code in common chunks.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});
// `sanitize` and `inspect`, each alone in one file (no splitting): a pipeline pays start-up on every
// run, and each extra module the split build loads costs about a millisecond (see
// app/cli/sanitize-main.ts, app/cli/inspect-main.ts).
// The vault and audit code stays out of inspect's file, in a file of its own beside it (only a
// restricted: reference needs it): compiling it at every start cost inspect's summary, JSON and
// range modes ~7 ms against sanitize.
const inspectLazy = {
  name: 'airlock-inspect-lazy',
  setup(b) {
    b.onResolve({ filter: /^\.\/restricted-artifact$/ }, () => ({ path: './inspect-restricted.mjs', external: true }));
  },
};
await build({ ...cli, entryPoints: { 'sanitize-main': 'app/cli/sanitize-main.ts', 'inspect-main': 'app/cli/inspect-main.ts' }, outdir: 'dist', plugins: [inspectLazy] });
await build({ ...cli, entryPoints: { 'inspect-restricted': 'app/cli/inspect/restricted-artifact.ts' }, outdir: 'dist' });
// The executable picks one of the three; it is not bundled, so its dynamic import stays a path.
await build({ ...cli, bundle: false, sourcemap: false, entryPoints: { airlock: 'app/cli/airlock.ts' }, outdir: 'dist' });

// Electron 45 ships Node 22 and Chromium 140.
await build({
  ...common,
  entryPoints: { main: 'app/main/main.ts' },
  outdir: 'dist/app',
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  external: ['electron'],
  sourcemap: 'linked',
  outExtension: { '.js': '.cjs' },
});
// The artifact index's worker, bundled beside main.
await build({ ...common, entryPoints: { 'artifact-worker': 'app/services/artifact/worker.ts' }, outdir: 'dist/app', platform: 'node', format: 'cjs', target: 'node22', outExtension: { '.js': '.cjs' } });
// The screen reconstruction's worker (the emulator lives there, not in main or the index worker).
await build({ ...common, entryPoints: { 'screen-worker': 'app/services/screen/worker.ts' }, outdir: 'dist/app', platform: 'node', format: 'cjs', target: 'node22', outExtension: { '.js': '.cjs' } });
await build({
  ...common,
  entryPoints: { 'preload-viewer': 'app/preload/viewer.ts', 'preload-prompt': 'app/preload/prompt.ts' },
  outdir: 'dist/app',
  // Sandboxed preloads get a browser-like environment with `require('electron')` only.
  platform: 'browser',
  format: 'cjs',
  target: 'chrome140',
  external: ['electron'],
  outExtension: { '.js': '.cjs' },
});
await build({
  ...common,
  entryPoints: { prompt: 'app/prompt/prompt.ts' },
  outdir: 'dist/prompt',
  platform: 'browser',
  format: 'iife',
  target: 'chrome120',
});
mkdirSync(join(root, 'dist/prompt'), { recursive: true });
for (const f of ['index.html', 'prompt.css']) copyFileSync(join(root, 'app/prompt', f), join(root, 'dist/prompt', f));

if (!process.argv.includes('--no-renderer')) {
  const config = join(root, 'renderer/vite.config.ts');
  const r = spawnSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '-c', config, '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
