/**
 * Loads shared/parser and shared/sanitize as ONE esbuild bundle, the way production code runs
 * (scripts/build.mjs bundles the CLI). Under Vitest every cross-module access (const enums, the
 * UTF-8 decoder's `lastCodePoint`) goes through the test runner's module proxies, which makes the
 * hot loop several times slower than shipped code; time budgets are therefore measured on the
 * bundle. Correctness suites keep importing the sources directly.
 */
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as ParserModule from '../../shared/parser/index';
import type * as SanitizeModule from '../../shared/sanitize/index';

export type Bundled = typeof ParserModule & typeof SanitizeModule;

let cached: Promise<Bundled> | null = null;

export function loadBundle(): Promise<Bundled> {
  cached ??= (async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const result = await build({
      stdin: {
        contents: "export * from './shared/parser/index';\nexport * from './shared/sanitize/index';\n",
        resolveDir: root,
        loader: 'ts',
      },
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    const dir = mkdtempSync(join(tmpdir(), 'airlock-bundle-'));
    const file = join(dir, 'airlock-shared.mjs');
    writeFileSync(file, result.outputFiles[0].text);
    try {
      return (await import(/* @vite-ignore */ pathToFileURL(file).href)) as Bundled;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  return cached;
}

/** CPU milliseconds (user + system, all threads of this process) spent by `fn`. */
export function cpuMs(fn: () => void): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

/** The least CPU time over `runs` runs: interference from other jobs only ever adds time. */
export function minCpuMs(fn: () => void, runs: number): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) best = Math.min(best, cpuMs(fn));
  return best;
}
