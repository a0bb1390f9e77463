// Opening your own file where the app runs as the preview (the harness, no Electron): "Open file…"
// shows a picker page whose chosen path main's import service reads (the renderer never names a
// path), and `--open FILE` (what `airlock open FILE` starts the preview with) imports the file
// and opens it. Screenshot: test-results/screenshots/preview-picker.png.
import { expect, test } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pickFile } from './file-picker';
import { launchApp, tempDemoVault, REPO, type HarnessApp } from './harness';
import { openAtStart, previewArgs } from './preview';

const SHOTS = join(REPO, 'test-results/screenshots');
mkdirSync(SHOTS, { recursive: true });

let app: HarnessApp | undefined;
let cleanup: (() => Promise<void>) | undefined;
test.afterEach(async () => {
  await app?.close();
  await cleanup?.();
  app = undefined;
});

test('Open file… in the preview: a picker page, the path typed or browsed to, imported by main', async () => {
  const tmp = await tempDemoVault();
  cleanup = tmp.cleanup;
  const dir = join(tmp.dir, 'incident');
  mkdirSync(dir);
  await writeFile(join(dir, 'pager.log'), 'paged at 03:12 \x1b]8;;https://evil.example/x\x1b\\runbook\x1b]8;;\x1b\\\n');
  app = await launchApp({ vault: tmp.vault, viewport: { width: 1280, height: 800 }, pickFile: (context) => pickFile(context, tmp.dir) });
  const { page } = app;
  const picker = app.context.waitForEvent('page');
  await page.getByRole('button', { name: 'Open file…' }).click();
  const p = await picker;
  // Browse: into the directory, then the file; the picker page has no window.airlock.
  await p.getByRole('button', { name: 'incident/' }).click();
  await p.getByRole('button', { name: 'pager.log' }).click();
  await expect(p.getByLabel('Path of the file to import')).toHaveValue(join(dir, 'pager.log'));
  expect(await p.evaluate(() => 'airlock' in window)).toBe(false);
  await p.screenshot({ path: join(SHOTS, 'preview-picker.png') });
  // A directory or a missing file is refused in the picker, without closing it.
  await p.getByLabel('Path of the file to import').fill(join(dir, 'missing.log'));
  await p.getByRole('button', { name: 'Open' }).click();
  await expect(p.getByRole('alert')).toContainText('no such file');
  await p.getByLabel('Path of the file to import').fill(join(dir, 'pager.log'));
  await p.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByTestId('text-view')).toContainText('paged at 03:12');
  await expect(page.locator('.toolbar .title')).toHaveText('pager.log');
  expect(await app.auditActions()).toContain('artifact.imported');

  // Cancel: nothing is imported.
  await page.getByRole('button', { name: 'Back to the vault' }).click();
  const before = (await app.auditActions()).length;
  const again = app.context.waitForEvent('page');
  await page.getByRole('button', { name: 'Open file…' }).click();
  await (await again).getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('vault-browser')).toBeVisible();
  expect((await app.auditActions()).length).toBe(before);
});

test('--open FILE (as airlock open starts the preview): imported, then opened at once', async () => {
  const tmp = await tempDemoVault();
  cleanup = tmp.cleanup;
  const file = join(tmp.dir, 'opened.log');
  await writeFile(file, 'opened from the command line \x1b[31mred\x1b[0m\n');
  expect(previewArgs(['--vault', tmp.vault, `--open=${file}`])).toEqual({ vault: tmp.vault, open: file });
  expect(() => previewArgs(['--evil'])).toThrow(/unknown argument/);
  app = await launchApp({ vault: tmp.vault, viewport: { width: 1280, height: 800 } });
  const ref = await openAtStart(app, file);
  expect(ref).toMatch(/^restricted:sha256:[0-9a-f]{64}$/);
  await expect(app.page.getByTestId('text-view')).toContainText('opened from the command line');
});
