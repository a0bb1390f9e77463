/* global console, process, URL, document */
// Dev helper: serves dist/renderer-dev through page.route and saves screenshots of the main views.
// node renderer/dev/shots.mjs [query]   (build first: npx vite build -c renderer/dev/vite.config.ts)
import { chromium } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

const root = 'dist/renderer-dev';
const out = 'test-results/screenshots/dev';
mkdirSync(out, { recursive: true });
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
page.on('console', (m) => console.log('console:', m.type(), m.text()));
page.on('pageerror', (e) => console.log('pageerror:', e.message));
await page.route('https://viewer.test/**', (route) => {
  const path = new URL(route.request().url()).pathname.replace(/^\/+/, '') || 'index.html';
  try {
    route.fulfill({ body: readFileSync(join(root, path)), contentType: types[extname(path)] ?? 'application/octet-stream' });
  } catch {
    route.fulfill({ status: 404, body: 'not found' });
  }
});
const q = process.argv[2] ?? '';
await page.goto(`https://viewer.test/index.html${q}`);
await page.waitForSelector('[data-testid=artifact-row]');
await page.screenshot({ path: `${out}/1-vault.png` });
await page.dblclick('[data-testid=artifact-row] >> nth=0');
await page.waitForSelector('[data-testid=text-line]');
await page.waitForTimeout(300);
await page.screenshot({ path: `${out}/2-workspace-locked.png` });
await page.click('button:has-text("Show raw bytes")');
await page.waitForSelector('[data-testid=hex-row]');
await page.waitForTimeout(400);
await page.click('[data-testid=chip] >> nth=9');
await page.waitForTimeout(300);
await page.hover('[data-testid=hex-row][data-offset="384"] .hx >> nth=3');
await page.screenshot({ path: `${out}/3-workspace-raw.png` });
await page.click('button[aria-label^="Switch to"]');
await page.waitForTimeout(200);
await page.screenshot({ path: `${out}/4-workspace-dark.png` });
await page.click('text=Compare raw / clean');
await page.waitForTimeout(400);
await page.screenshot({ path: `${out}/5-compare-side.png` });
await page.click('text=Interleaved');
await page.waitForTimeout(400);
await page.screenshot({ path: `${out}/6-compare-interleaved.png` });
await page.click('text=‹ Vault');
await page.dblclick('[data-testid=artifact-row] >> nth=1');
await page.waitForSelector('[data-testid=merged-tab]');
await page.click('[data-testid=merged-tab]');
await page.waitForSelector('[data-testid=merged-row]');
await page.screenshot({ path: `${out}/7-merged.png` });
await page.click('text=‹ Vault');
await page.dblclick('[data-testid=artifact-row] >> nth=3');
await page.waitForSelector('[data-testid=text-line]');
await page.click('button:has-text("Show raw bytes")');
await page.waitForSelector('[data-testid=hex-row]');
const t0 = Date.now();
await page.fill('[data-testid=goto-input]', 'end');
await page.press('[data-testid=goto-input]', 'Enter');
await page.waitForTimeout(1500);
console.log(await page.evaluate(() => [...document.querySelectorAll('[data-testid=hex-row]')].slice(0, 3).map((r) => r.dataset.offset + ' ' + r.style.transform)));
await page.screenshot({ path: `${out}/8-big-end.png` });
console.log('jump to end ms', Date.now() - t0);
await page.waitForTimeout(300);
await page.screenshot({ path: `${out}/8-big-end.png` });
await page.click('[data-testid=side-search], #side-search');
await page.fill('[data-testid=search-input]', 'tick');
await page.press('[data-testid=search-input]', 'Enter');
await page.waitForSelector('[data-testid=search-count]');
await page.waitForTimeout(300);
await page.screenshot({ path: `${out}/9-big-search.png` });
await browser.close();
