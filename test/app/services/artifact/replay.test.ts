// An index whose pages are replayed (pages.ts, replay.ts) serves, page by page, exactly the columns
// one run over the file writes when it stores every page: spans, text, offset map and line starts,
// byte for byte, whether a page is replayed from a quiet boundary or stored; it stores only pages
// no replay reaches cheaply; a raw file that changed is caught.
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ArtifactServiceOptions } from '../../../../app/services/artifact';
import { LAZY_MINI_BYTES, SPAN_RECORD, type IndexManifest } from '../../../../app/services/artifact/format';
import { SPAN_CLASS_COUNT } from '../../../../shared/parser';
import { MAX_REPLAY_PAGES, PAGE_FIELDS, PageField } from '../../../../app/services/artifact/pages';
import { hostileStream } from '../../../helpers/arbitraries';
// @ts-expect-error plain ESM module without types
import { hostileBlock } from '../../../../bench/viewer/hostile.mjs';
import { searchTextLazy } from '../../../../app/services/artifact/lazy-search';
import { replayPages, replayText, warmReplay, type ReplaySource } from '../../../../app/services/artifact/replay';
import { IndexReader } from '../../../../app/services/artifact/reader';
import { fixture, indexed, readColumn, type Fixture } from './helpers';

async function openReader(f: Fixture, a: { sha: string; path: string }): Promise<IndexReader> {
  const dir = join(f.vault.root, 'index', a.sha);
  const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as IndexManifest;
  return IndexReader.open(dir, { sha256: m.sha256, size: m.size, sanitizerFingerprint: m.sanitizerFingerprint, sanitizer: m.sanitizer, pageBytes: m.pageBytes, maxLineBytes: m.maxLineBytes, rawPath: a.path, secretsKey: m.secrets.key });
}

const OVERWRITE = { cr: 'overwrite' as const, limits: { maxCsiParamBytes: 256, maxStringBytes: 65536, maxEscIntermediates: 8 } };
const COLUMNS = ['spans.bin', 'text.bin', 'map.bin', 'lines.bin'] as const;

/**
 * Indexes `bytes` storing every page (`eager`: one run writes every column) and replaying pages
 * (`lazy`), with the same options; returns both artifacts' columns and the replayed one's manifest.
 */
async function both(bytes: Uint8Array, o: Partial<ArtifactServiceOptions>) {
  const eager = await fixture({ ...o, storeAllPages: true });
  const lazy = await fixture({ ...o, storeAllPages: false });
  try {
    const a = await indexed(eager, bytes);
    const b = await indexed(lazy, bytes);
    const cols: Record<string, [Buffer, Buffer]> = {};
    for (const name of COLUMNS) cols[name] = [await readColumn(eager, a, name), await readColumn(lazy, b, name)];
    const dir = join(lazy.vault.root, 'index', b.sha);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as IndexManifest;
    const eagerManifest = JSON.parse(readFileSync(join(eager.vault.root, 'index', a.sha, 'manifest.json'), 'utf8')) as IndexManifest;
    // Spans name their meaning by its id in the index's table: a replayed index's is sorted, a stored one's in order of appearance.
    cols['spans.bin'] = [withMeanings(cols['spans.bin'][0], eagerManifest.meanings), withMeanings(cols['spans.bin'][1], manifest.meanings)];
    const table = new Float64Array(new Uint8Array(readFileSync(join(dir, 'pages.bin'))).buffer);
    const eagerDir = join(eager.vault.root, 'index', a.sha);
    const same = (name: string) => readFileSync(join(dir, name)).equals(readFileSync(join(eagerDir, name)));
    return { cols, manifest, table, minimapSame: sameMinimap(eagerManifest, readFileSync(join(eagerDir, 'minimap.bin')), manifest, readFileSync(join(dir, 'minimap.bin'))), checkpointsSame: same('checkpoints.bin') };
  } finally {
    await eager.cleanup();
    await lazy.cleanup();
  }
}

/**
 * A replayed index's minimap (wider buckets: format.ts lazyMinimap, a whole number of fine ones
 * each) equals the stored one's summed to its buckets: every span counted in the bucket it begins in.
 */
function sameMinimap(em: IndexManifest, eager: Buffer, lm: IndexManifest, lazy: Buffer): boolean {
  const per = lm.minimap.bucketBytes / em.minimap.bucketBytes;
  if (!Number.isInteger(per) || lm.minimap.bucketBytes < LAZY_MINI_BYTES && lm.minimap.buckets > 1) return false;
  const e = new Uint32Array(new Uint8Array(eager).buffer);
  const l = new Uint32Array(new Uint8Array(lazy).buffer);
  const want = new Uint32Array(l.length);
  for (let c = 0; c < SPAN_CLASS_COUNT; c++) {
    for (let k = 0; k < em.minimap.buckets; k++) want[c * lm.minimap.buckets + Math.floor(k / per)] += e[c * em.minimap.buckets + k];
  }
  return e.length === SPAN_CLASS_COUNT * em.minimap.buckets && Buffer.from(want.buffer).equals(Buffer.from(l.buffer));
}

