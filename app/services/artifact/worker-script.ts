// Where the index worker's script is. Shipped builds bundle worker.ts to `artifact-worker.cjs`
// beside main's bundle (scripts/build.mjs). From sources (tests, bench) it is bundled once
// per process with esbuild into a private temp directory. Worker threads cannot run TypeScript.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WORKER_BUNDLE_NAME = 'artifact-worker.cjs';
/** The screen reconstruction's worker (app/services/screen/worker.ts), bundled apart: it holds the emulator. */
export const SCREEN_BUNDLE_NAME = 'screen-worker.cjs';

const built = new Map<string, Promise<string>>();

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
  const here = hereDir();
  return resolveBundle(WORKER_BUNDLE_NAME, here ? join(here, 'worker.ts') : null, explicit ?? process.env.AIRLOCK_ARTIFACT_WORKER);
}

/** Path of the screen worker's script (as {@link resolveWorkerScript}). */
export function resolveScreenWorkerScript(explicit?: string): Promise<string> {
  const here = hereDir();
  return resolveBundle(SCREEN_BUNDLE_NAME, here ? join(here, '../screen/worker.ts') : null, explicit ?? process.env.AIRLOCK_SCREEN_WORKER);
}

/** `explicit`, else the bundle `name` beside this file, else `source` bundled once per process into a private temp directory. */
function resolveBundle(name: string, source: string | null, explicit: string | undefined): Promise<string> {
  if (explicit) return Promise.resolve(explicit);
  const here = hereDir();
  if (here && existsSync(join(here, name))) return Promise.resolve(join(here, name));
  if (!source || !existsSync(source)) return Promise.reject(new Error(`worker bundle ${name} not found`));
  let pending = built.get(name);
  if (!pending) {
    pending = (async () => {
      const pkg = 'esbuild';
      const esbuild = (await import(/* @vite-ignore */ pkg)) as typeof import('esbuild');
      const result = await esbuild.build({
        entryPoints: [source],
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        write: false,
        logLevel: 'silent',
      });
      const dir = mkdtempSync(join(tmpdir(), 'airlock-worker-'));
      // Bundled once per process (tests and source runs): gone with the process, not left in /tmp.
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, name);
      writeFileSync(file, result.outputFiles[0].text, { mode: 0o600 });
      return file;
    })();
    built.set(name, pending);
  }
  return pending;
}
