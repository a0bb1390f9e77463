// The desktop shell end to end: demo vault, sanitized view without a grant, the prompt, denial
// (no raw byte reaches the page), approval with a reason (hex), expiry and revocation, the audit
// log, and forged bridge calls from the page. Screenshots: test-results/screenshots/.
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchApp, tempDemoVault, REPO, type HarnessApp } from './harness';

const SHOTS = join(REPO, 'test-results/screenshots');
mkdirSync(SHOTS, { recursive: true });

/** Unique marker inside an OSC 52 payload: the sanitizer removes it; only raw bytes hold it. */
const MARKER = `AIRLOCKMARK${Date.now().toString(36).toUpperCase()}Q`;
const hex = Buffer.from(MARKER).toString('hex');
const markerForms = [MARKER, hex, hex.toUpperCase(), spaced(hex), spaced(hex.toUpperCase()), Buffer.from(MARKER).toString('base64')];
function spaced(h: string): string {
  return h.slice(0, 24).replace(/(..)(?!$)/g, '$1 ');
}

let app: HarnessApp;
let cleanup: () => Promise<void>;
let markerRef = '';
let markerSha = '';

async function setup(opts: { grantTtlMs?: number } = {}): Promise<void> {
  const tmp = await tempDemoVault();
  cleanup = tmp.cleanup;
  const file = join(tmp.dir, 'incident-4711.log');
  await writeFile(file, Buffer.from(`deploy ok\n\x1b]52;c;${MARKER}\x07visible tail line\n\x1b[31mred\x1b[0m done\n`));
  // These flows deny and then approve from the same window at once: a short back-off (boundary.spec.ts tests the real one).
  app = await launchApp({ vault: tmp.vault, grantTtlMs: opts.grantTtlMs, promptBackoffBaseMs: 1 });
  // Import through the bridge as "Open file…" does (main's dialog answers with our file).
  app.setNextOpenFile(file);
  const rec = await app.page.evaluate(() => window.airlock.openFile());
  markerRef = rec!.artifacts[0].ref;
  markerSha = rec!.artifacts[0].sha256;
}

async function teardown(): Promise<void> {
  await app?.close();
  await cleanup?.();
}

/** Asserts no form of the marker is in the DOM (text and attributes) or in any bridge answer. */
async function assertNoRawBytes(page: Page): Promise<void> {
  const html = await page.content();
  const text = await page.evaluate(() => document.body.innerText);
  const answers = JSON.stringify(app.answers);
  for (const form of markerForms) {
    expect(html, `DOM holds ${form}`).not.toContain(form);
    expect(text).not.toContain(form);
    expect(answers, `a bridge answer holds ${form}`).not.toContain(form);
  }
  expect(app.answers.some((a) => a.method === 'readRaw' && (a.wire as { ok: boolean }).ok)).toBe(false);
}

async function answerPrompt(prompt: Page, decision: 'approve' | 'deny', reason = 'incident 4711: confirm the clipboard payload'): Promise<void> {
  await expect(prompt.getByTestId('prompt-digest')).toContainText(markerSha);
  await prompt.getByLabel('Reason').fill(reason);
  if (decision === 'approve') {
    await prompt.getByLabel('Type the first 8 hex digits of the digest').fill(markerSha.slice(0, 8));
    await prompt.getByRole('button', { name: 'Approve' }).click();
  } else {
    await prompt.getByRole('button', { name: 'Deny' }).click();
  }
}

declare global {
  interface Window {
    airlock: import('../shared/bridge/contract').AirlockBridge;
    /** The harness binding: the wire answer as one JSON string. */
    __airlockIpc(channel: string, method: string, args: unknown[]): Promise<string>;
  }
}

