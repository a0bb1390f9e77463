// `npm run preview`: bundles e2e/preview.ts (the harness, headed) and runs it. Needs a display:
// under none it says so in one line (use `xvfb-run -a npm run preview`).
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  console.error('airlock preview: no display (DISPLAY/WAYLAND_DISPLAY unset); run `xvfb-run -a npm run preview`, or `npm run test:e2e` for the headless flows.');
  process.exit(1);
}
// Inside the repository so the bundle's external packages resolve from node_modules.
mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
const out = mkdtempSync(join(root, 'node_modules/.cache/airlock-preview-'));
try {
  await build({
    entryPoints: [join(root, 'e2e/preview.ts')],
    outfile: join(out, 'preview.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  // The harness finds the builds from here; the artifact index's worker runs from main's build.
  process.env.AIRLOCK_REPO = root;
  process.env.AIRLOCK_ARTIFACT_WORKER ??= join(root, 'dist/app/artifact-worker.cjs');
  const { preview } = await import(pathToFileURL(join(out, 'preview.mjs')).href);
  await preview();
} finally {
  rmSync(out, { recursive: true, force: true });
}
