// The index cache: second open is instant, a stale or damaged cache is rebuilt (never trusted),
// files are owner-only; the real worker thread builds with progress and can be cancelled.
import { openSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArtifactService } from '../../../../app/services/artifact';
import { fixture, indexed, type Fixture } from './helpers';
// @ts-expect-error plain ESM module without types
import { writeHostileArtifact } from '../../../../bench/viewer/hostile.mjs';

const sample = Buffer.from(Array.from({ length: 3000 }, (_, i) => `row ${i} \x1b[31mred\x1b[0m \x1b]0;title\x07ok\n`).join(''));

describe('index cache', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture({ pageBytes: 8192 });
  });
  afterAll(() => f.cleanup());

  it('is owner-only and served from the cache on the second open', async () => {
    const { ref, sha } = await indexed(f, sample);
    const dir = join(f.vault.root, 'index', sha);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(f.vault.root, 'index')).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(f.vault.root, 'index'))).toEqual([sha]); // no temp dirs left behind
    const st = await f.service.startIndex(ref);
    expect(st).toMatchObject({ state: 'done', cached: true, spans: 9000, totalBytes: sample.length });
  });

  it('a second service process opens the cache instantly', async () => {
    const { ref, path } = await indexed(f, Buffer.concat([sample, Buffer.from('x')]));
    const other = createArtifactService({ vault: f.vault, rawPath: () => path, inline: true, pageBytes: 8192 });
    const t0 = performance.now();
    const st = await other.startIndex(ref);
    expect(st.state).toBe('done');
    expect(st.cached).toBe(true);
    expect(performance.now() - t0).toBeLessThan(500);
    await other.close();
  });

  it('rebuilds a cache with a flipped byte, a truncated file, a bad manifest or another page size', async () => {
    const { ref, sha, path } = await indexed(f, Buffer.concat([sample, Buffer.from('y')]));
    const dir = join(f.vault.root, 'index', sha);
    const want = await f.service.getTextLines(ref, 2500, 3);
    const reopen = () => createArtifactService({ vault: f.vault, rawPath: () => path, inline: true, pageBytes: 8192 });

    // A flipped byte deep in the stored text: sizes still match, so open succeeds; the first read of that block fails its CRC.
    const fd = openSync(join(dir, 'stored-text.bin'), 'r+');
    const pos = Math.floor(statSync(join(dir, 'stored-text.bin')).size * 0.9);
    const old = readFileSync(join(dir, 'stored-text.bin'))[pos];
    writeSync(fd, Buffer.of(old ^ 0x20), 0, 1, pos);
    closeSync(fd);
    let s = reopen();
    expect((await s.startIndex(ref)).cached).toBe(true);
    await expect(s.getTextLines(ref, 2500, 3)).rejects.toThrow(/damaged/);
    await s.whenIndexed(ref);
    expect(await s.getTextLines(ref, 2500, 3)).toEqual(want);
    await s.close();

    // Truncated stored spans: refused at open and rebuilt.
    truncateSync(join(dir, 'stored-spans.bin'), 100);
    s = reopen();
    expect((await s.startIndex(ref)).cached).toBe(false);
    expect((await s.whenIndexed(ref)).state).toBe('done');
    expect(await s.getTextLines(ref, 2500, 3)).toEqual(want);
    await s.close();

    // A manifest of another sanitizer fingerprint (a parser/sanitizer update): stale, rebuilt.
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...m, sanitizerFingerprint: 'older' }));
    s = reopen();
    expect((await s.startIndex(ref)).cached).toBe(false);
    await s.whenIndexed(ref);
    await s.close();

    // Garbage manifest.
    writeFileSync(join(dir, 'manifest.json'), '{not json');
    s = reopen();
    expect((await s.startIndex(ref)).cached).toBe(false);
    await s.whenIndexed(ref);
    await s.close();

    // Another page size is another index.
    s = createArtifactService({ vault: f.vault, rawPath: () => path, inline: true, pageBytes: 4096 });
    expect((await s.startIndex(ref)).cached).toBe(false);
    await s.whenIndexed(ref);
    expect(await s.getTextLines(ref, 2500, 3)).toEqual(want);
    await s.close();
  });

  it('refuses raw bytes that do not match their digest', async () => {
    const { ref, path } = f.add(Buffer.from('honest bytes'));
    writeFileSync(path, 'swapped bytes');
    await f.service.startIndex(ref);
    const st = await f.service.whenIndexed(ref);
    expect(st.state).toBe('failed');
    expect(st.error).toMatch(/digest/);
  });
});