test.describe('shell flows through the bridge', () => {
  test.beforeEach(async () => setup());
  test.afterEach(teardown);

  test('demo vault, sanitized report, prompt, denial, approval, revocation, audit', async () => {
    const { page } = app;
    const records = await page.evaluate(() => window.airlock.listRecords());
    expect(records.length).toBe(6);
    const info = await page.evaluate(() => window.airlock.getVaultInfo());
    expect(info).toMatchObject({ demo: true, windowId: 1 });
    const report = await page.evaluate((ref) => window.airlock.getReport(ref), markerRef);
    expect(report.removed_spans).toBeGreaterThan(0);

    // Denied: the prompt is its own page; the viewer gets nothing.
    const denied = page.evaluate((ref) => window.airlock.requestRawAccess(ref, { reason: 'triage' }), markerRef);
    const prompt = await app.nextPrompt();
    await expect(prompt.getByRole('heading', { name: 'Raw byte access requested' })).toBeVisible();
    await expect(prompt.getByTestId('prompt-source')).toContainText('incident-4711.log');
    await prompt.screenshot({ path: join(SHOTS, 'prompt.png'), fullPage: true });
    await answerPrompt(prompt, 'deny', 'not needed');
    expect(await denied).toMatchObject({ state: 'denied' });
    await assertNoRawBytes(page);

    // Approved with a reason: readRaw returns the bytes.
    const granted = page.evaluate((ref) => window.airlock.requestRawAccess(ref, {}), markerRef);
    await answerPrompt(await app.nextPrompt(), 'approve');
    const outcome = await granted;
    expect(outcome.state).toBe('granted');
    const grantId = outcome.state === 'granted' ? outcome.grant.id : '';
    const bytes = await page.evaluate(async (g) => Array.from((await window.airlock.readRaw(g, 0, 64)).bytes), grantId);
    expect(Buffer.from(bytes).toString('latin1')).toContain(MARKER.slice(0, 20));
    await page.evaluate((g) => window.airlock.revokeGrant(g), grantId);
    await expect(page.evaluate((g) => window.airlock.readRaw(g, 0, 4), grantId)).rejects.toThrow(/\[no-grant\]/);
    const actions = await app.auditActions();
    for (const a of ['artifact.imported', 'raw.requested', 'raw.denied', 'raw.granted', 'raw.opened', 'raw.revoked', 'bridge.refused']) expect(actions).toContain(a);
    expect((await app.services.audit.verify()).ok).toBe(true);
  });

  test('forged calls from the page fail clearly, are audited, and release nothing', async () => {
    const { page } = app;
    const results = await page.evaluate(async ({ ref, sha }) => {
      const out: Record<string, string> = {};
      const tryIt = async (name: string, fn: () => Promise<unknown>) => {
        try {
          out[name] = `ok ${JSON.stringify(await fn())}`;
        } catch (e) {
          out[name] = (e as Error).message;
        }
      };
      await tryIt('noGrant', () => window.airlock.readRaw(`g-${'0'.repeat(32)}`, 0, 64));
      await tryIt('traversal', () => window.airlock.getReport('../../etc/passwd'));
      await tryIt('traversalRaw', () => window.airlock.readRaw('../../etc/passwd', 0, 64));
      await tryIt('oversized', () => window.airlock.readRaw(`g-${'0'.repeat(32)}`, 0, (1 << 20) + 1));
      await tryIt('approveFromMain', () => window.__airlockIpc('prompt', 'answerPrompt', [{ decision: 'approve', reason: 'me', confirm: sha.slice(0, 8) }]).then((t) => JSON.parse(t) as { ok: boolean; code?: string; message?: string }).then((w) => { if (!w.ok) throw new Error(`[${w.code}] ${w.message}`); return w; }));
      await tryIt('unknownMethod', () => window.__airlockIpc('viewer', 'createGrant', [ref]).then((t) => JSON.parse(t) as { ok: boolean; code?: string; message?: string }).then((w) => { if (!w.ok) throw new Error(`[${w.code}] ${w.message}`); return w; }));
      return out;
    }, { ref: markerRef, sha: markerSha });
    expect(results.noGrant).toMatch(/^\[no-grant\]/);
    expect(results.traversal).toMatch(/^\[bad-request\] getReport: argument 1/);
    expect(results.traversalRaw).toMatch(/^\[bad-request\]/);
    expect(results.oversized).toMatch(/^\[too-large\]/);
    expect(results.approveFromMain).toMatch(/^\[forbidden\]/);
    expect(results.unknownMethod).toMatch(/^\[bad-request\] unknown method/);
    for (const r of Object.values(results)) for (const form of markerForms) expect(r).not.toContain(form);
    const refused = (await app.services.audit.list()).filter((l) => 'entry' in l && l.entry.action === 'bridge.refused');
    expect(refused.length).toBeGreaterThanOrEqual(6);
    await assertNoRawBytes(page);
  });
});

