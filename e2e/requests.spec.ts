// The review queue end to end, through the harness (real renderer build, real services, main's
// prompt as its own page): open Requests → approve through the prompt → the extract is shown;
// deny is direct. Screenshots in test-results/screenshots/ (requests-*.png), both themes.
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchApp, tempDemoVault, REPO, type HarnessApp } from './harness';

const SHOTS = join(REPO, 'test-results/screenshots');
mkdirSync(SHOTS, { recursive: true });

let app: HarnessApp;
let cleanup: () => Promise<void>;

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(SHOTS, `requests-${name}.png`) });
}

test.beforeEach(async () => {
  const tmp = await tempDemoVault();
  cleanup = tmp.cleanup;
  app = await launchApp({ vault: tmp.vault, viewport: { width: 1400, height: 860 } });
  await expect(app.page.getByTestId('vault-browser')).toBeVisible();
});

test.afterEach(async () => {
  await app?.close();
  await cleanup?.();
});

test('open Requests → approve through the prompt → the extract is shown; deny is direct', async () => {
  const { page } = app;
  // Both themes: start in whichever the page has, screenshot, flip, screenshot.
  await page.getByRole('button', { name: 'Requests' }).click();
  await expect(page.getByTestId('requests-view')).toBeVisible();
  const rows = page.getByTestId('request-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute('data-state', 'pending');
  const hexRow = page.locator('[data-testid=request-row]', { hasText: 'hex-range' });
  await hexRow.click();
  await expect(page.getByTestId('request-detail')).toContainText('OSC 52');
  const theme = await page.evaluate(() => document.documentElement.dataset.theme);
  await shot(page, `1-queue-${theme}`);

  // Approve: the renderer only asks; main's prompt shows the extract request, the human answers.
  const promptPromise = app.nextPrompt();
  await page.getByRole('button', { name: 'Approve…' }).click();
  const prompt = await promptPromise;
  await expect(prompt.getByRole('heading', { name: 'Extract of raw bytes requested' })).toBeVisible();
  await expect(prompt.locator('#range')).toContainText('hex dump of bytes');
  await expect(prompt.locator('#requester')).toContainText('via demo');
  const sha = (await prompt.getByTestId('prompt-digest').textContent())!.trim();
  // Still pending while the prompt waits: the click approved nothing.
  expect((await page.evaluate(() => window.airlock.listRequests())).filter((r) => r.state === 'approved')).toEqual([]);
  await prompt.getByLabel('Reason').fill('incident 4711: confirm the clipboard payload');
  await prompt.getByLabel('Type the first 8 hex digits of the digest').fill(sha.slice(0, 8));
  await prompt.screenshot({ path: join(SHOTS, 'requests-2-prompt.png') });
  await prompt.getByRole('button', { name: 'Approve' }).click();

  await expect(page.getByTestId('request-state')).toHaveText('approved');
  const extract = page.getByTestId('request-extract');
  await expect(extract).toContainText('1b 5d 35 32 3b 63 3b');
  await expect(extract).toContainText('^[]52;c;');
  await expect(page.getByTestId('request-detail')).toContainText('incident 4711');
  await shot(page, `3-approved-${theme}`);

  // Deny the other one directly, with a note.
  await page.locator('[data-testid=request-row]', { hasText: 'text' }).first().click();
  await page.getByLabel('Note for a denial').fill('not needed');
  await page.getByRole('button', { name: 'Deny' }).click();
  await expect(page.getByTestId('request-state')).toHaveText('denied');

  // The other theme.
  const other = theme === 'dark' ? 'light' : 'dark';
  await page.getByRole('button', { name: `Switch to ${other} theme` }).click();
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(other);
  await page.locator('[data-testid=request-row]', { hasText: 'hex-range' }).click();
  await expect(page.getByTestId('request-extract')).toBeVisible();
  await shot(page, `4-approved-${await page.evaluate(() => document.documentElement.dataset.theme)}`);

  const actions = await app.auditActions();
  expect(actions.filter((a) => a.startsWith('request.'))).toEqual(['request.created', 'request.created', 'request.approved', 'request.denied']);
  expect(actions).not.toContain('raw.granted');
  // No raw byte reached the page: no bridge answer carried bytes for these methods.
  expect(app.answers.filter((a) => a.method === 'listRequests' || a.method === 'reviewRequest').map((a) => JSON.stringify(a.wire))).not.toContainEqual(expect.stringContaining('$bytes'));
});
