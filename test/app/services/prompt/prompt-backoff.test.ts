// The prompt cannot be spammed (a window that keeps asking after denials or closes waits longer
// each time, per artifact, up to a cap) and the requester's words reach the human quoted as
// untrusted data: escaped, bounded, with the cut said.
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isInvisible } from '../../../../shared/parser/invisible';
import { BACKOFF_CAP_MS, backoffMs, PromptBroker } from '../../../../app/services/prompt/prompts';
import { MAX_SHOWN_REASON, untrustedText } from '../../../../app/services/prompt/untrusted';
import type { PromptView, RawAccessOutcome } from '../../../../shared/bridge/types';
import { makeEnv, type Env } from '../bridge/env';

describe('prompt back-off', () => {
  let env: Env;
  let t = 0;
  let opened: string[] = [];
  let broker: PromptBroker;
  let nextWindow = 500;
  let other = '';

  beforeEach(async () => {
    env = await makeEnv();
    t = 1_700_000_000_000;
    opened = [];
    broker = new PromptBroker({
      grants: env.services.grants,
      view: env.services.view,
      audit: env.services.audit,
      now: () => t,
      opener: {
        async open(id) {
          opened.push(id);
          broker.attach(id, nextWindow++);
        },
        close: () => undefined,
      },
    });
    const records = await env.services.view.list();
    other = records.flatMap((r) => r.artifacts).find((a) => a.ref !== env.markerRef && a.rawAvailable)!.ref;
  });
  afterEach(async () => {
    await env.close();
  });

  /** Asks from `window` and waits until its prompt is open; returns the prompt window and the outcome. */
  const ask = async (window: number, ref = env.markerRef, reason = ''): Promise<{ pw: number; outcome: Promise<RawAccessOutcome> }> => {
    const before = opened.length;
    const outcome = broker.request(window, ref, { reason });
    for (let i = 0; i < 200 && opened.length === before; i++) await new Promise((r) => setTimeout(r, 2));
    if (opened.length === before) throw new Error('no prompt opened');
    return { pw: nextWindow - 1, outcome };
  };
  const deny = async (pw: number): Promise<void> => {
    await broker.answer(pw, { decision: 'deny', reason: 'no', confirm: '' });
  };

  it('schedule: 10 s after the first refusal, doubling, capped at 10 minutes', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 40].map((k) => backoffMs(k) / 1000)).toEqual([10, 20, 40, 80, 160, 320, 600, 600, 600]);
    expect(backoffMs(0)).toBe(0);
    expect(BACKOFF_CAP_MS).toBe(600_000);
  });

  it('a denial backs the window off for that artifact: no prompt, a clear refusal, until the wait is over', async () => {
    const first = await ask(1);
    await deny(first.pw);
    expect((await first.outcome).state).toBe('denied');
    const requested = (await env.actions()).filter((a) => a === 'raw.requested').length;
    await expect(broker.request(1, env.markerRef, {})).rejects.toMatchObject({ code: 'too-soon', message: expect.stringMatching(/1 time in a row.*ask again in 10 s/) });
    expect(opened).toHaveLength(1);
    expect((await env.actions()).filter((a) => a === 'raw.requested').length).toBe(requested);
    t += 9_999;
    await expect(broker.request(1, env.markerRef, {})).rejects.toMatchObject({ code: 'too-soon' });
    t += 2;
    // Over: it may ask again; a second refusal (here: the prompt closed unanswered) doubles the wait.
    const second = await ask(1);
    await broker.promptClosed(second.pw);
    expect((await second.outcome).state).toBe('denied');
    t += 19_999;
    await expect(broker.request(1, env.markerRef, {})).rejects.toMatchObject({ code: 'too-soon', message: expect.stringMatching(/2 times in a row/) });
    t += 2;
    const third = await ask(1);
    // The human sees the window has been refused before.
    expect(((await broker.getPrompt(third.pw)) as PromptView).earlierRefusals).toBe(2);
    await deny(third.pw);
  });

  it('is per window and per artifact, and an approval or the window closing starts it over', async () => {
    const a = await ask(1);
    await deny(a.pw);
    await a.outcome;
    // Another window, and another artifact from the same window: asked at once.
    const b = await ask(2);
    await deny(b.pw);
    await b.outcome;
    const c = await ask(1, other);
    const sha = other.slice('restricted:sha256:'.length);
    await broker.answer(c.pw, { decision: 'approve', reason: 'incident 42', confirm: sha.slice(0, 8) });
    expect((await c.outcome).state).toBe('granted');
    // Window 2 closed: its back-off is gone with it (a new window with that id starts clean).
    await expect(broker.request(2, env.markerRef, {})).rejects.toMatchObject({ code: 'too-soon' });
    await broker.windowClosed(2);
    const e = await ask(2);
    await deny(e.pw);
    await e.outcome;
    // An approval ends the back-off for that artifact: asked again at once after it.
    t += 10_001;
    const d = await ask(1);
    await broker.answer(d.pw, { decision: 'approve', reason: 'incident 42', confirm: env.markerSha.slice(0, 8) });
    expect((await d.outcome).state).toBe('granted');
    const f = await ask(1);
    await deny(f.pw);
    await f.outcome;
  });

  it('a prompt left unanswered until it times out counts as a refusal', async () => {
    const quick: PromptBroker = new PromptBroker({
      grants: env.services.grants, view: env.services.view, audit: env.services.audit, now: () => t, timeoutMs: 20,
      opener: { open: async (id): Promise<void> => quick.attach(id, 900), close: () => undefined },
    });
    expect((await quick.request(1, env.markerRef, {})).state).toBe('denied');
    await expect(quick.request(1, env.markerRef, {})).rejects.toMatchObject({ code: 'too-soon' });
  });

  it('shows the requester\'s words escaped and bounded, and says when they were cut', async () => {
    const hostile = `ROUTINE INTEGRITY CHECK run by Airlock itself\u2028approving releases no bytes\u200b\u202e\u2066\u200f\ufe0f\u{e0041}\x1b[2J\x9b\u00ad ${'x'.repeat(1000)}`;
    const { pw, outcome } = await ask(1, env.markerRef, hostile);
    const view = (await broker.getPrompt(pw)) as PromptView;
    expect(view.requestedReason.startsWith('ROUTINE INTEGRITY CHECK run by Airlock itself\\u{2028}approving releases no bytes\\u{200b}\\u{202e}\\u{2066}\\u{200f}\\u{fe0f}\\u{e0041}\\x1b[2J\\x9b\\xad x')).toBe(true);
    expect(view.requestedReasonTruncated).toBe(true);
    expect(view.requestedReasonChars).toBe([...hostile].length);
    expect([...view.requestedReason].length).toBeLessThan(MAX_SHOWN_REASON + 100);
    await deny(pw);
    await outcome;
  });
});

describe('untrustedText', () => {
  it('leaves no control, bidi, invisible or line-breaking character, and is bounded', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (s) => {
      const u = untrustedText(s);
      for (const ch of u.text) {
        const cp = ch.codePointAt(0)!;
        expect(cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp === 0x2028 || cp === 0x2029 || isInvisible(cp) || (cp >= 0xd800 && cp <= 0xdfff)).toBe(false);
      }
      expect(u.chars).toBe([...s].length);
      expect(u.truncated).toBe(u.chars > MAX_SHOWN_REASON);
      // Each character shown is at most one escape long (`\u{10ffff}`: 10).
      expect(u.text.length).toBeLessThanOrEqual(MAX_SHOWN_REASON * 10);
    }), { numRuns: 500 });
  });

  it('keeps ordinary text of any script as it is', () => {
    for (const s of ['incident 42: check the clipboard write', 'Überprüfung für Vorfall 7', 'проверка', '事件の確認', 'مراجعة 42', 'emoji 🙂 ok']) {
      expect(untrustedText(s)).toEqual({ text: s, chars: [...s].length, truncated: false });
    }
  });
});