test.describe('another window and expiry', () => {
  test.beforeEach(async () => setup({ grantTtlMs: 2500 }));
  test.afterEach(teardown);

  test("an expired grant and another window's grant are refused", async () => {
    const { page } = app;
    const granted = page.evaluate((ref) => window.airlock.requestRawAccess(ref, {}), markerRef);
    await answerPrompt(await app.nextPrompt(), 'approve');
    const outcome = await granted;
    const grantId = outcome.state === 'granted' ? outcome.grant.id : '';
    // Another viewer window (its own id) cannot use this window's grant.
    const second = await app.openViewer();
    expect(await second.evaluate(() => window.airlock.getVaultInfo().then((i) => i.windowId))).toBe(2);
    await expect(second.evaluate((g) => window.airlock.readRaw(g, 0, 4), grantId)).rejects.toThrow(/\[forbidden\] grant .* does not belong to this window/);
    await expect(second.evaluate((g) => window.airlock.revokeGrant(g), grantId)).rejects.toThrow(/\[forbidden\]/);
    expect(await second.evaluate(() => window.airlock.listGrants())).toEqual([]);
    await second.close();
    // A page of the same origin that main did not create is refused outright.
    const stray = await app.context.newPage();
    await stray.goto('http://app.localhost/index.html');
    await expect(stray.evaluate(() => window.airlock.listRecords())).rejects.toThrow(/\[forbidden\]/);
    await stray.close();
    // The grant still works in its own window until it expires.
    expect(await page.evaluate(async (g) => (await window.airlock.readRaw(g, 0, 4)).bytes.length, grantId)).toBe(4);
    await page.waitForTimeout(3000);
    await expect(page.evaluate((g) => window.airlock.readRaw(g, 0, 4), grantId)).rejects.toThrow(/\[expired\]/);
    expect(await app.auditActions()).toContain('raw.expired');
  });
});

test.describe('the viewer UI', () => {
  test.beforeEach(async () => setup({ grantTtlMs: 8000 }));
  test.afterEach(teardown);

  test('vault browser → sanitized view → raw asks → denied → approved hex → revoke → expiry', async () => {
    const { page } = app;
    await page.reload();
    const browser = page.getByTestId('vault-browser');
    await expect(browser).toBeVisible();
    await expect(page.getByTestId('artifact-row').first()).toBeVisible();
    await page.screenshot({ path: join(SHOTS, 'vault-browser.png') });

    const row = page.locator(`[data-testid=artifact-row][data-ref="${markerRef}"]`);
    await row.dblclick();
    await expect(page.getByTestId('text-view')).toContainText('visible tail line');
    await expect(page.getByTestId('report-panel')).toBeVisible();
    await page.screenshot({ path: join(SHOTS, 'sanitized-view.png') });
    // Layout seen in the screenshots: the minimap (and its viewport box) ends above the status bar,
    // and pane headers stay one line at this width.
    const layout = await page.evaluate(() => {
      const box = (sel: string) => document.querySelector(sel)?.getBoundingClientRect() ?? null;
      const heads = [...document.querySelectorAll('.pane-head > span')].map((e) => e.getBoundingClientRect().height);
      return { map: box('[data-testid=minimap]')?.bottom, view: box('.minimap-view')?.bottom, status: box('.statusbar')?.top, heads };
    });
    expect(layout.map).toBeLessThanOrEqual(layout.status! + 0.5);
    expect(layout.view ?? 0).toBeLessThanOrEqual(layout.status! + 0.5);
    for (const h of layout.heads) expect(h).toBeLessThan(24);
    await assertNoRawBytes(page);
    expect(await app.auditActions()).not.toContain('raw.granted');

    await page.getByRole('button', { name: 'Show raw bytes' }).click();
    let prompt = await app.nextPrompt();
    await answerPrompt(prompt, 'deny', 'wrong artifact');
    await expect(page.getByTestId('raw-denied')).toBeVisible();
    await page.screenshot({ path: join(SHOTS, 'denied.png') });
    await assertNoRawBytes(page);

    await page.getByRole('button', { name: 'Show raw bytes' }).click();
    prompt = await app.nextPrompt();
    await answerPrompt(prompt, 'approve');
    await expect(page.getByTestId('hex-row').first()).toBeVisible();
    await expect(page.getByTestId('grant-banner')).toBeVisible();
    await page.screenshot({ path: join(SHOTS, 'hex-granted.png') });
    await page.getByTestId('grant-banner').getByRole('button', { name: 'Revoke' }).click();
    await expect(page.getByTestId('grant-banner')).toBeHidden();

    await page.getByRole('button', { name: 'Show raw bytes' }).click();
    await answerPrompt(await app.nextPrompt(), 'approve');
    await expect(page.getByTestId('grant-banner')).toBeVisible();
    await expect(page.getByTestId('grant-banner')).toBeHidden({ timeout: 20_000 });
    // The page drops the grant at its expiry by its own clock; main's timer audits it a moment later.
    await expect.poll(() => app.auditActions(), { timeout: 5000 }).toContain('raw.expired');
    const actions = await app.auditActions();
    for (const a of ['raw.requested', 'raw.denied', 'raw.granted', 'raw.opened', 'raw.revoked', 'raw.expired']) expect(actions).toContain(a);
  });
});
