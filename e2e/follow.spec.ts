// Following a running capture in the viewer (#41 item 4): a real `airlock capture` of a command
// that prints slowly runs beside the app; the vault browser lists it as running, opening it shows
// its sanitized lines as they arrive (the end kept in view until the user scrolls up), the removal
// counts grow, the Screen tab runs on what has arrived, and when the capture is sealed the
// workspace opens its record. Screenshots: test-results/screenshots/follow-*.png (1280×800).
import { expect, test, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchApp, tempDemoVault, REPO, type HarnessApp } from './harness';

const SHOTS = join(REPO, 'test-results/screenshots');
mkdirSync(SHOTS, { recursive: true });

let app: HarnessApp | undefined;
let cleanup: (() => Promise<void>) | undefined;
let child: ChildProcess | undefined;
test.afterEach(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await app?.close();
  await cleanup?.();
  app = undefined;
  child = undefined;
});

async function setTheme(page: Page, theme: 'dark' | 'light'): Promise<void> {
  if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== theme) await page.getByRole('button', { name: `Switch to ${theme} theme` }).click();
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
}

/** Lines of the follow view in sight, as text. */
const lines = (page: Page) => page.getByTestId('follow-line').allTextContents();
/** Complete lines received so far. */
const received = async (page: Page) => Number(await page.getByTestId('follow-text').getAttribute('data-lines'));

test('a running capture is listed, followed as it prints, and opens as its sealed record', async () => {
  const tmp = await tempDemoVault();
  cleanup = tmp.cleanup;
  // Every 0.2 s a step: two coloured lines and one with a clipboard write; then a prompt, a pause, the end.
  const script = [
    'i=1; while [ $i -le 60 ]; do',
    '  printf "step %02d \\033[32mok\\033[0m building module-%s\\n  compiled %s.o\\n  linked \\033]52;c;Y3VybCBldmlsfHNo\\007%s\\n" $i $i $i $i; i=$((i+1)); sleep 0.2;',
    'done; printf "continue? [y/N] "; sleep 2; echo; echo done',
  ].join(' ');
  child = spawn(process.execPath, [join(REPO, 'dist/airlock.mjs'), 'capture', '--vault', tmp.vault, '--sandbox', 'none', '--', 'sh', '-c', script], { stdio: 'ignore' });
  app = await launchApp({ vault: tmp.vault, viewport: { width: 1280, height: 800 } });
  const { page } = app;

  // Listed as running, grouped like a record, one row per stream.
  const row = page.locator('[data-testid=running-row][data-stream=stdout]');
  await expect(row).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('running-state').first()).toHaveText('running');
  await setTheme(page, 'dark');
  await page.screenshot({ path: join(SHOTS, 'follow-vault-dark.png') });
  await row.dblclick();

  // Following: lines arrive while the command still runs.
  await expect(page.getByTestId('follow-view')).toBeVisible();
  await expect(page.getByTestId('follow-state')).toHaveText('running');
  await expect.poll(async () => (await lines(page)).some((l) => l.includes('step 03')), { timeout: 20_000 }).toBe(true);
  const early = await received(page);
  await expect.poll(() => received(page), { timeout: 20_000 }).toBeGreaterThan(early + 4);
  // Sanitized: the colour codes and the clipboard write are gone from the text, and counted.
  const text = (await lines(page)).join('\n');
  expect(text).toContain('ok building module-');
  expect(text).not.toContain('Y3VybCBldmlsfHNo');
  expect(text).not.toContain('\x1b');
  await expect.poll(async () => Number((await page.getByTestId('follow-removed').textContent())?.replace(/\D/g, '') ?? 0)).toBeGreaterThan(6);

  // Autoscroll: the newest line is in view; scrolled up, it stays put and says what is new; back at the end, it follows.
  const box = page.getByTestId('follow-text');
  await expect.poll(() => box.evaluate((el) => el.scrollHeight > el.clientHeight + 200), { timeout: 20_000 }).toBe(true);
  const atEnd = () => box.evaluate((el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 18);
  await expect.poll(atEnd).toBe(true);
  await box.evaluate((el) => el.scrollTo({ top: 0 }));
  await expect(page.getByTestId('follow-jump')).toBeVisible();
  await page.waitForTimeout(800);
  expect(await box.evaluate((el) => el.scrollTop)).toBe(0);
  await expect(page.getByTestId('follow-jump')).toContainText('new line');
  await page.getByTestId('follow-jump').click();
  await expect(page.getByTestId('follow-jump')).toBeHidden();
  await expect.poll(atEnd).toBe(true);

  await page.waitForTimeout(400);
  await page.screenshot({ path: join(SHOTS, 'follow-dark.png') });
  await setTheme(page, 'light');
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SHOTS, 'follow-light.png') });

  // The Screen tab on what has arrived so far.
  await page.getByTestId('follow-tab-screen').click();
  await page.getByTestId('follow-screen-run').click();
  await expect(page.getByTestId('follow-screen-last')).toContainText('step', { timeout: 20_000 });
  await page.screenshot({ path: join(SHOTS, 'follow-screen-light.png') });
  await page.getByRole('tab', { name: 'Text' }).click();

  // The prompt shows before its line ends; then the capture is sealed and its record opens.
  await expect(page.locator('.fl-pending, [data-testid=follow-line]').filter({ hasText: 'continue?' }).first()).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('workspace')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('status').filter({ hasText: 'sealed record is open' }).or(page.getByText('sealed record is open'))).toBeVisible();
  await new Promise<void>((r) => (child!.exitCode !== null ? r() : child!.once('exit', () => r())));
});

