import { describe, expect, it } from 'vitest';
import { GrantStore, mergeRange } from '../../../../app/services/grants/grants';
import { BridgeError } from '../../../../app/services/bridge/errors';

const SHA = 'ab'.repeat(32);
const REF = `restricted:sha256:${SHA}`;

function store(ttlMs = 15 * 60_000) {
  const log: { action: string; details: Record<string, unknown> }[] = [];
  let now = 1_000_000;
  const timers: { at: number; fn: () => void; live: boolean }[] = [];
  const s = new GrantStore({
    audit: { append: async (action, details) => void log.push({ action, details: details as Record<string, unknown> }) },
    ttlMs,
    now: () => now,
    setTimer: (fn, ms) => {
      const t = { at: now + ms, fn, live: true };
      timers.push(t);
      return t;
    },
    clearTimer: (h) => void ((h as { live: boolean }).live = false),
  });
  const advance = async (ms: number) => {
    now += ms;
    for (const t of timers) {
      if (t.live && t.at <= now) {
        t.live = false;
        t.fn();
      }
    }
    await new Promise((r) => setTimeout(r, 0));
  };
  const create = (windowId = 1, range: [number, number] | null = null) => s.create({ ref: REF, sha256: SHA, size: 1000, windowId, range, reason: 'r\u00e9ason\n', requestId: 'r-1' });
  return { s, log, advance, create };
}

const code = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return e instanceof BridgeError ? e.code : 'other';
  }
};

