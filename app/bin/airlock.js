#!/usr/bin/env node
// Launcher for the bundled CLI (built by `npm run build`, which `npm ci` runs via `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../../dist/airlock.mjs', import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write('airlock: the CLI is not built (missing dist/airlock.mjs); run `npm run build` first\n');
  process.exit(70);
}
await import(bundle);
