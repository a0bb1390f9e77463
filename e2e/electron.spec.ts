// The shell flow in the real Electron app (Playwright `_electron`): demo vault, the prompt as its
// own window, denial, approval with a reason, hex, revocation. Runs wherever an Electron binary is
// installed; elsewhere (this project's build machines cannot download it) it skips, saying why.
import { _electron as electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error plain .mjs helper without types
import { electronBinary } from '../scripts/electron-path.mjs';
import { REPO } from './harness';

const bin: string | null = electronBinary();
const SKIP = 'no Electron binary installed (node_modules/electron/dist is missing and cannot be downloaded here); e2e/shell.spec.ts runs the same flows in Chromium';
if (!bin) console.warn(`e2e/electron.spec.ts: skipped — ${SKIP}`);

test.describe('Electron app', () => {
  test.skip(!bin, `skipped: ${SKIP}`);
  test.skip(!existsSync(join(REPO, 'dist/app/main.cjs')), 'skipped: dist/app/main.cjs is missing; run npm run build');

  let app: ElectronApplication;
  let userData: string;

  test.beforeEach(async () => {
    userData = await mkdtemp(join(tmpdir(), 'airlock-electron-'));
    await chmod(userData, 0o700);
    app = await electron.launch({
      executablePath: bin!,
      args: [join(REPO, 'dist/app/main.cjs'), ...(process.env.CI ? ['--no-sandbox'] : [])],
      env: { ...process.env, AIRLOCK_VAULT: '', AIRLOCK_USER_DATA: userData, XDG_DATA_HOME: join(userData, 'xdg'), AIRLOCK_GRANT_TTL_MS: '5000' },
    });
  });
  test.afterEach(async () => {
    await app?.close();
    await rm(userData, { recursive: true, force: true });
  });

  test('demo vault → prompt window → deny → approve → hex → revoke', async () => {
    const page = await app.firstWindow();
    expect(page.url()).toBe('airlock://app/index.html');
    await expect(page.getByTestId('vault-browser')).toBeVisible();
    expect(await page.evaluate(() => typeof (window as unknown as { require?: unknown }).require)).toBe('undefined');
    expect(await page.evaluate(() => typeof (window as unknown as { process?: unknown }).process)).toBe('undefined');
    await page.getByTestId('artifact-row').first().dblclick();
    await expect(page.getByTestId('text-view')).toBeVisible();

    const answer = async (decision: 'approve' | 'deny') => {
      const prompt: Page = await app.waitForEvent('window');
      expect(prompt.url()).toBe('airlock://prompt/index.html');
      await prompt.getByLabel('Reason').fill('electron e2e');
      if (decision === 'approve') {
        const digest = (await prompt.getByTestId('prompt-digest').textContent())!.trim();
        await prompt.getByLabel('Type the first 8 hex digits of the digest').fill(digest.slice(0, 8));
        await prompt.getByRole('button', { name: 'Approve' }).click();
      } else {
        await prompt.getByRole('button', { name: 'Deny' }).click();
      }
    };
    await Promise.all([answer('deny'), page.getByRole('button', { name: 'Show raw bytes' }).click()]);
    await expect(page.getByTestId('raw-denied')).toBeVisible();
    await Promise.all([answer('approve'), page.getByRole('button', { name: 'Show raw bytes' }).click()]);
    await expect(page.getByTestId('hex-row').first()).toBeVisible();
    await page.getByTestId('grant-banner').getByRole('button', { name: 'Revoke' }).click();
    await expect(page.getByTestId('grant-banner')).toBeHidden();
  });
});