describe('grants', () => {
  it('default lifetime 15 minutes; audit reason kept as printable ASCII', async () => {
    const { s, log, create } = store();
    const g = await create();
    expect(g.expiresAt - g.createdAt).toBe(15 * 60_000);
    expect(g.id).toMatch(/^g-[0-9a-f]{32}$/);
    expect(log[0]).toMatchObject({ action: 'raw.granted', details: { grant: g.id, window: 1, reason: 'r\\u00e9ason\\u000a' } });
    expect(s.list(1)).toEqual([g]);
    expect(s.list(2)).toEqual([]);
  });

  it('bound to one window', async () => {
    const { s, create } = store();
    const g = await create(1);
    expect(code(() => s.check(g.id, 2))).toBe('forbidden');
    expect(code(() => s.check(`g-${'0'.repeat(32)}`, 1))).toBe('no-grant');
    await expect(s.revoke(g.id, 2)).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('expires on its timer and lazily (a late timer), audits expiry and reads once', async () => {
    const { s, log, advance, create } = store(5000);
    const g = await create();
    const r = s.clampRead(g.id, 1, 0, 100);
    s.noteRead(g.id, r.start, r.end);
    s.noteRead(g.id, 50, 150);
    s.noteRead(g.id, 400, 410);
    await advance(5000);
    expect(code(() => s.check(g.id, 1))).toBe('expired');
    const actions = log.map((l) => l.action);
    expect(actions).toEqual(['raw.granted', 'raw.opened', 'raw.expired']);
    expect(log[1].details).toMatchObject({ reads: 3, bytes: 210, ranges: [[0, 150], [400, 410]] });
  });

  it('a grant checked after its time is expired even if the timer has not fired', async () => {
    const { s, create } = store(5000);
    const g = await create();
    // No timer runs: a suspended machine wakes up past the expiry.
    (s as unknown as { now: () => number }).now = () => g.expiresAt + 1;
    expect(code(() => s.check(g.id, 1))).toBe('expired');
  });

  it('clamps reads to the grant range and the size', async () => {
    const { s, create } = store();
    const g = await create(1, [100, 200]);
    expect(s.clampRead(g.id, 1, 150, 1000)).toMatchObject({ start: 150, end: 200 });
    expect(code(() => s.clampRead(g.id, 1, 99, 1))).toBe('forbidden');
    expect(code(() => s.clampRead(g.id, 1, 200, 1))).toBe('forbidden');
    const whole = await create(1);
    expect(s.clampRead(whole.id, 1, 990, 100)).toMatchObject({ start: 990, end: 1000 });
    expect(s.clampRead(whole.id, 1, 1000, 100)).toMatchObject({ start: 1000, end: 1000 });
    expect(code(() => s.clampRead(whole.id, 1, 1001, 1))).toBe('bad-request');
  });

  it('ends with its window and on shutdown', async () => {
    const { s, log, create } = store();
    const a = await create(1);
    const b = await create(2);
    await s.endWindow(1);
    expect(code(() => s.check(a.id, 1))).toBe('no-grant');
    expect(code(() => s.check(b.id, 2))).toBe('ok');
    await s.endAll();
    expect(log.filter((l) => l.action === 'raw.revoked').map((l) => l.details.why)).toEqual(['window-closed', 'shutdown']);
  });

  it('refuses a lifetime under a second', () => {
    expect(() => store(10)).toThrow(RangeError);
  });

  it('merges read ranges', () => {
    let r: [number, number][] = [];
    for (const [a, b] of [[10, 20], [30, 40], [20, 30], [0, 5], [50, 60], [35, 55]] as [number, number][]) r = mergeRange(r, a, b);
    expect(r).toEqual([[0, 5], [10, 60]]);
  });
});

describe('grants on a running capture\'s stream', () => {
  const running = (s: GrantStore, windowId = 1) => s.createRunning({ recordId: '20261207T120000Z-5e6f7a8b', stream: 'stdout', size: 42, windowId, reason: 'watch', requestId: 'r-2' });

  it('are refused by the sealed-artifact check, and a sealed-artifact grant by the running check', async () => {
    const { s, create } = store();
    const g = await running(s);
    const a = await create();
    expect(g).toMatchObject({ ref: null, running: { recordId: '20261207T120000Z-5e6f7a8b', stream: 'stdout' }, range: null });
    expect(code(() => s.check(g.id, 1))).toBe('forbidden');
    expect(code(() => s.checkRunning(a.id, 1))).toBe('forbidden');
    expect(code(() => s.checkRunning(g.id, 2))).toBe('forbidden');
    expect(s.checkRunning(g.id, 1)).toMatchObject({ recordId: '20261207T120000Z-5e6f7a8b', stream: 'stdout', sealed: null });
    // The running ends leave a sealed-artifact grant alone.
    await s.endRunning(a.id, 'capture-interrupted');
    expect(code(() => s.check(a.id, 1))).toBe('ok');
  });

  it('go on over the sealed artifact of the same record and stream only, audited with its digest; reads are one raw.opened', async () => {
    const { s, log } = store();
    const g = await running(s);
    s.noteRead(g.id, 0, 40);
    await expect(s.continueSealed(g.id, { recordId: '20261207T120000Z-00000000', stream: 'stdout', ref: REF, sha256: SHA, size: 1000 })).rejects.toThrow(/another capture or stream/);
    await expect(s.continueSealed(g.id, { recordId: '20261207T120000Z-5e6f7a8b', stream: 'stderr', ref: REF, sha256: SHA, size: 1000 })).rejects.toThrow(/another capture or stream/);
    expect(code(() => s.check(g.id, 1))).toBe('forbidden');
    const info = await s.continueSealed(g.id, { recordId: '20261207T120000Z-5e6f7a8b', stream: 'stdout', ref: REF, sha256: SHA, size: 1000 });
    expect(info).toMatchObject({ id: g.id, ref: REF, expiresAt: g.expiresAt });
    expect(s.check(g.id, 1)).toMatchObject({ sha256: SHA, size: 1000 });
    expect(s.checkRunning(g.id, 1).sealed).toEqual({ ref: REF, sha256: SHA, size: 1000 });
    // Once continued, an interruption no longer ends it (it covers a sealed artifact now).
    await s.endRunning(g.id, 'capture-interrupted');
    expect(code(() => s.check(g.id, 1))).toBe('ok');
    s.noteRead(g.id, 40, 100);
    await s.revoke(g.id, 1);
    expect(log.map((l) => l.action)).toEqual(['raw.granted', 'raw.continued', 'raw.opened', 'raw.revoked']);
    expect(log[0].details).toMatchObject({ record: '20261207T120000Z-5e6f7a8b', stream: 'stdout', running: true, size: 42 });
    expect(log[0].details.sha256).toBeUndefined();
    expect(log[1].details).toMatchObject({ grant: g.id, sha256: SHA, size: 1000 });
    expect(log[2].details).toMatchObject({ record: '20261207T120000Z-5e6f7a8b', stream: 'stdout', running: true, sha256: SHA, ranges: [[0, 100]] });
  });

  it('end with the capture when it is interrupted: a later call hears why', async () => {
    const { s, log } = store();
    const g = await running(s);
    await s.endRunning(g.id, 'capture-interrupted');
    expect(code(() => s.checkRunning(g.id, 1))).toBe('no-grant');
    expect(() => s.checkRunning(g.id, 1)).toThrow(/interrupted/);
    expect(log.at(-1)).toMatchObject({ action: 'raw.revoked', details: { why: 'capture-interrupted' } });
    expect(s.list(1)).toEqual([]);
  });
});
