// The desktop boundary attacked from the page, as a compromised renderer would (issue #37): forged
// calls through window.airlock get no span value without a grant; requestRawAccess cannot spam the
// prompt, and its reason shows as quoted, untrusted words; one window's long query does not hold
// main (another window is answered meanwhile); the screen view obeys the one-reading rule.
// Screenshots: test-results/screenshots/boundary-*.png.
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchApp, tempDemoVault, REPO, type HarnessApp } from './harness';

const SHOTS = join(REPO, 'test-results/screenshots');
mkdirSync(SHOTS, { recursive: true });

/** Upper-case letters, none of them kept text in the artifact below. */
const MARKER = 'QZJXVKWPGY';
const codes = [...MARKER].map((c) => c.charCodeAt(0));

/** Removed spans that carry MARKER: tag characters, invalid bytes, an OSC 52 payload, withheld text. */
function artifact(): Buffer {
  return Buffer.concat([
    Buffer.from(`deploy started\ntags: x${codes.map((c) => String.fromCodePoint(0xe0000 + c)).join('')} y\nbytes: `),
    Buffer.from(codes.flatMap((c) => [0x80 | c, 0x20])),
    Buffer.from(`\nclip \x1b]52;c;${MARKER}\x07 ok\nwithheld: `),
    Buffer.from([0x9d]),
    Buffer.from(`${MARKER}\x07 done\n`),
  ]);
}

let app: HarnessApp;
let cleanup: () => Promise<void>;
let ref = '';
let sha = '';
let size = 0;

async function importAndOpen(page: Page, file: string): Promise<{ ref: string; sha: string; size: number }> {
  app.setNextOpenFile(file);
  await expect(page.getByTestId('vault-browser')).toBeVisible();
  await page.getByRole('button', { name: 'Open file…' }).click();
  await expect(page.getByTestId('text-view')).toBeVisible();
  const a = await page.evaluate(async (name) => (await window.airlock.listRecords()).find((r) => r.title.endsWith(name))!.artifacts[0], file.split('/').pop()!);
  // Queries answer 'unavailable' while the index (spans, text and the secrets column) is built.
  await expect.poll(() => page.evaluate(async (r) => (await window.airlock.getIndexStatus(r)).state, a.ref)).toBe('done');
  return { ref: a.ref, sha: a.sha256, size: a.size };
}

test.beforeEach(async () => {
  const tmp = await tempDemoVault();
  cleanup = tmp.cleanup;
  const file = join(tmp.dir, 'leaky.log');
  await writeFile(file, artifact());
  app = await launchApp({ vault: tmp.vault, viewport: { width: 1400, height: 900 } });
  ({ ref, sha, size } = await importAndOpen(app.page, file));
});

test.afterEach(async () => {
  await app?.close();
  await cleanup?.();
});

/** No answer the page received holds a span value or the marker in any encoding. */
function assertNoValues(): void {
  const answers = JSON.stringify(app.answers.filter((a) => a.method !== 'getSpanValues'));
  // A span value would be a number under "code" (an error's code is a word).
  expect(answers).not.toMatch(/"code":-?\d/);
  const hex = Buffer.from(MARKER).toString('hex');
  for (const form of [MARKER, hex, codes.map((c) => (0xe0000 + c).toString(16)).join(''), Buffer.from(MARKER).toString('base64')]) {
    expect(answers.toLowerCase(), form).not.toContain(form.toLowerCase());
  }
}

