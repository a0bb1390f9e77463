// Renders assets/icons/airlock.svg to the PNG sizes electron-builder needs (Linux icon set,
// 512 for mac/win generation, 1024 for macOS) with Debian Chromium. `npm run icons`.
import { chromium } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '../assets/icons');
const svg = readFileSync(join(dir, 'airlock.svg'), 'utf8');
const browser = await chromium.launch({ executablePath: process.env.AIRLOCK_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
try {
  for (const size of [16, 32, 48, 64, 128, 256, 512, 1024]) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg.replace('width="512" height="512"', `width="${size}" height="${size}"`)}</body></html>`);
    await page.screenshot({ path: join(dir, `${size}x${size}.png`), omitBackground: true });
    await page.close();
  }
} finally {
  await browser.close();
}
console.log(`wrote PNG icons to ${dir}`);