/** Span records with the meaning id replaced by the meaning (JSON, one line per span). */
function withMeanings(spans: Buffer, meanings: readonly string[]): Buffer {
  const out: string[] = [];
  for (let at = 0; at < spans.length; at += SPAN_RECORD) {
    const idTerm = spans.readUInt16LE(at + 20);
    out.push(JSON.stringify([spans.readDoubleLE(at), spans.readDoubleLE(at + 8), spans.readInt32LE(at + 16), meanings[idTerm & 0xfff], idTerm >> 12, spans[at + 22], spans[at + 23]]));
  }
  return Buffer.from(out.join('\n'));
}

function expectSame(r: Awaited<ReturnType<typeof both>>): void {
  for (const name of COLUMNS) expect(r.cols[name][1].equals(r.cols[name][0]), name).toBe(true);
  expect(r.minimapSame).toBe(true);
  expect(r.checkpointsSame).toBe(true);
  expect(r.manifest.replayPages).toBe(MAX_REPLAY_PAGES);
}

/** Pages of a build that are stored, and the farthest a replay reaches back. */
function pageStats(table: Float64Array): { pages: number; stored: number; reach: number } {
  const pages = table.length / PAGE_FIELDS - 1;
  let stored = 0;
  let reach = 0;
  for (let p = 0; p < pages; p++) {
    const r = table[p * PAGE_FIELDS + PageField.Restart];
    if (r < 0) stored++;
    else reach = Math.max(reach, p - r);
  }
  return { pages, stored, reach };
}

