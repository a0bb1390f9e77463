// UI part of npm run bench:viewer: the real renderer in Chromium through e2e/harness.ts, on the
// vault run.mjs prepared (already indexed). Writes its figures to BENCH_OUT as JSON.
import { test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { launchApp } from '../../e2e/harness';

const vault = process.env.BENCH_VAULT ?? '';
const ref = process.env.BENCH_REF ?? '';
const size = Number(process.env.BENCH_SIZE ?? 0);
const out = process.env.BENCH_OUT ?? '';

test('viewer bench', async () => {
  test.skip(!vault || !ref || !out, 'run through npm run bench:viewer');
  const figures: Record<string, unknown> = {};
  const app = await launchApp({ vault });
  // Time every bridge call main serves (the harness looks the dispatcher up on each call).
  const timings: { method: string; ms: number; at: number }[] = [];
  const dispatcher = app.services.dispatcher as unknown as { call: (...a: unknown[]) => Promise<unknown> };
  const call = dispatcher.call.bind(dispatcher);
  dispatcher.call = async (...a: unknown[]) => {
    const t0 = Date.now();
    try {
      return await call(...a);
    } finally {
      timings.push({ method: String(a[1]), ms: Date.now() - t0, at: t0 });
    }
  };
  try {
    const { page } = app;
    const row = page.locator(`[data-testid=artifact-row][data-ref="${ref}"]`);
    await row.waitFor({ timeout: 60_000 });
    let t = Date.now();
    await row.dblclick();
    await page.locator('[data-testid=text-view]').waitFor({ timeout: 120_000 });
    await page.locator('[data-testid=text-line]').first().waitFor({ timeout: 120_000 });
    figures.first_text_ms = Date.now() - t;

    const prompt = app.nextPrompt();
    await page.getByRole('button', { name: 'Show raw bytes' }).click();
    const p = await prompt;
    await p.getByLabel('Reason').fill('bench:viewer');
    await p.getByLabel('Type the first 8 hex digits of the digest').fill(ref.slice('restricted:sha256:'.length, 'restricted:sha256:'.length + 8));
    t = Date.now();
    await p.getByRole('button', { name: 'Approve' }).click();
    await page.locator('[data-testid=hex-row]').first().waitFor({ state: 'visible', timeout: 60_000 });
    figures.first_rows_ms = Date.now() - t;

    const lastRow = Math.floor((size - 1) / 16) * 16;
    const go = page.locator('[data-testid=goto-input]');
    await go.fill('end');
    const before = app.answers.length;
    // Waits in the page for the renderer's own measure (below) instead of polling the DOM from
    // here: Playwright's polling round trips share the page's main thread and the protocol
    // connection with the bridge answers the jump waits for, and slowed the jump it timed.
    const landed = page.evaluate(() => new Promise<void>((resolve) => {
      const seen = performance.getEntriesByName('airlock:jump', 'measure').length;
      const observer = new PerformanceObserver(() => {
        if (performance.getEntriesByName('airlock:jump', 'measure').length > seen) {
          observer.disconnect();
          resolve();
        }
      });
      observer.observe({ entryTypes: ['measure'] });
    }));
    t = Date.now();
    await go.press('Enter');
    await landed;
    figures.jump_end_wall_ms = Date.now() - t;
    await page.locator(`[data-testid=hex-row][data-offset="${lastRow}"]`).waitFor({ state: 'visible', timeout: 30_000 });
    // The renderer's own User Timing (renderer/src/lib/timing.ts): go-to until the target row is
    // drawn with its bytes, measured in the page (no Playwright polling in it). That is jump_end_ms;
    // the wall time above includes Playwright's DOM polling over CDP.
    const measured = await page.waitForFunction(() => performance.getEntriesByName('airlock:jump', 'measure').at(-1)?.duration ?? null, null, { timeout: 10_000 })
      .then((h) => h.jsonValue() as Promise<number>)
      .catch(() => null);
    figures.jump_end_ms = measured === null ? figures.jump_end_wall_ms : Math.round(measured);
    // Which bridge calls the jump made (for whoever tunes it).
    const calls: Record<string, number> = {};
    for (const a of app.answers.slice(before)) calls[a.method] = (calls[a.method] ?? 0) + 1;
    figures.jump_calls = calls;
    figures.jump_main_ms = timings.filter((x) => x.at >= t).map((x) => `${x.method} ${x.ms}`);

    // Back to the start and to the middle, to exercise re-based windows before measuring the heap.
    for (const where of ['0', String(Math.floor(size / 2)), 'end']) {
      await go.fill(where);
      await go.press('Enter');
      await page.waitForTimeout(300);
    }
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage').catch(() => undefined);
    const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };
    figures.renderer_heap_mb = Math.round((heap.usedSize / 2 ** 20) * 10) / 10;
    figures.renderer_heap_total_mb = Math.round((heap.totalSize / 2 ** 20) * 10) / 10;
    await page.screenshot({ path: 'test-results/bench-viewer/viewer-end.png' }).catch(() => undefined);
  } finally {
    writeFileSync(out, JSON.stringify(figures));
    await app.close();
  }
});
