// No call freezes main: a search whose query would have cost O(text x query) (a Unicode
// case-insensitive query of 2000 characters, once one regex alternation per character, run on
// main) leaves main's event loop free, and while one window's long search runs another window's
// calls are answered at once; a search is ended by the next one of its window, by cancelSearch,
// or by its time budget.
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordSummary } from '../../../../shared/bridge/types';
import { createArtifactService } from '../../../../app/services/artifact';
import { approve, makeEnv, type Env } from './env';

/** Runs `f` and reports the longest stretch main's event loop went without running a 5 ms timer. */
async function maxLagDuring<T>(f: () => Promise<T>): Promise<{ value: T; lagMs: number }> {
  let last = performance.now();
  let lag = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - last - 5);
    last = now;
  }, 5);
  try {
    const value = await f();
    lag = Math.max(lag, performance.now() - last - 5);
    return { value, lagMs: lag };
  } finally {
    clearInterval(probe);
  }
}

async function importFile(env: Env, path: string): Promise<string> {
  env.setNextOpenFile(path);
  const rec = await env.ok<RecordSummary>(env.viewer(), 'openFile');
  const ref = rec.artifacts[0].ref;
  await env.ok(env.viewer(), 'startIndex', ref);
  for (let i = 0; i < 2400; i++) {
    const st = await env.ok<{ state: string }>(env.viewer(), 'getIndexStatus', ref);
    if (st.state === 'done') return ref;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('index not done');
}

/** A file of `size` bytes of `unit` repeated, written without holding it in memory. */
async function repeated(path: string, unit: string, size: number): Promise<void> {
  const block = Buffer.from(unit.repeat(Math.ceil((1 << 20) / Buffer.byteLength(unit))));
  const fh = await open(path, 'w', 0o600);
  try {
    for (let at = 0; at < size; at += block.length) await fh.write(block, 0, Math.min(block.length, size - at));
  } finally {
    await fh.close();
  }
}

describe('no call freezes main', () => {
  let env: Env;
  let kelvin = '';
  let big = '';
  let grant = '';

  beforeAll(async () => {
    env = await makeEnv();
    await env.ok(env.viewer(), 'startIndex', env.markerRef);
    // 128 KiB of "k"; a query of 1999 Kelvin signs (U+212A: its case variants are k and K) then
    // "é" matches 1999 characters at every position before it fails.
    const text = join(env.dir, 'kelvin.log');
    await writeFile(text, Buffer.from(`${'k'.repeat(128 << 10)}\n`));
    kelvin = await importFile(env, text);
    // 64 MiB for a long raw search.
    const raw = join(env.dir, 'big.log');
    await repeated(raw, 'aaaaaaab\x1b[31mred\x1b[0m\n', 64 << 20);
    big = await importFile(env, raw);
    grant = await approve(env, 1, big);
  }, 240_000);
  afterAll(async () => {
    await env.close();
  });

  it('a 2000-character case-insensitive query with a non-ASCII letter leaves main free, and another window is answered meanwhile', async () => {
    // (On be8ac32 this held main for ~20 s: one regex alternation per query character, on main.)
    const query = `${'\u212a'.repeat(1999)}é`;
    expect(query.length).toBeLessThanOrEqual(2000);
    const { value, lagMs } = await maxLagDuring(async () => {
      const search = env.ok<{ total: number }>(env.viewer(1), 'searchText', kelvin, query, {});
      const t0 = performance.now();
      await env.ok(env.viewer(2), 'getTextLines', env.markerRef, 0, 10);
      const otherMs = performance.now() - t0;
      return { hits: await search, otherMs };
    });
    expect(value.hits.total).toBe(0);
    expect(value.otherMs).toBeLessThan(1000);
    expect(lagMs).toBeLessThan(1000);
    // Without its last character it matches at every position 1999 characters from the end.
    const hits = await env.ok<{ total: number }>(env.viewer(1), 'searchText', kelvin, '\u212a'.repeat(1999), {});
    expect(hits.total).toBe((128 << 10) - 1999 + 1);
  }, 120_000);

  it('while a long search runs, the other window\'s calls come back at once; main stays free', async () => {
    // A 256-byte pattern with wildcards over 64 MiB: eight word operations a byte, in a search thread.
    const pattern = Array.from({ length: 256 }, (_, i) => (i % 2 ? '??' : '61')).join(' ');
    let searchDone = 0;
    const { lagMs, value } = await maxLagDuring(async () => {
      const search = env.ok<{ total: number }>(env.viewer(1), 'searchRaw', grant, { mode: 'hex', pattern }).then((h) => {
        searchDone = performance.now();
        return h;
      });
      await new Promise((r) => setTimeout(r, 50));
      const times: number[] = [];
      for (const [method, args] of [['getVaultInfo', []], ['listRecords', []], ['getTextLines', [env.markerRef, 0, 20]], ['getSpans', [env.markerRef, 0, 64]]] as const) {
        const t0 = performance.now();
        await env.ok(env.viewer(2), method, ...args);
        times.push(performance.now());
        expect(performance.now() - t0, method).toBeLessThan(1000);
      }
      return { answered: times.at(-1)!, hits: await search };
    });
    expect(value.answered).toBeLessThan(searchDone);
    expect(lagMs).toBeLessThan(1000);
  }, 120_000);

  it('a window\'s next search, cancelSearch and the time budget end a running search', async () => {
    const pattern = Array.from({ length: 256 }, (_, i) => (i % 2 ? '??' : '61')).join(' ');
    const first = env.call(env.viewer(1), 'searchRaw', grant, { mode: 'hex', pattern });
    await new Promise((r) => setTimeout(r, 30));
    const second = env.call(env.viewer(1), 'searchText', env.markerRef, 'red', {});
    // A text search and a raw search are two slots: the raw one runs on; a second raw one ends it.
    expect(await second).toMatchObject({ ok: true });
    const third = env.call(env.viewer(1), 'searchRaw', grant, { mode: 'text', pattern: 'red' });
    expect(await first).toMatchObject({ ok: false, code: 'cancelled' });
    expect(await third).toMatchObject({ ok: true });
    const fourth = env.call(env.viewer(1), 'searchRaw', grant, { mode: 'hex', pattern });
    await new Promise((r) => setTimeout(r, 30));
    await env.ok(env.viewer(1), 'cancelSearch');
    expect(await fourth).toMatchObject({ ok: false, code: 'cancelled' });
    // Another window's search is its own.
    const mine = env.call(env.viewer(2), 'searchText', env.markerRef, 'red', {});
    await env.ok(env.viewer(1), 'cancelSearch');
    expect(await mine).toMatchObject({ ok: true });
    // The budget: a service whose searches may take 100 ms.
    const svc = createArtifactService({ vault: env.services.vault, rawPath: (sha) => env.services.vault.rawPath(sha), queryBudgets: { searchMs: 100 } });
    try {
      await expect(svc.searchRaw(big, null, { mode: 'hex', pattern }, null)).rejects.toMatchObject({ code: 'timeout' });
    } finally {
      await svc.close();
    }
  }, 120_000);
});
