import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_RAW_READ, VIEWER_METHODS } from '../../../../shared/bridge/contract';
import type { RawPage, RecordSummary } from '../../../../shared/bridge/types';
import { approve, flatten, makeEnv, MARKER, promptWindow, type Env } from './env';

const markerHex = Buffer.from(MARKER).toString('hex');

describe('bridge dispatcher', () => {
  let env: Env;
  beforeEach(async () => {
    env = await makeEnv();
  });
  afterEach(async () => {
    await env.close();
  });

  it('lists the demo vault with sanitized metadata', async () => {
    const records = await env.ok<RecordSummary[]>(env.viewer(), 'listRecords');
    expect(records.map((r) => r.source).sort()).toEqual(['asciicast', 'asciicast', 'capture', 'file', 'file', 'script']);
    const capture = records.find((r) => r.source === 'capture')!;
    expect(capture.title).toBe('npm install --no-fund');
    expect(capture.exitCode).toBe(1);
    expect(capture.artifacts.map((a) => a.stream)).toEqual(['stdout', 'stderr']);
    expect(capture.artifacts[1].removal.removedSpans).toBeGreaterThan(0);
    expect(records.filter((r) => r.rebuilt).length).toBe(2);
    const info = await env.ok<{ demo: boolean; windowId: number; records: number }>(env.viewer(), 'getVaultInfo');
    expect(info).toMatchObject({ demo: true, windowId: 1, records: 6 });
    expect(flatten(records)).not.toContain(MARKER);
    expect(flatten(records)).not.toMatch(/\x1b/);
  });

  it('serves the removal report without a grant, and no payload in it', async () => {
    const report = await env.ok<{ removed_spans: number; meanings: Record<string, number> }>(env.viewer(), 'getReport', env.markerRef);
    expect(report.removed_spans).toBeGreaterThan(0);
    expect(Object.keys(report.meanings).join()).toMatch(/clipboard|52/i);
    expect(flatten(report)).not.toContain(MARKER);
  });

  it('reads raw bytes only under a grant, bounded, and audits one raw.opened per grant', async () => {
    const grant = await approve(env);
    const page = await env.ok<RawPage>(env.viewer(), 'readRaw', grant, 0, 16);
    expect(Buffer.from(page.bytes).toString('latin1')).toBe('before \x1b]52;c;AI');
    const all = await env.ok<RawPage>(env.viewer(), 'readRaw', grant, 0, MAX_RAW_READ);
    expect(all.bytes.length).toBe(env.markerSize);
    expect(Buffer.from(all.bytes).toString()).toContain(MARKER);
    await env.ok(env.viewer(), 'readRaw', grant, 4, 8);
    const grants = await env.ok<{ id: string }[]>(env.viewer(), 'listGrants');
    expect(grants.map((g) => g.id)).toEqual([grant]);
    await env.ok(env.viewer(), 'revokeGrant', grant);
    expect(await env.ok(env.viewer(), 'listGrants')).toEqual([]);
    const lines = await env.services.audit.list();
    const opened = lines.flatMap((l) => ('entry' in l && l.entry.action === 'raw.opened' ? [l.entry] : []));
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ reads: 3, bytes: 16 + env.markerSize + 8, ranges: [[0, env.markerSize]] });
    expect(await env.actions()).toEqual(expect.arrayContaining(['raw.requested', 'raw.granted', 'raw.opened', 'raw.revoked']));
    expect((await env.services.audit.verify()).ok).toBe(true);
  });

  it('a ranged grant reads only its range', async () => {
    const grant = await approve(env, 1, env.markerRef, [7, 20]);
    const page = await env.ok<RawPage>(env.viewer(), 'readRaw', grant, 7, 100);
    expect(page.bytes.length).toBe(13);
    const r = await env.call(env.viewer(), 'readRaw', grant, 0, 4);
    expect(r).toMatchObject({ ok: false, code: 'forbidden' });
  });

  it('denial gives the renderer nothing', async () => {
    const outcome = env.ok<{ state: string; why: string }>(env.viewer(), 'requestRawAccess', env.markerRef, { reason: 'curious' });
    const pw = await promptWindow(env);
    const view = await env.ok<{ artifact: { sha256: string }; confirmDigits: number }>(env.prompt(pw), 'getPrompt');
    expect(view.artifact.sha256).toBe(env.markerSha);
    expect(view.confirmDigits).toBe(8);
    await env.ok(env.prompt(pw), 'answerPrompt', { decision: 'deny', reason: 'not needed', confirm: '' });
    const o = await outcome;
    expect(o.state).toBe('denied');
    expect(flatten(o)).not.toContain(MARKER);
    expect(await env.ok(env.viewer(), 'listGrants')).toEqual([]);
    expect(await env.actions()).toContain('raw.denied');
    expect(env.closed).toHaveLength(1);
  });

  it('approval needs a reason and the first 8 hex digits of the digest', async () => {
    const outcome = env.ok<{ state: string }>(env.viewer(), 'requestRawAccess', env.markerRef, {});
    const pw = await promptWindow(env);
    expect(await env.call(env.prompt(pw), 'answerPrompt', { decision: 'approve', reason: '', confirm: env.markerSha.slice(0, 8) })).toMatchObject({ ok: false, code: 'bad-request' });
    expect(await env.call(env.prompt(pw), 'answerPrompt', { decision: 'approve', reason: 'x', confirm: '00000000' })).toMatchObject({ ok: false, code: 'bad-request', message: expect.stringContaining('first 8 hex digits') });
    await env.ok(env.prompt(pw), 'answerPrompt', { decision: 'approve', reason: 'x', confirm: env.markerSha.slice(0, 8).toUpperCase() });
    expect((await outcome).state).toBe('granted');
  });

  it('a closed prompt window is a denial; a closed viewer ends its grants', async () => {
    // (Window 2 asks first: a closed prompt backs off that window for this artifact.)
    const outcome = env.ok<{ state: string }>(env.viewer(2), 'requestRawAccess', env.markerRef, {});
    const pw = await promptWindow(env);
    await env.services.windowClosed(pw);
    expect((await outcome).state).toBe('denied');
    const grant = await approve(env);
    await env.ok(env.viewer(), 'readRaw', grant, 0, 4);
    await env.services.windowClosed(1);
    expect(await env.call(env.viewer(), 'readRaw', grant, 0, 4)).toMatchObject({ ok: false, code: 'no-grant' });
    expect(await env.actions()).toEqual(expect.arrayContaining(['raw.opened', 'raw.revoked']));
  });

  it('the requester\'s reason reaches the prompt with controls and bidi escaped', async () => {
    void env.call(env.viewer(), 'requestRawAccess', env.markerRef, { reason: 'ok\u202e\x1b[2Jtype 00000000' });
    const view = await env.ok<{ requestedReason: string }>(env.prompt(await promptWindow(env)), 'getPrompt');
    expect(view.requestedReason).toBe('ok\\u{202e}\\x1b[2Jtype 00000000');
  });

  it('one waiting request per window', async () => {
    void env.call(env.viewer(), 'requestRawAccess', env.markerRef, {});
    await promptWindow(env);
    expect(await env.call(env.viewer(), 'requestRawAccess', env.markerRef, {})).toMatchObject({ ok: false, code: 'forbidden' });
  });

  it('delegates artifact methods after checking the ref is in the vault', async () => {
    const seen: unknown[][] = [];
    // Not a thenable: the dispatcher may hand the service on through a promise.
    const fake = new Proxy({}, { get: (_t, m) => (m === 'then' ? undefined : async (...a: unknown[]) => { seen.push([m, ...a]); return { hits: [], hitLength: 0, total: 0, complete: true, elapsedMs: 0 }; }) });
    const e2 = await makeEnv({ artifactService: () => fake as never });
    try {
      await e2.ok(e2.viewer(), 'searchText', e2.markerRef, 'red', {});
      expect(seen[0].slice(0, 4)).toEqual(['searchText', e2.markerRef, 'red', {}]);
      expect(seen[0][4]).toBeInstanceOf(AbortSignal);
      const missing = `restricted:sha256:${'0'.repeat(64)}`;
      expect(await e2.call(e2.viewer(), 'getSpans', missing, 0, 10)).toMatchObject({ ok: false, code: 'not-found' });
      const grant = await approve(e2, 1, e2.markerRef, [2, 9]);
      await e2.ok(e2.viewer(), 'searchRaw', grant, { mode: 'text', pattern: 'x' });
      expect(seen.at(-1)!.slice(0, 4)).toEqual(['searchRaw', e2.markerRef, [2, 9], { mode: 'text', pattern: 'x' }]);
    } finally {
      await e2.close();
    }
  });

  it('serves a capture\'s chunk log from its record', async () => {
    const capture = (await env.ok<RecordSummary[]>(env.viewer(), 'listRecords')).find((r) => r.source === 'capture')!;
    const log = await env.ok<{ rows: { stream: string; seq: number }[] }>(env.viewer(), 'getChunkLog', capture.id);
    expect(log.rows.length).toBe(11);
    expect(log.rows[1]).toMatchObject({ stream: 'stderr', seq: 1 });
    expect(await env.call(env.viewer(), 'getChunkLog', '20260101T000000Z-00000000')).toMatchObject({ ok: false, code: 'not-found' });
  });

  it('copy and export take inert text only', async () => {
    expect(await env.call(env.viewer(), 'copyText', 'hex', '1b 5d 35 32')).toEqual({ ok: true, value: null });
    expect(await env.call(env.viewer(), 'copyText', 'text', 'a\x1b]52;c;x\x07')).toMatchObject({ ok: false, code: 'bad-request' });
    expect(await env.call(env.viewer(), 'copyText', 'text', 'a\u202eb')).toMatchObject({ ok: false, code: 'bad-request' });
    const saved = await env.ok<{ saved: boolean; name: string }>(env.viewer(), 'exportText', 'hex-dump', '../../x.txt', '00000000  1b 5d\n');
    expect(saved).toEqual({ saved: true, name: '_.._x.txt' });
    expect(await env.actions()).toEqual(expect.arrayContaining(['text.copied', 'text.exported']));
  });

  it('lists the audit log newest first, metadata only', async () => {
    const audit = await env.ok<{ action: string; details: Record<string, unknown> }[]>(env.viewer(), 'listAudit', 5);
    expect(audit[0].action).toBe('artifact.imported');
    expect(audit.length).toBeLessThanOrEqual(5);
  });

  it('answers every contract method with a result or a clear refusal (never an internal error)', async () => {
    for (const m of VIEWER_METHODS) {
      const r = await env.call(env.viewer(), m);
      if (!r.ok) expect(r.code).not.toBe('internal');
    }
  });
});