describe('an index whose pages are replayed', () => {
  it('serves the columns of one that stores every page byte for byte on random hostile streams at small pages (newline mode)', async () => {
    await fc.assert(fc.asyncProperty(hostileStream(160), fc.integer({ min: 1, max: 48 }), async (bytes, pageBytes) => {
      expectSame(await both(bytes, { pageBytes }));
    }), { numRuns: 40 });
  });

  it('serves the columns of one that stores every page byte for byte in overwrite mode', async () => {
    await fc.assert(fc.asyncProperty(hostileStream(120), fc.integer({ min: 1, max: 32 }), async (bytes, pageBytes) => {
      expectSame(await both(bytes, { pageBytes, sanitizerFor: async () => OVERWRITE }));
    }), { numRuns: 25 });
  });

  it('counts each span in the minimap bucket it begins in, across bucket edges inside sequences and strings', async () => {
    // Long enough for ~100 buckets of ~4 KiB, so spans open across bucket and page edges everywhere.
    await fc.assert(fc.asyncProperty(hostileStream(160), fc.integer({ min: 700, max: 9000 }), async (stream, pageBytes) => {
      // The stream again and again, shifted by 1-7 bytes of text each time, to 500 KB (~30 buckets).
      const parts: Uint8Array[] = [];
      for (let i = 0, n = 0; n < 500_000; i++) {
        parts.push(stream, Buffer.alloc((i % 7) + 1, 0x78));
        n += stream.length + (i % 7) + 1;
      }
      const bytes = Buffer.concat(parts);
      const r = await both(bytes, { pageBytes });
      expect(r.manifest.minimap.buckets).toBeGreaterThan(20);
      expectSame(r);
    }), { numRuns: 6 });
  });

  it('replays most pages of the bench artifact', async () => {
    const block = hostileBlock() as Uint8Array;
    const bytes = new Uint8Array(block.length * 200);
    for (let i = 0; i < 200; i++) bytes.set(block, i * block.length);
    const r = await both(bytes, { pageBytes: 4096 });
    expectSame(r);
    const s = pageStats(r.table);
    expect(s.pages).toBe(Math.ceil(bytes.length / 4096));
    expect(s.stored).toBeLessThan(s.pages / 10);
    expect(s.reach).toBeLessThanOrEqual(MAX_REPLAY_PAGES);
  });

  it('stores the pages of a stretch that is never at rest, and serves them', async () => {
    // An unterminated OSC is open across every boundary after the first few: no replay can start there.
    const bytes = Buffer.concat([Buffer.from('head line\n\x1b]0;'), Buffer.alloc(4000, 0x78), Buffer.from('\x07tail\n\x1b[31mred\x1b[0m\n')]);
    const r = await both(bytes, { pageBytes: 64 });
    expectSame(r);
    const s = pageStats(r.table);
    expect(s.stored).toBeGreaterThan(50);
    expect(s.reach).toBeLessThanOrEqual(MAX_REPLAY_PAGES);
  });

  it('stores pages where a line break or space is pending at every boundary', async () => {
    // CSI C (a space pending) right before each 16-byte boundary: never quiet there.
    const unit = Buffer.from('abcdefghijklm\x1b[C');
    const bytes = Buffer.concat(Array.from({ length: 300 }, () => unit));
    const r = await both(bytes, { pageBytes: 16 });
    expectSame(r);
    expect(pageStats(r.table).stored).toBeGreaterThan(250);
  });

  it('searches its sanitized text as one that stores every page does (text-only replays, through removed bytes)', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `row ${i} \x1b[3${i % 8}mFA\x1b[0mIL \x1b]0;x\x07Straße ${i % 7 === 0 ? 'needle' : 'hay'}\r\n`);
    const bytes = Buffer.from(lines.join(''), 'utf8');
    const eager = await fixture({ pageBytes: 512, storeAllPages: true });
    const lazy = await fixture({ pageBytes: 512, storeAllPages: false });
    try {
      const a = await indexed(eager, bytes);
      const b = await indexed(lazy, bytes);
      const reader = await openReader(lazy, b);
      try {
        for (const [q, cs] of [['FAIL', true], ['fail', false], ['needle', true], ['STRAßE', false], ['row 2999', true], ['L S', false], ['\n', true]] as const) {
          const want = await eager.service.searchText(a.ref, q, { caseSensitive: cs });
          const got = await lazy.service.searchText(b.ref, q, { caseSensitive: cs });
          expect({ ...got, elapsedMs: 0 }, q).toEqual({ ...want, elapsedMs: 0 });
          expect(want.total, q).toBeGreaterThan(0);
          // Cut into ranges (as worker threads search them): hits across range and piece edges once each.
          for (const ranges of [2, 3, 7]) {
            const cut = await searchTextLazy(reader, q, cs, null, ranges);
            expect({ ...cut, elapsedMs: 0 }, `${q} in ${ranges} ranges`).toEqual({ ...want, elapsedMs: 0 });
          }
        }
      } finally {
        await reader.close();
      }
    } finally {
      await eager.cleanup();
      await lazy.cleanup();
    }
  });

  it('replays text with a bare Sanitizer exactly as a full replay does, from every page a replay starts at', async () => {
    /** Pages where replayText gave up (null) over all runs: the fallback, which must stay rare. */
    let fellBack = 0;
    let tried = 0;
    const check = async (bytes: Uint8Array, o: Partial<ArtifactServiceOptions>): Promise<void> => {
      const f = await fixture({ ...o, storeAllPages: false });
      try {
        const a = await indexed(f, bytes);
        const reader = await openReader(f, a);
        try {
          // (An empty artifact has no page to replay.)
          const store = reader.pages;
          if (store === null) return;
          const src: ReplaySource = { ...store.source, table: store.table };
          const t = store.table;
          for (let p = 0; p < t.pages; p++) {
            if (p > 0 && t.get(p, PageField.Neutral) !== 1) continue;
            const to = Math.min(t.pages - 1, p + 5);
            const want = replayPages(src, p, to, ['text.bin']).map((x) => Buffer.from(x.text));
            const got = replayText(src, p, to);
            tried++;
            if (got === null) fellBack++;
            else expect(got.map((x) => Buffer.from(x)), `pages ${p}..${to}`).toEqual(want);
          }
        } finally {
          await reader.close();
        }
      } finally {
        await f.cleanup();
      }
    };
    await fc.assert(fc.asyncProperty(hostileStream(160), fc.integer({ min: 1, max: 48 }), async (bytes, pageBytes) => {
      await check(bytes, { pageBytes });
    }), { numRuns: 25 });
    await fc.assert(fc.asyncProperty(hostileStream(120), fc.integer({ min: 1, max: 32 }), async (bytes, pageBytes) => {
      await check(bytes, { pageBytes, sanitizerFor: async () => OVERWRITE });
    }), { numRuns: 15 });
    const block = hostileBlock() as Uint8Array;
    const bench = new Uint8Array(block.length * 100);
    for (let i = 0; i < 100; i++) bench.set(block, i * block.length);
    const before = fellBack;
    await check(bench, { pageBytes: 4096 });
    // Replays that start after text, after a space and at a line start, each followed by a control
    // that leaves a space or a break pending (kept or dropped by what the text before it was).
    // Every piece is one 8-byte page, so each control opens a page whose start a replay begins at.
    const seams = Buffer.from(['word wor', '\x1b[Cxyz', 'ends...\n', '\x1b[Cabc', 'abc def ', '\x1bEline', 'ends...\n', '\x1b[1;5H'].map((x) => x.padEnd(8, '.')).join('').repeat(40));
    await check(seams, { pageBytes: 8 });
    await check(seams, { pageBytes: 8, sanitizerFor: async () => OVERWRITE });
    // The bench artifact's pages and the seams all take the fast path.
    expect(fellBack).toBe(before);
    expect(tried).toBeGreaterThan(50);
    expect(fellBack).toBeLessThan(tried / 10);
  });

  it('warms the replay code on an artifact without writing or failing, whatever the raw file', async () => {
    const { mkdtempSync, readdirSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'airlock-warm-'));
    try {
      const raw = join(dir, 'raw');
      writeFileSync(raw, Buffer.concat(Array.from({ length: 300 }, () => hostileBlock() as Uint8Array)));
      const o = { sha256: 'x'.repeat(64), sanitizerFingerprint: 'e', sanitizer: OVERWRITE, pageBytes: 4096, maxLineBytes: 4096 };
      const before = process.cwd();
      expect(() => warmReplay({ ...o, rawPath: raw })).not.toThrow();
      expect(() => warmReplay({ ...o, sanitizer: { ...OVERWRITE, cr: 'newline' }, rawPath: raw })).not.toThrow();
      // No file: no warm-up, and no error either.
      expect(() => warmReplay({ ...o, rawPath: join(dir, 'pruned') })).not.toThrow();
      expect(readdirSync(dir)).toEqual(['raw']);
      expect(process.cwd()).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('searches in worker threads as it does inline', async () => {
    const bytes = Buffer.from(Array.from({ length: 20000 }, (_, i) => `line ${i} \x1b[3${i % 8}mwarn\x1b[0ming ${i % 1000 === 0 ? 'RARE' : ''}\n`).join(''));
    const inline = await fixture({ pageBytes: 4096, storeAllPages: false });
    const threads = await fixture({ pageBytes: 4096, storeAllPages: false, inline: false });
    try {
      const a = await indexed(inline, bytes);
      const b = await indexed(threads, bytes);
      for (const q of ['warning', 'RARE', 'line 19999']) {
        const want = await inline.service.searchText(a.ref, q, { caseSensitive: true });
        const got = await threads.service.searchText(b.ref, q, { caseSensitive: true });
        expect({ ...got, elapsedMs: 0 }, q).toEqual({ ...want, elapsedMs: 0 });
      }
      expect((await inline.service.searchText(a.ref, 'RARE', { caseSensitive: true })).total).toBe(20);
    } finally {
      await inline.cleanup();
      await threads.cleanup();
    }
  });

  it('drops the index when the raw file changed under it, and says so', async () => {
    const f = await fixture({ pageBytes: 4096, storeAllPages: false });
    try {
      // 117 pages: more than the replayed pages a service keeps, and more than a page of text reads.
      const bytes = Buffer.from(Array.from({ length: 20000 }, (_, i) => `line ${i} \x1b[3${i % 8}mcolour\x1b[0m\n`).join(''));
      const a = await indexed(f, bytes);
      const page = await f.service.getTextLines(a.ref, 0, 3);
      expect(page.lines.length).toBe(3);
      // The same length, other controls: the replay's counts differ from the page table's.
      writeFileSync(a.path, Buffer.from(bytes.toString('latin1').replace(/\x1b\[3(\d)m/g, 'XX$1XX'), 'latin1'));
      await expect(f.service.getTextLines(a.ref, page.totalLines - 5, 5)).rejects.toThrow(/damaged|rebuilt/);
    } finally {
      await f.cleanup();
    }
  });

  it('says the raw bytes were pruned when a page must be replayed without them', async () => {
    const f = await fixture({ pageBytes: 256, storeAllPages: false });
    try {
      const a = await indexed(f, Buffer.from('one\ntwo\n'.repeat(500)));
      const { rmSync } = await import('node:fs');
      rmSync(a.path);
      const { createArtifactService } = await import('../../../../app/services/artifact');
      const svc = createArtifactService({ vault: f.vault, rawPath: () => a.path, inline: true, pageBytes: 256 });
      expect((await svc.startIndex(a.ref)).cached).toBe(true);
      await expect(svc.getTextLines(a.ref, 0, 5)).rejects.toThrow(/pruned/);
      await svc.close();
    } finally {
      await f.cleanup();
    }
  });
});
