// Where the index worker's script is. Shipped builds bundle worker.ts to `artifact-worker.cjs`
// beside main's bundle (scripts/build.mjs, SHELL). From sources (tests, bench) it is bundled once
// per process with esbuild into a private temp directory. Worker threads cannot run TypeScript.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WORKER_BUNDLE_NAME = 'artifact-worker.cjs';

let built: Promise<string> | null = null;

function hereDir(): string | null {
  if (typeof __dirname === 'string') return __dirname;
  try {
    return dirname(fileURLToPath(import.meta.url));
  } catch {
    return null;
  }
}

/** Path of a runnable worker script (bundling it from source when no bundle ships beside us). */
export function resolveWorkerScript(explicit?: string): Promise<string> {
  if (explicit) return Promise.resolve(explicit);
  const env = process.env.AIRLOCK_ARTIFACT_WORKER;
  if (env) return Promise.resolve(env);
  const here = hereDir();
  if (here && existsSync(join(here, WORKER_BUNDLE_NAME))) return Promise.resolve(join(here, WORKER_BUNDLE_NAME));
  const source = here ? join(here, 'worker.ts') : null;
  if (!source || !existsSync(source)) return Promise.reject(new Error(`index worker bundle ${WORKER_BUNDLE_NAME} not found`));
  built ??= (async () => {
    const name = 'esbuild';
    const esbuild = (await import(/* @vite-ignore */ name)) as typeof import('esbuild');
    const result = await esbuild.build({
      entryPoints: [source],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      write: false,
      logLevel: 'silent',
    });
    const dir = mkdtempSync(join(tmpdir(), 'airlock-index-worker-'));
    const file = join(dir, WORKER_BUNDLE_NAME);
    writeFileSync(file, result.outputFiles[0].text, { mode: 0o600 });
    return file;
  })();
  return built;
}