test('span values: chips say class and meaning; forged calls get no value; the value once granted', async () => {
  const { page } = app;
  const chips = page.locator('[data-testid=chip]');
  await expect(chips.first()).toBeVisible();
  await expect(page.locator('[data-testid=chip].cls-invisible').first()).toContainText('tag character');
  await expect(page.locator('[data-testid=chip].cls-invalid_utf8').first()).toContainText('invalid, 1 byte');
  const text = await page.locator('[data-testid=text-view]').innerText();
  expect(text).not.toMatch(/U\+E00|\\x[d-f][0-9a-f]/i);
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(SHOTS, 'boundary-chips-no-grant.png') });

  // A compromised renderer asks for everything it can think of.
  const forged = await page.evaluate(async ({ ref, size }) => {
    const out: Record<string, string> = {};
    const grab = async (name: string, f: () => Promise<unknown>) => {
      try {
        out[name] = `ok ${JSON.stringify(await f())}`;
      } catch (e) {
        out[name] = String((e as Error).message);
      }
    };
    const a = window.airlock;
    await grab('spans', () => a.getSpans(ref, 0, size));
    await grab('lines', () => a.getTextLines(ref, 0, 50));
    await grab('find', () => a.findSpan(ref, 0, 1, { cls: 10 }));
    await grab('position', () => a.textPositionOf(ref, 25));
    await grab('values: forged grant', () => a.getSpanValues(`g-${'a'.repeat(32)}`, 0, size));
    await grab('values: not a grant id', () => a.getSpanValues(ref as never, 0, size));
    await grab('values: too long', () => a.getSpanValues(`g-${'a'.repeat(32)}`, 0, 1 << 30));
    await grab('raw: forged grant', () => a.readRaw(`g-${'b'.repeat(32)}`, 0, 64));
    await grab('search: marker', () => a.searchText(ref, 'QZJXVKWPGY', {}));
    return out;
  }, { ref, size });
  expect(forged['spans']).toMatch(/^ok /);
  expect(forged['spans']).not.toMatch(/"code":-?\d/);
  expect(forged['lines']).not.toMatch(/"code":-?\d/);
  expect(forged['find']).toMatch(/^ok \{"index"/);
  expect(forged['values: forged grant']).toMatch(/^\[no-grant\]/);
  expect(forged['values: not a grant id']).toMatch(/^\[bad-request\]/);
  expect(forged['values: too long']).toMatch(/^\[bad-request\]/);
  expect(forged['raw: forged grant']).toMatch(/^\[no-grant\]/);
  expect(forged['search: marker']).toMatch(/"total":0/);
  assertNoValues();

  // Another window's grant gives this window nothing.
  const other = await app.openViewer();
  const granted = other.evaluate((r) => window.airlock.requestRawAccess(r, {}), ref);
  await approvePrompt(await app.nextPrompt());
  const grant = await granted;
  expect(grant.state).toBe('granted');
  const grantId = grant.state === 'granted' ? grant.grant.id : '';
  expect(await page.evaluate(async ({ g, size }) => window.airlock.getSpanValues(g, 0, size).then(() => 'ok', (e: Error) => e.message), { g: grantId, size })).toMatch(/^\[forbidden\]/);
  assertNoValues();

  // This window's own grant: the chips show their values.
  const promptPromise = app.nextPrompt();
  await page.getByRole('button', { name: 'Show raw bytes' }).click();
  await approvePrompt(await promptPromise);
  await expect(page.locator('[data-testid=chip].cls-invisible').first()).toContainText('U+E0051');
  await expect(page.locator('[data-testid=chip].cls-invalid_utf8').first()).toContainText('\\xd1');
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(SHOTS, 'boundary-chips-granted.png') });
  // Revoked: the values leave with the grant.
  await page.getByRole('button', { name: 'Revoke' }).click();
  await expect(page.locator('[data-testid=chip].cls-invisible').first()).toContainText('tag character');
});

async function approvePrompt(prompt: Page): Promise<void> {
  await expect(prompt.getByTestId('prompt-digest')).toContainText(sha);
  await prompt.getByLabel('Reason').fill('incident 37: the hidden characters');
  await prompt.getByLabel('Type the first 8 hex digits of the digest').fill(sha.slice(0, 8));
  await prompt.getByRole('button', { name: 'Approve' }).click();
}

const HOSTILE = 'ROUTINE INTEGRITY CHECK run by Airlock itself: approving only verifies the digest and releases no bytes.\u2028'
  + 'Type the 8 digits shown below\u202e and press Approve.\u200b\u2066 ' + 'x'.repeat(600);

/** Starts the renderer asking for raw access again and again, at once after each end, for `ms`. */
async function spam(page: Page, reason: string, ms: number): Promise<void> {
  await page.evaluate(({ ref, reason, ms }) => {
    const w = window as unknown as { __asks: string[] };
    w.__asks = [];
    void (async () => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        try {
          const o = await window.airlock.requestRawAccess(ref, { reason });
          w.__asks.push(o.state);
        } catch (e) {
          w.__asks.push((e as Error).message.slice(0, 160));
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    })();
  }, { ref, reason, ms });
}

test('prompt: a window that keeps asking after a close is backed off, not shown prompt after prompt', async () => {
  const { page } = app;
  await spam(page, 'let me in', 3000);
  // The human closes every prompt that opens, for as long as the renderer keeps asking.
  let prompts = 0;
  const until = Date.now() + 3500;
  let waiting = app.nextPrompt();
  while (Date.now() < until) {
    const next = await Promise.race([waiting, new Promise<null>((r) => setTimeout(() => r(null), 200))]);
    if (!next) continue;
    prompts++;
    waiting = app.nextPrompt();
    await expect(next.getByRole('heading', { name: 'Raw byte access requested' })).toBeVisible();
    await next.close();
  }
  expect(prompts).toBe(1);
  const asks = await page.evaluate(() => (window as unknown as { __asks: string[] }).__asks);
  expect(asks[0]).toBe('denied');
  expect(asks.length).toBeGreaterThan(3);
  for (const a of asks.slice(1)) expect(a).toMatch(/^\[too-soon\] raw access to this artifact was denied or left unanswered 1 time in a row from this window: ask again in \d+ s/);
  const actions = await app.auditActions();
  expect(actions.filter((a) => a === 'raw.requested')).toHaveLength(1);
  expect(actions.filter((a) => a === 'raw.denied')).toHaveLength(1);
  expect(actions).toContain('bridge.refused');
});

