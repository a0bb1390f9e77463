/* global console, process, document, performance, requestAnimationFrame, HTMLInputElement, Event, setTimeout, URL */
// Dev helper: measures jump-to-end and far jumps on the 4 GiB fake artifact in Chromium.
import { chromium } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

const root = 'dist/renderer-dev';
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
await page.route('https://viewer.test/**', (route) => {
  const path = new URL(route.request().url()).pathname.replace(/^\/+/, '') || 'index.html';
  route.fulfill({ body: readFileSync(join(root, path)), contentType: types[extname(path)] });
});
await page.goto('https://viewer.test/index.html');
await page.dblclick('[data-testid=artifact-row] >> nth=3');
await page.click('button:has-text("Show raw bytes")');
await page.waitForSelector('[data-testid=hex-row]');
const cdp = await page.context().newCDPSession(page);
await cdp.send('Profiler.enable');
if (process.env.PROFILE) await cdp.send('Profiler.start');
for (const target of ['end', '0x80000000', '0x10', 'end', '0xC0000000']) {
  const ms = await page.evaluate(async (t) => {
    const input = document.querySelector('[data-testid=goto-input]');
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
    setter.call(input, t);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    input.form.requestSubmit();
    const size = 4 * 2 ** 30;
    const want = t === 'end' ? size - 16 : Math.floor(Number(t) / 16) * 16;
    for (;;) {
      const row = document.querySelector(`[data-testid=hex-row][data-offset="${want}"]`);
      if (row && !row.textContent.includes('··')) return performance.now() - t0;
      await new Promise((r) => requestAnimationFrame(r));
      if (performance.now() - t0 > 10000) return -1;
    }
  }, target);
  console.log(target, Math.round(ms), 'ms');
}
if (process.env.PROFILE) {
  const { profile } = await cdp.send('Profiler.stop');
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas;
  profile.samples.forEach((id, i) => {
    const n = byId.get(id);
    const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`;
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
  });
  console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${(v / 1000).toFixed(0).padStart(6)} ms  ${k}`).join('\n'));
}
await browser.close();
