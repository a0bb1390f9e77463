// The viewer's screen reconstruction: in a worker, streamed (no size limit, memory bounded by the
// terminal, not the artifact), with progress and cancellation, and its text under the one-reading
// rule (the screen shows only what the sanitized text keeps).
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WITHHELD_CELL, type RecordSummary, type ScreenStatus } from '../../../../shared/bridge/types';
import { reconstructScreen } from '../../../../app/services/screen/engine';
import { createArtifactService } from '../../../../app/services/artifact';
import { makeEnv, type Env } from '../bridge/env';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function importFile(env: Env, path: string): Promise<string> {
  env.setNextOpenFile(path);
  return (await env.ok<RecordSummary>(env.viewer(), 'openFile')).artifacts[0].ref;
}

async function untilDone(env: Env, ref: string, size: { cols: number; rows: number }, window = 1): Promise<{ last: ScreenStatus; progress: number[] }> {
  const progress: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const st = await env.ok<ScreenStatus>(env.viewer(window), 'getScreen', ref, size);
    if (st.state !== 'running') return { last: st, progress };
    progress.push(st.bytesDone);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('screen reconstruction did not end');
}

describe('screen view: one reading', () => {
  it('withholds on the screen what the sanitized text withholds (a payload one reading shows as text)', () => {
    // 0x9D: an OSC to an 8-bit terminal, U+FFFD then text to a UTF-8 one (xterm.js shows the payload).
    const input = Buffer.concat([Buffer.from('ok '), Buffer.from([0x9d]), Buffer.from('PAYLOADXYZ\x07 done\n')]);
    const r = reconstructScreen(input, { cols: 40, rows: 4 });
    expect(r.screen.join('\n')).not.toContain('PAYLOAD');
    expect(r.screen[0]).toMatch(new RegExp(`^ok ${WITHHELD_CELL}+ done$`));
    expect(r.withheldCells).toBeGreaterThanOrEqual(10);
    expect(r.layoutVerified).toBe(true);
    // Bidi and zero-width characters an emulator draws into cells are not shown either; kept
    // combining marks stay with their character.
    const marks = reconstructScreen(enc('e\u0301 a\u202eb\u200bc\n'), { cols: 40, rows: 4 });
    expect(marks.screen[0]).toBe('e\u0301 abc');
  });
});