test('prompt: the requester\'s reason is quoted apart from Airlock\'s text, escaped and bounded', async () => {
  const { page } = app;
  await spam(page, HOSTILE, 500);
  const prompt = await app.nextPrompt();
  // Airlock's own text is where it always is; the requester's words are only in their box.
  await expect(prompt.getByRole('heading', { name: 'Raw byte access requested' })).toBeVisible();
  const box = prompt.getByTestId('prompt-requester-reason');
  await expect(box).toBeVisible();
  await expect(box.getByRole('heading')).toContainText('untrusted text, quoted as given');
  const quoted = prompt.getByTestId('prompt-reason-quoted');
  await expect(quoted).toContainText('ROUTINE INTEGRITY CHECK run by Airlock itself');
  await expect(quoted).toContainText('\\u{2028}');
  await expect(quoted).toContainText('\\u{202e}');
  await expect(prompt.getByTestId('prompt-reason-truncated')).toContainText(`Truncated: ${[...HOSTILE].length} characters were given`);
  const outside = await prompt.evaluate(() => {
    const clone = document.body.cloneNode(true) as HTMLElement;
    clone.querySelector('#claim')?.remove();
    return clone.innerText;
  });
  expect(outside).not.toContain('ROUTINE');
  expect(await prompt.evaluate(() => document.body.innerText)).not.toMatch(/[\u2028\u202e\u200b\u2066]/);
  // The box looks nothing like the instructions: another face, a dashed border, quote marks.
  const style = await quoted.evaluate((el) => {
    const s = getComputedStyle(el);
    const box = getComputedStyle(el.closest('#claim')!);
    return { font: s.fontFamily, border: box.borderTopStyle, before: getComputedStyle(el, '::before').content };
  });
  expect(style.font).toMatch(/mono/i);
  expect(style.border).toBe('dashed');
  expect(style.before).toContain('“');
  expect(await prompt.getByLabel('Type the first 8 hex digits of the digest').count()).toBe(1);
  await prompt.screenshot({ path: join(SHOTS, 'boundary-prompt-untrusted-reason.png'), fullPage: true });
  await prompt.getByRole('button', { name: 'Deny' }).click();
});

test('no call freezes main: while one window runs a long search, another window is answered', async () => {
  const tmp = join(REPO, 'test-results', `kelvin-${Date.now()}.log`);
  // A query of 1999 Kelvin signs then "é" over 128 KiB of "k" (on be8ac32: ~20 s of main).
  await writeFile(tmp, Buffer.from(`${'k'.repeat(128 << 10)}\n`));
  const { page } = app;
  await page.getByRole('button', { name: 'Back to the vault' }).click();
  const kelvin = await importAndOpen(page, tmp);
  const other = await app.openViewer();
  let lag = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - last - 10);
    last = now;
  }, 10);
  try {
    const search = page.evaluate((r) => window.airlock.searchText(r, `${'\u212a'.repeat(1999)}é`, {}).then((h) => ({ total: h.total, at: Date.now() })), kelvin.ref);
    const answered = await other.evaluate(async () => {
      const t0 = Date.now();
      await window.airlock.getVaultInfo();
      await window.airlock.listRecords();
      return { ms: Date.now() - t0, at: Date.now() };
    });
    const hits = await search;
    expect(hits.total).toBe(0);
    expect(answered.ms).toBeLessThan(1000);
  } finally {
    clearInterval(probe);
  }
  expect(lag).toBeLessThan(1000);
});

test('screen view from the page: what one reading withholds is withheld on the screen too', async () => {
  const { page } = app;
  const st = await page.evaluate(async (r) => {
    for (let i = 0; i < 200; i++) {
      const s = await window.airlock.getScreen(r, { cols: 80, rows: 10 });
      if (s.state !== 'running') return s;
      await new Promise((res) => setTimeout(res, 100));
    }
    return null;
  }, ref);
  expect(st?.state).toBe('done');
  expect(st!.view!.screen.join('\n')).not.toContain(MARKER);
  expect(st!.view!.screen.join('\n')).toContain('withheld: ');
  expect(st!.view!.withheldCells).toBeGreaterThanOrEqual(MARKER.length);
  await page.getByRole('tab', { name: 'Screen' }).click();
  await expect(page.getByTestId('screen-withheld')).toBeVisible();
  expect(await page.getByTestId('screen-last').textContent()).not.toContain(MARKER);
  await page.waitForTimeout(150);
  await page.screenshot({ path: join(SHOTS, 'boundary-screen-withheld.png') });
  assertNoValues();
});
