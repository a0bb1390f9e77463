// Runs after `npm ci`/`npm install`: builds the CLI bundle and links node_modules/.bin/airlock so
// `npx airlock` resolves to this checkout directly (npm does not link a project's own bin).
import { chmodSync, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

await import('./build.mjs');

const binDir = fileURLToPath(new URL('../node_modules/.bin/', import.meta.url));
if (existsSync(fileURLToPath(new URL('../node_modules/', import.meta.url)))) {
  mkdirSync(binDir, { recursive: true });
  const link = `${binDir}airlock`;
  rmSync(link, { force: true });
  symlinkSync('../../app/bin/airlock.js', link);
  chmodSync(fileURLToPath(new URL('../app/bin/airlock.js', import.meta.url)), 0o755);
}
