// Where the Electron binary is, without require('electron') (which downloads a missing binary).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Path of a runnable Electron binary, or null when none is installed. */
export function electronBinary() {
  const pkg = join(root, 'node_modules/electron');
  const pathFile = join(pkg, 'path.txt');
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = join(process.env.ELECTRON_OVERRIDE_DIST_PATH, rel || 'electron');
    return existsSync(p) ? p : null;
  }
  if (!rel) return null;
  const p = join(pkg, 'dist', rel);
  return existsSync(p) ? p : null;
}