describe('index worker', () => {
  it('builds in a worker thread with progress, and cancels', async () => {
    const f = await fixture({ inline: false });
    try {
      const big = join(f.dir, 'big.bin');
      const info = writeHostileArtifact(big, 160 << 20) as { sha256: string };
      const rawPath = (s: string) => (s === info.sha256 ? big : join(f.dir, 'none'));
      const svc = createArtifactService({ vault: f.vault, rawPath });
      const ref = `restricted:sha256:${info.sha256}`;
      const started = await svc.startIndex(ref);
      expect(started.state).toBe('running');
      // Progress arrives while main's event loop stays free.
      let seen = 0;
      for (let i = 0; i < 400 && seen === 0; i++) {
        await new Promise((r) => setTimeout(r, 25));
        seen = (await svc.getIndexStatus(ref)).bytesDone;
      }
      expect(seen).toBeGreaterThan(0);
      const cancelled = await svc.cancelIndex(ref);
      expect(cancelled.state).toBe('cancelled');
      expect(readdirSync(join(f.vault.root, 'index'))).toEqual([]);
      // Start again and let it finish.
      await svc.startIndex(ref);
      const done = await svc.whenIndexed(ref);
      expect(done.state).toBe('done');
      expect(done.cached).toBe(false);
      expect(done.totalBytes).toBe(160 << 20);
      expect(done.spans).toBeGreaterThan(100_000);
      expect((await svc.getIndexStatus(ref)).state).toBe('done');
      const page = await svc.getTextLines(ref, 0, 5);
      expect(page.lines[0].pieces[0]).toMatchObject({ t: 'text', text: expect.stringContaining('block#') });
      await svc.close();
    } finally {
      await f.cleanup();
    }
  });
});

describe('concurrent starts', () => {
  it('join one build', async () => {
    const f = await fixture();
    try {
      const { ref } = f.add(sample);
      const all = await Promise.all([f.service.startIndex(ref), f.service.startIndex(ref), f.service.startIndex(ref)]);
      expect(new Set(all.map((s) => s.state)).size).toBe(1);
      expect((await f.service.whenIndexed(ref)).state).toBe('done');
      const names = readdirSync(join(f.vault.root, 'index'));
      expect(names).toHaveLength(1);
    } finally {
      await f.cleanup();
    }
  });
});

describe('after prune', () => {
  it('serves text and spans from the index when the raw bytes are gone; raw search says not-found', async () => {
    const f = await fixture();
    try {
      const { ref, path } = await indexed(f, sample);
      const want = await f.service.getTextLines(ref, 10, 5);
      const { rmSync } = await import('node:fs');
      rmSync(path);
      const fresh = createArtifactService({ vault: f.vault, rawPath: () => path, inline: true });
      expect((await fresh.startIndex(ref)).cached).toBe(true);
      expect(await fresh.getTextLines(ref, 10, 5)).toEqual(want);
      expect((await fresh.getSpans(ref, 0, 100)).length).toBeGreaterThan(0);
      await expect(fresh.searchRaw(ref, null, { mode: 'text', pattern: 'row' })).rejects.toThrow(/no longer in the vault/);
      await fresh.close();
    } finally {
      await f.cleanup();
    }
  });
});
