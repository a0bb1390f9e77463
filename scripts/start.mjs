// `npm start`: the desktop app. Where no Electron binary is installed (as on this project's build
// machines, which cannot download it), say so in one line and name the alternative.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary } from './electron-path.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = electronBinary();
if (!bin) {
  console.error('airlock: the Electron binary is not installed here (it cannot be downloaded); run `npm run preview` to open the same viewer in Chromium with the real services.');
  process.exit(1);
}
if (!existsSync(join(root, 'dist/app/main.cjs'))) {
  console.error('airlock: dist/app/main.cjs is missing; run `npm run build` first.');
  process.exit(1);
}
const child = spawn(bin, [join(root, 'dist/app/main.cjs'), ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
