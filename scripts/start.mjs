// `npm start`: the desktop app. Electron 45 no longer fetches its binary at `npm ci`, so the first
// start downloads it (as require('electron') would). Where that cannot work (no access to
// Electron's download site, as on this project's build machines, or ELECTRON_SKIP_BINARY_DOWNLOAD
// set), say so in one line and run the preview instead: the same viewer in Chromium with the real
// services, which needs a display.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary } from './electron-path.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);

/** Downloads the Electron binary with electron's own installer; null on success, else why not. */
function downloadElectron() {
  if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD) return 'ELECTRON_SKIP_BINARY_DOWNLOAD is set';
  const installer = join(root, 'node_modules/electron/install.js');
  if (!existsSync(installer)) return 'the electron package is not installed (run npm ci)';
  console.error('airlock: downloading the Electron binary (first start only)…');
  const run = spawnSync(process.execPath, [installer], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
  if (run.status === 0) return null;
  // The installer fails with a stack trace; its first line says what went wrong.
  const first = (run.stderr ?? '').split('\n').map((l) => l.trim()).find((l) => l !== '');
  return `download failed: ${(first ?? `exit ${run.status ?? run.signal}`).slice(0, 160)}`;
}

let bin = electronBinary();
const why = bin ? null : downloadElectron();
bin ??= electronBinary();
if (!bin) {
  const hasDisplay = process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
  if (!hasDisplay) {
    console.error(`airlock: no Electron binary here (${why}) and no display for the preview; run \`xvfb-run -a npm run preview\` for the same viewer in Chromium with the real services.`);
    process.exit(1);
  }
  console.error(`airlock: no Electron binary here (${why}); opening the preview instead: the same viewer in Chromium with the real services (npm run preview).`);
  // The preview takes the app's --vault= and --open= arguments; its own build is dist/, made by npm ci.
  const previewArgs = args.filter((a) => a.startsWith('--vault=') || a.startsWith('--open='));
  const child = spawn(process.execPath, [join(root, 'scripts/preview.mjs'), ...previewArgs], { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else if (!existsSync(join(root, 'dist/app/main.cjs'))) {
  console.error('airlock: dist/app/main.cjs is missing; run `npm run build` first.');
  process.exit(1);
} else {
  const child = spawn(bin, [join(root, 'dist/app/main.cjs'), ...args], { stdio: 'inherit' });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