describe('screen jobs', () => {
  let env: Env;
  let small = '';
  let big = '';
  let bigSize = 0;

  beforeAll(async () => {
    env = await makeEnv();
    const a = join(env.dir, 'small.log');
    await writeFile(a, Buffer.concat([Buffer.from('rm -rf /\rls -la   \nok '), Buffer.from([0x9d]), Buffer.from('PAYLOADXYZ\x07 done\n')]));
    small = await importFile(env, a);
    // Over the 16 MiB the engine used to refuse: 18 MiB of log lines.
    const b = join(env.dir, 'big.log');
    const block = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `line ${i} \x1b[32mok\x1b[0m\n`).join(''));
    bigSize = 18 << 20;
    const fh = await open(b, 'w', 0o600);
    for (let at = 0; at < bigSize; at += block.length) await fh.write(block, 0, Math.min(block.length, bigSize - at));
    await fh.close();
    big = await importFile(env, b);
  }, 120_000);
  afterAll(async () => {
    await env.close();
  });

  it('reconstructs in a worker and keeps each size apart; the view is under the one-reading rule', async () => {
    const { last } = await untilDone(env, small, { cols: 40, rows: 5 });
    expect(last.state).toBe('done');
    expect(last.view!.findings.map((f) => [f.kind, f.text])).toEqual([['overwritten', 'rm -rf /']]);
    expect(last.view!.screen.join('\n')).not.toContain('PAYLOAD');
    expect(last.view!.withheldCells).toBeGreaterThan(0);
    // Asked again: the kept view, at once.
    expect(await env.ok<ScreenStatus>(env.viewer(2), 'getScreen', small, { cols: 40, rows: 5 })).toMatchObject({ state: 'done' });
  });

  it('has no size limit: an 18 MiB artifact reconstructs, with progress on the way', async () => {
    const { last, progress } = await untilDone(env, big, { cols: 80, rows: 24 });
    expect(last.state, last.error ?? '').toBe('done');
    expect(last.totalBytes).toBe(bigSize);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.some((p) => p > 0 && p < bigSize)).toBe(true);
    expect(last.view!.counts.printed).toBeGreaterThan(10_000_000);
    expect(last.view!.screen.join('\n')).toMatch(/line \d+ ok\n/);
    expect(last.view!.layoutVerified).toBe(true);
  }, 300_000);

  it('stops when the last window that asked withdraws (cancelScreen or closing), not before', async () => {
    const size = { cols: 81, rows: 24 };
    await env.ok(env.viewer(1), 'getScreen', big, size);
    await env.ok(env.viewer(2), 'getScreen', big, size);
    expect(await env.ok<ScreenStatus>(env.viewer(1), 'cancelScreen', big, size)).toMatchObject({ state: 'running' });
    await env.services.windowClosed(2);
    const st = await env.ok<ScreenStatus>(env.viewer(1), 'getScreen', big, size);
    // Cancelled jobs start over when asked again: the answer is a fresh run.
    expect(st.state).toBe('running');
    expect(await env.ok<ScreenStatus>(env.viewer(1), 'cancelScreen', big, size)).toMatchObject({ state: 'cancelled' });
  });

  it('stops at its time budget', async () => {
    const svc = createArtifactService({ vault: env.services.vault, rawPath: (sha) => env.services.vault.rawPath(sha), screenBudgetMs: 300 });
    try {
      let st = await svc.getScreen(big, { cols: 80, rows: 24 }, 1);
      for (let i = 0; i < 400 && st.state === 'running'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        st = await svc.getScreen(big, { cols: 80, rows: 24 }, 1);
      }
      expect(st.state).toBe('failed');
      expect(st.error).toMatch(/time budget/);
    } finally {
      await svc.close();
    }
  }, 60_000);
});

describe('screen engine memory', () => {
  it('lists a finding\'s text up to MAX_SCREEN_FINDING_TEXT characters, its range whole', async () => {
    const { screenViewOf } = await import('../../../../app/services/screen/view');
    const { MAX_SCREEN_FINDING_TEXT } = await import('../../../../shared/bridge/limits');
    const hidden = 'h'.repeat(3000);
    const v = screenViewOf(enc(`${hidden}\x1b[2J\x1b[Hok\n`), 200, 24);
    expect(v.findings).toHaveLength(1);
    expect(v.findings[0]).toMatchObject({ kind: 'erased', offset: 0, length: 3000 });
    expect(v.findings[0].text).toBe('h'.repeat(MAX_SCREEN_FINDING_TEXT));
  });

  it('follows at most the emulator\'s cells plus a sweep\'s worth of characters, however long the input', () => {
    const text = Array.from({ length: 60_000 }, (_, i) => `row ${i} ${'x'.repeat(40)}\n`).join('');
    const r = reconstructScreen(enc(text), { cols: 80, rows: 24, scrollback: 1000 });
    expect(r.counts.printed).toBeGreaterThan(2_800_000);
    expect(r.peakChars).toBeLessThan(1_200_000);
    expect(r.findings).toEqual([]);
    expect(r.counts.scrolledOut).toBeGreaterThan(2_700_000);
  });

  it('holds back at most 8 MiB the sanitizer has not decided; feeds the rest unfollowed', () => {
    const input = Buffer.concat([Buffer.from('seen\n\x1b]0;'), Buffer.alloc(10 << 20, 0x61), Buffer.from('\x07after\n')]);
    const r = reconstructScreen(input, { cols: 40, rows: 4 });
    expect(r.unfollowedBytes).toBeGreaterThan(8 << 20);
    expect(r.layoutVerified).toBe(true);
    expect(r.screen.join('\n')).toContain('seen');
  });
});