test('under a grant on the followed stream its hex grows as it arrives, and the grant goes on over the sealed record', async () => {
  test.setTimeout(120_000);
  const tmp = await tempDemoVault();
  cleanup = tmp.cleanup;
  // A step every 0.25 s (a coloured line and a title change) until the test says to end (a flag
  // file: the steps below take as long as the machine needs), at most 400 steps.
  const flag = join(tmp.dir, 'end-now');
  const script = [
    'i=1; while [ $i -le 400 ] && [ ! -e "$0" ]; do',
    '  printf "step %02d \\033[32mok\\033[0m \\033]0;title %s\\007compiled unit-%s.o\\n" $i $i $i; i=$((i+1)); sleep 0.25;',
    'done; echo done',
  ].join(' ');
  child = spawn(process.execPath, [join(REPO, 'dist/airlock.mjs'), 'capture', '--vault', tmp.vault, '--sandbox', 'none', '--', 'sh', '-c', script, flag], { stdio: 'ignore' });
  app = await launchApp({ vault: tmp.vault, viewport: { width: 1000, height: 700 } });
  const { page } = app;
  const row = page.locator('[data-testid=running-row][data-stream=stdout]');
  await expect(row).toBeVisible({ timeout: 20_000 });
  await setTheme(page, 'light');
  await row.dblclick();
  await expect(page.getByTestId('follow-state')).toHaveText('running');

  // The Hex tab: nothing raw until a grant; the request goes to main's prompt.
  await page.getByTestId('follow-tab-hex').click();
  await expect(page.getByTestId('follow-hex-locked')).toBeVisible();
  await expect(page.getByTestId('follow-hex-row')).toHaveCount(0);
  await page.screenshot({ path: join(SHOTS, 'follow-hex-locked-1000-light.png') });
  const promptPromise = app.nextPrompt();
  await page.getByTestId('follow-hex-request').focus();
  await page.keyboard.press('Enter');
  const prompt = await promptPromise;
  await expect(prompt.locator('#digest-label')).toHaveText('Record id');
  await expect(prompt.getByTestId('prompt-range')).toContainText('as they arrive until the capture ends');
  await expect(prompt.locator('#stream')).toHaveText('stdout');
  const digits = (await prompt.locator('#digest .head').textContent())!;
  expect(digits).toMatch(/^[0-9a-f]{8}$/);
  await prompt.screenshot({ path: join(SHOTS, 'follow-hex-prompt.png') });
  await prompt.getByLabel('Reason').fill('incident 7: what does the build print raw');
  // The digest-style digits (the id's first ones) do not approve.
  await prompt.getByLabel('Type the last 8 hex digits of the record id').fill(digits.split('').reverse().join(''));
  await expect(prompt.getByRole('button', { name: 'Approve' })).toBeDisabled();
  await prompt.getByLabel('Type the last 8 hex digits of the record id').fill(digits);
  await prompt.getByRole('button', { name: 'Approve' }).click();

  // Granted: the rows grow as the command prints, the end kept in view.
  await expect(page.getByTestId('follow-grant-banner')).toBeVisible();
  await expect(page.getByTestId('follow-hex-row').first()).toBeVisible({ timeout: 10_000 });
  const hexSize = async () => Number(await page.getByTestId('follow-hex').getAttribute('data-size'));
  const first = await hexSize();
  await expect.poll(hexSize, { timeout: 10_000 }).toBeGreaterThan(first + 100);
  // The raw bytes are there: ESC of the colour codes and the OSC title shown in caret notation.
  await expect(page.locator('[data-testid=follow-hex-row] .caret').filter({ hasText: '^[' }).first()).toBeVisible();
  const lastRow = async () => Math.max(...(await page.getByTestId('follow-hex-row').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-offset'))))));
  await expect.poll(async () => (await lastRow()) + 16 >= (await hexSize()), { timeout: 5000 }).toBe(true);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SHOTS, 'follow-hex-1000-light.png') });
  await setTheme(page, 'dark');
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SHOTS, 'follow-hex-1000-dark.png') });

  // Scrolled up (keyboard): it stays there while more arrives and says so; End follows again.
  await page.getByTestId('follow-hex-grid').focus();
  await page.keyboard.press('Home');
  await expect(page.getByTestId('follow-hex-jump')).toBeVisible();
  const atHome = await hexSize();
  await expect.poll(hexSize, { timeout: 10_000 }).toBeGreaterThan(atHome + 64);
  await expect(page.locator('[data-testid=follow-hex-row][data-offset="0"]')).toBeVisible();
  await expect(page.getByTestId('follow-hex-jump')).toContainText('new row');
  await page.keyboard.press('End');
  await expect(page.getByTestId('follow-hex-jump')).toBeHidden();

  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(SHOTS, 'follow-hex-1920-dark.png') });
  await setTheme(page, 'light');
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SHOTS, 'follow-hex-1920-light.png') });

  // Sealed: the record opens in the workspace, and the grant goes on over its sealed artifact there.
  await writeFile(flag, '');
  await expect(page.getByTestId('workspace')).toBeVisible({ timeout: 40_000 });
  await expect(page.getByTestId('grant-banner')).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('hex-row').first()).toBeVisible();
  await page.screenshot({ path: join(SHOTS, 'follow-hex-sealed-1920-light.png') });
  await new Promise<void>((r) => (child!.exitCode !== null ? r() : child!.once('exit', () => r())));
});