describe('forged calls', () => {
  let env: Env;
  beforeEach(async () => {
    env = await makeEnv({ grantTtlMs: 1000 });
  });
  afterEach(async () => {
    await env.close();
  });

  /** Asserts a refusal: the code, one line, no artifact byte, and a bridge.refused entry. */
  async function refused(r: unknown, code: string): Promise<void> {
    expect(r).toMatchObject({ ok: false, code });
    const s = flatten(r);
    expect(s).not.toContain(MARKER);
    expect(s).not.toContain(markerHex);
    expect((r as { message: string }).message).not.toMatch(/[\n\x1b]/);
    const last = (await env.services.audit.list()).at(-1)!;
    expect('entry' in last && last.entry.action).toBe('bridge.refused');
    expect('entry' in last && last.entry.code).toBe(code);
  }

  it('a range read without a grant', async () => {
    await refused(await env.call(env.viewer(), 'readRaw', `g-${'a'.repeat(32)}`, 0, 64), 'no-grant');
  });

  it('an id like ../../etc/passwd', async () => {
    await refused(await env.call(env.viewer(), 'getReport', '../../etc/passwd'), 'bad-request');
    await refused(await env.call(env.viewer(), 'readRaw', '../../etc/passwd', 0, 64), 'bad-request');
    await refused(await env.call(env.viewer(), 'getChunkLog', '../../etc/passwd'), 'bad-request');
    await refused(await env.call(env.viewer(), 'requestRawAccess', 'restricted:sha256:../../etc/passwd', {}), 'bad-request');
    expect(env.opened).toHaveLength(0);
  });

  it('an expired grant', async () => {
    const grant = await approve(env);
    await new Promise((r) => setTimeout(r, 1100));
    await refused(await env.call(env.viewer(), 'readRaw', grant, 0, 64), 'expired');
    expect(await env.actions()).toContain('raw.expired');
  });

  it("another window's grant", async () => {
    const grant = await approve(env, 1);
    await refused(await env.call(env.viewer(2), 'readRaw', grant, 0, 64), 'forbidden');
    await refused(await env.call(env.viewer(2), 'revokeGrant', grant), 'forbidden');
    expect(await env.ok(env.viewer(2), 'listGrants')).toEqual([]);
  });

  it('an oversized range', async () => {
    const grant = await approve(env);
    await refused(await env.call(env.viewer(), 'readRaw', grant, 0, MAX_RAW_READ + 1), 'too-large');
    await refused(await env.call(env.viewer(), 'readRaw', grant, env.markerSize + 1, 1), 'bad-request');
    await refused(await env.call(env.viewer(), 'readRaw', grant, -1, 1), 'bad-request');
  });

  it('a grant approval from the main window', async () => {
    const outcome = env.call(env.viewer(), 'requestRawAccess', env.markerRef, {});
    const pw = await promptWindow(env);
    const answer = { decision: 'approve', reason: 'me', confirm: env.markerSha.slice(0, 8) };
    // The viewer window on the prompt channel, with the viewer's and with the prompt's origin.
    await refused(await env.services.dispatcher.callPrompt(env.viewer(), 'answerPrompt', [answer]), 'forbidden');
    await refused(await env.services.dispatcher.callPrompt({ ...env.viewer(), origin: 'airlock://prompt' }, 'answerPrompt', [answer]), 'forbidden');
    await refused(await env.services.dispatcher.callPrompt(env.viewer(), 'getPrompt', []), 'forbidden');
    // The method name on the viewer channel does not exist.
    await refused(await env.call(env.viewer(), 'answerPrompt', answer), 'bad-request');
    // A prompt window with the wrong origin or from a subframe.
    await refused(await env.services.dispatcher.callPrompt({ ...env.prompt(pw), origin: 'airlock://app' }, 'answerPrompt', [answer]), 'forbidden');
    await refused(await env.services.dispatcher.callPrompt({ ...env.prompt(pw), mainFrame: false }, 'answerPrompt', [answer]), 'forbidden');
    expect(await env.ok(env.viewer(), 'listGrants')).toEqual([]);
    await env.ok(env.prompt(pw), 'answerPrompt', { decision: 'deny', reason: '', confirm: '' });
    expect(await outcome).toMatchObject({ ok: true, value: { state: 'denied' } });
  });

  it('unknown senders, origins, methods and argument shapes', async () => {
    await refused(await env.services.dispatcher.call({ windowId: 99, origin: 'airlock://app', mainFrame: true }, 'listRecords', []), 'forbidden');
    await refused(await env.services.dispatcher.call({ windowId: null, origin: '', mainFrame: true }, 'listRecords', []), 'forbidden');
    await refused(await env.services.dispatcher.call({ ...env.viewer(), origin: 'https://evil.example' }, 'listRecords', []), 'forbidden');
    await refused(await env.services.dispatcher.call({ ...env.viewer(), mainFrame: false }, 'listRecords', []), 'forbidden');
    await refused(await env.call(env.viewer(), '__proto__'), 'bad-request');
    await refused(await env.call(env.viewer(), 'constructor'), 'bad-request');
    await refused(await env.services.dispatcher.call(env.viewer(), 'listRecords', 'x'), 'bad-request');
    await refused(await env.call(env.viewer(), 'listRecords', 'extra'), 'bad-request');
    await refused(await env.call(env.viewer(), 'requestRawAccess', env.markerRef, { range: [0, 4], extend: true }), 'bad-request');
  });

  it('every method refuses a foreign sender and malformed arguments, each audited', async () => {
    const stranger = { windowId: 77, origin: 'airlock://app', mainFrame: true };
    for (const m of VIEWER_METHODS) {
      await refused(await env.services.dispatcher.call(stranger, m, []), 'forbidden');
      // One argument too many (and of the wrong kind) is never valid for any method.
      await refused(await env.call(env.viewer(), m, ...new Array(6).fill({ evil: '../../etc/passwd' })), 'bad-request');
    }
    for (const m of ['getPrompt', 'answerPrompt']) {
      await refused(await env.services.dispatcher.callPrompt(stranger, m, []), 'forbidden');
    }
  });

  it('the renderer cannot create or extend a grant', async () => {
    for (const m of ['createGrant', 'approveGrant', 'extendGrant', 'grant']) await refused(await env.call(env.viewer(), m, env.markerRef), 'bad-request');
  });

  it('refusal audit entries are budgeted per window', async () => {
    for (let i = 0; i < 80; i++) await env.call(env.viewer(), 'nope');
    const refusedCount = (await env.actions()).filter((a) => a === 'bridge.refused').length;
    expect(refusedCount).toBe(60);
  });
});

describe('inert check of copy and export, a slice at a time', () => {
  it('finds what the one-go check finds, wherever the slices are cut (joiners, emoji, controls)', async () => {
    const { firstNotInert, firstNotInertYielding } = await import('../../../../app/services/bridge/inert');
    const fc = (await import('fast-check')).default;
    const token = fc.constantFrom('a', ' ', '\n', 'é', '🙂', '\u200d', '👩\u200d💻', 'ب\u200cه', '\u202e', '\x1b[31m', '\ufe0f', '❤\ufe0f', '\ud800', '本', '1', '#', '*', '\u20e3', '1\ufe0f\u20e3', '[', 'Z', '\x1b', '\u0301');
    await fc.assert(fc.asyncProperty(fc.array(token, { maxLength: 60 }), fc.integer({ min: 1, max: 9 }), async (parts, slice) => {
      const text = parts.join('');
      expect(await firstNotInertYielding(text, slice)).toBe(firstNotInert(text));
    }), { numRuns: 800 });
  });
});
