// A segmented build (the file cut into segments indexed by fresh Sanitizers, spliced where two runs
// are interchangeable: build-merge.ts) writes exactly the files of one run over the whole file:
// page table, stored pages, checkpoints, minimap, sums and the manifest (but for its build time)
// byte for byte, on inputs where the parser is not at rest across many page boundaries, in both
// CR modes, with small pages and many segments, inline and in worker threads.
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BuildCancelled, buildIndex, type BuildResult } from '../../../../app/services/artifact/build';
import { buildIndexParallel, type ParallelOptions } from '../../../../app/services/artifact/build-parallel';
import { resolveWorkerScript } from '../../../../app/services/artifact/worker-script';
import { sanitizerFingerprint } from '../../../../app/services/artifact/fingerprint';
import { FILE_ORDER, MANIFEST, SUMS } from '../../../../app/services/artifact/format';
import { DEFAULT_LIMITS } from '../../../../shared/parser';
import { hostileStream, restingHostileStream } from '../../../helpers/arbitraries';
// @ts-expect-error plain ESM module without types
import { hostileBlock } from '../../../../bench/viewer/hostile.mjs';

const root = mkdtempSync(join(tmpdir(), 'airlock-segments-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;

interface Built {
  readonly files: Record<string, Buffer>;
  readonly result: BuildResult;
}

function build(raw: string, sha: string, cr: 'newline' | 'overwrite', pageBytes: number, segments: number, maxLineBytes?: number): Built {
  const outDir = join(root, `out-${seq++}`);
  mkdirSync(outDir, { mode: 0o700 });
  const result = buildIndex({
    rawPath: raw, outDir, sha256: sha, sanitizerFingerprint: sanitizerFingerprint(), pageBytes, maxLineBytes, segments,
    sanitizer: { cr, limits: { ...DEFAULT_LIMITS } },
  });
  const files: Record<string, Buffer> = {};
  for (const name of readdirSync(outDir)) files[name] = readFileSync(join(outDir, name));
  rmSync(outDir, { recursive: true, force: true });
  return { files, result };
}

/** Manifest without the build's own time. */
function manifestOf(b: Built): unknown {
  const m = JSON.parse(b.files[MANIFEST].toString('utf8')) as Record<string, unknown>;
  delete m.builtMs;
  delete m.createdAt;
  return m;
}

function expectSame(a: Built, b: Built, what: string): void {
  expect(Object.keys(b.files).sort(), what).toEqual(Object.keys(a.files).sort());
  for (const name of [...FILE_ORDER, SUMS]) {
    if (!a.files[name].equals(b.files[name])) expect.fail(`${what}: ${name} differs (${a.files[name].length} vs ${b.files[name].length} bytes)`);
  }
  expect(manifestOf(b), what).toEqual(manifestOf(a));
  expect(JSON.stringify(manifestOf(b)), what).toBe(JSON.stringify(manifestOf(a)));
}

/** Builds `bytes` in one run and cut into each of `cuts` segments; all must match. Returns the splices made. */
function check(bytes: Uint8Array, opts: { pageBytes: number; cuts?: number[]; cr?: ('newline' | 'overwrite')[]; maxLineBytes?: number }): number {
  const sha = createHash('sha256').update(bytes).digest('hex');
  const raw = join(root, `raw-${seq++}`);
  writeFileSync(raw, bytes);
  let splices = 0;
  try {
    for (const cr of opts.cr ?? ['newline', 'overwrite']) {
      const one = build(raw, sha, cr, opts.pageBytes, 1, opts.maxLineBytes);
      expect(one.result.splices).toEqual([]);
      for (const n of opts.cuts ?? [2, 3, 7]) {
        const many = build(raw, sha, cr, opts.pageBytes, n, opts.maxLineBytes);
        expectSame(one, many, `${cr}, ${n} segments of ${opts.pageBytes}-byte pages`);
        splices += many.result.splices.length;
      }
    }
  } finally {
    rmSync(raw, { force: true });
  }
  return splices;
}

const enc = (s: string) => Buffer.from(s, 'latin1');
const utf8 = (s: string) => Buffer.from(s, 'utf8');
const repeat = (b: Uint8Array, n: number) => Buffer.concat(Array.from({ length: n }, () => b));

// (A later run offers to take over only every 8 pages, where it keeps a report: build-index-run.ts
// HAND_OVER_PAGES. The counts below say the splice was taken, not how often.)
describe('segmented index build equals one run', () => {
  it('on the bench\'s hostile artifact, splicing at many boundaries', () => {
    const bytes = repeat(hostileBlock() as Buffer, 40);
    const splices = check(bytes, { pageBytes: 512, cuts: [2, 4, 9, 25] });
    expect(splices).toBeGreaterThan(10);
    // Odd page sizes and a short line width (cuts inside lines straddle boundaries).
    expect(check(bytes.subarray(0, 20000), { pageBytes: 333, cuts: [3, 11], maxLineBytes: 40 })).toBeGreaterThan(3);
  });

  it('where the parser is not at rest across many boundaries', () => {
    const text = enc('plain words and a line\n'.repeat(20));
    // An OSC that never ends, one that ends pages later, a long DCS.
    check(Buffer.concat([text, enc('\x1b]0;'), enc('t'.repeat(5000)), text]), { pageBytes: 256 });
    check(Buffer.concat([text, enc('\x1b]0;'), enc('t'.repeat(5000)), enc('\x07'), text, enc('\x1bP1;2|'), enc('9'.repeat(3000)), enc('\x1b\\'), text]), { pageBytes: 256 });
    // A raw 0x9D: the 8-bit reading is in an OSC, the UTF-8 one sees text: a long ambiguous stretch.
    check(Buffer.concat([text, Uint8Array.of(0x9d), utf8('text after a raw C1 OSC byte, € and 本\n'.repeat(60)), Uint8Array.of(0x9c), text]), { pageBytes: 200 });
    check(Buffer.concat([text, Uint8Array.of(0x9d), utf8('stretch to the end\r\n'.repeat(100))]), { pageBytes: 128 });
    // A CSI whose parameters run past the limit over several pages.
    check(Buffer.concat([text, enc('\x1b[31;'), enc('9'.repeat(4000)), enc('m'), text]), { pageBytes: 300 });
    // The same stretches between many lines: later runs start inside them and splice after them.
    const lines = enc('a line of text that ends here\n'.repeat(30));
    const long = Buffer.concat(Array.from({ length: 12 }, (_, i) => Buffer.concat([lines,
      i % 3 === 0 ? Buffer.concat([enc('\x1b]0;'), enc('t'.repeat(900)), enc('\x07')])
        : i % 3 === 1 ? Buffer.concat([Uint8Array.of(0x9d), utf8('ambiguous € text\n'.repeat(50)), Uint8Array.of(0x9c)])
          : Buffer.concat([enc('\x1bP1|'), enc('q'.repeat(800)), enc('\x1b\\')])])));
    expect(check(long, { pageBytes: 128, cuts: [2, 5, 17] })).toBeGreaterThan(5);
  });

  it('on CR- and BS-heavy text, with pending breaks and spaces right at boundaries', () => {
    expect(check(enc('working 10%\rworking 20%\r\rdone\r\n'.repeat(200)), { pageBytes: 97 })).toBeGreaterThan(0);
    expect(check(enc('pass\b\b\b\bFAIL\r\x1b[5Cmoved\x1b[2Kgone\x1b[1A\n'.repeat(150)), { pageBytes: 64 })).toBeGreaterThan(0);
    // A CR (pending break) or a cursor-forward (pending space) as the last byte of every page.
    const page = 128;
    const withCrAtEdges = Buffer.alloc(page * 40, 0x61);
    for (let p = page - 1; p < withCrAtEdges.length; p += page) withCrAtEdges[p] = 0x0d;
    for (let p = 60; p < withCrAtEdges.length; p += 300) withCrAtEdges[p] = 0x0a;
    // A break pending at every boundary: no run can hand over, each goes on to the end.
    expect(check(withCrAtEdges, { pageBytes: page, cuts: [2, 5, 13] })).toBe(0);
    for (let p = 2 * page - 1; p < withCrAtEdges.length; p += 2 * page) withCrAtEdges[p] = 0x61;
    expect(check(withCrAtEdges, { pageBytes: page, cuts: [2, 5, 13] })).toBeGreaterThan(0);
    const cuf = enc('\x1b[C');
    const parts: Buffer[] = [];
    for (let p = 0; p < 40; p++) parts.push(enc(`${'x'.repeat(10)}\n${'x'.repeat(page - cuf.length - 11 - (p % 3 === 0 ? 1 : 0))}`), cuf, p % 3 === 0 ? enc(' ') : enc(''));
    expect(check(Buffer.concat(parts), { pageBytes: page, cuts: [2, 5, 13] })).toBeGreaterThan(0);
    // LF as the last byte of every page, and as the first.
    const lfs = Buffer.alloc(page * 30, 0x62);
    for (let p = page - 1; p < lfs.length; p += 2 * page) lfs[p] = 0x0a;
    for (let p = 2 * page; p < lfs.length; p += 2 * page) lfs[p] = 0x0a;
    expect(check(lfs, { pageBytes: page, cuts: [2, 6, 15], maxLineBytes: 50 })).toBeGreaterThan(0);
  });

  it('with invisible joiners, selectors and split characters at boundaries', () => {
    const page = 64;
    const pieces = [utf8('👩\u200d💻'), utf8('❤\ufe0f'), utf8('e\u0301'), utf8('本'), utf8('\u200b'), utf8('\u202e'), utf8('\u{e0041}'), utf8('🙂'), utf8('\u200d')];
    let splices = 0;
    for (const piece of pieces) {
      // Every other boundary has the piece across it, starting 0..len bytes before it; a line ends mid-page.
      for (let lead = 0; lead <= piece.length; lead++) {
        const bytes = Buffer.alloc(page * 32, 0x77);
        for (let p = 0; p < 32; p++) {
          bytes[p * page + 20] = 0x0a;
          if (p % 2 === 1) bytes.set(piece.subarray(0, Math.min(piece.length, bytes.length - (p + 1) * page + lead)), (p + 1) * page - lead);
        }
        splices += check(bytes, { pageBytes: page, cuts: [3, 8] });
      }
    }
    expect(splices).toBeGreaterThan(10);
  });

  it('on plain text: one map segment open across every hand-over', () => {
    const text = Buffer.from(Array.from({ length: 3000 }, (_, i) => `plain line ${i} with no control at all`).join('\n'));
    expect(check(text, { pageBytes: 2048, cuts: [2, 3, 5] })).toBeGreaterThan(3);
  });

  it('on random hostile streams', () => {
    let randomSplices = 0;
    fc.assert(
      fc.property(fc.array(hostileStream(200), { minLength: 1, maxLength: 12 }), fc.integer({ min: 16, max: 200 }), (chunks, pageBytes) => {
        const bytes = Buffer.concat([...chunks, ...chunks, ...chunks]);
        if (bytes.length === 0) return;
        randomSplices += check(bytes, { pageBytes, cuts: [2, 5] });
      }),
      { numRuns: 40 },
    );
    // Small random streams often cannot splice at all (that is the run-on path); the big one must.
    void randomSplices;
    expect(check(restingHostileStream(200_000, 7), { pageBytes: 4096, cuts: [2, 6, 17] })).toBeGreaterThan(0);
  });

  it("when a later run's checkpoints fill several buffers", () => {
    const lines = Buffer.concat([repeat(enc('ab\r\x1b[31mx\x1b[0m\n'), 30_000), repeat(enc('\n'), 400_000)]);
    expect(check(lines, { pageBytes: 16384, cuts: [2, 3], cr: ['newline'] })).toBeGreaterThan(0);
  });

  it('on files of one page, of a page and a byte, and empty', () => {
    check(enc('one page\n'.repeat(10)), { pageBytes: 90, cuts: [2, 5] });
    check(enc('one page\n'.repeat(10) + 'x'), { pageBytes: 90, cuts: [2, 5] });
    check(new Uint8Array(0), { pageBytes: 90, cuts: [2] });
  });
});

describe('segmented index build in worker threads', () => {
  const block = hostileBlock() as Buffer;
  const bytes = Buffer.concat([repeat(block, 700), enc('\x1b]0;'), enc('t'.repeat(70_000)), repeat(block, 300), Uint8Array.of(0x9d), repeat(utf8('a long ambiguous stretch € \r\n'), 3000), repeat(block, 400)]);
  const sha = createHash('sha256').update(bytes).digest('hex');
  const raw = join(root, 'threads-raw');
  writeFileSync(raw, bytes);

  const threaded = async (cr: 'newline' | 'overwrite', segments: number, extra: Partial<ParallelOptions> = {}) => {
    const outDir = join(root, `out-${seq++}`);
    mkdirSync(outDir, { mode: 0o700 });
    const progress: number[] = [];
    const cancel = new SharedArrayBuffer(4);
    try {
      const result = await buildIndexParallel(
        { rawPath: raw, outDir, sha256: sha, sanitizerFingerprint: sanitizerFingerprint(), pageBytes: 16384, segments, sanitizer: { cr, limits: { ...DEFAULT_LIMITS } }, onProgress: (b) => progress.push(b) },
        { script: await resolveWorkerScript(), cancel, minParallelBytes: 0, ...extra },
      );
      const files: Record<string, Buffer> = {};
      for (const name of readdirSync(outDir)) files[name] = readFileSync(join(outDir, name));
      return { built: { files, result }, progress };
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  };

  it('writes the same files as one run, with progress', async () => {
    for (const cr of ['newline', 'overwrite'] as const) {
      const one = build(raw, sha, cr, 16384, 1);
      for (const n of [2, 4]) {
        const { built, progress } = await threaded(cr, n);
        expectSame(one, built, `${cr}, ${n} threads`);
        if (cr === 'newline') expect(built.result.splices.length).toBe(n - 1);
        expect(progress.length).toBeGreaterThan(0);
        expect(Math.max(...progress)).toBeLessThanOrEqual(bytes.length);
      }
    }
  }, 120_000);

  it('fails as a whole when one segment\'s run fails, and refuses bytes that are not their digest', async () => {
    await expect(threaded('newline', 3, { failSegmentForTest: 2 })).rejects.toThrow(/segment run failed/);
    await expect(threaded('newline', 3, { failSegmentForTest: 1 })).rejects.toThrow(/segment run failed/);
    const outDir = join(root, `out-${seq++}`);
    mkdirSync(outDir, { mode: 0o700 });
    await expect(buildIndexParallel(
      { rawPath: raw, outDir, sha256: '0'.repeat(64), sanitizerFingerprint: sanitizerFingerprint(), pageBytes: 16384, segments: 2, sanitizer: { cr: 'newline', limits: { ...DEFAULT_LIMITS } } },
      { script: await resolveWorkerScript(), cancel: new SharedArrayBuffer(4), minParallelBytes: 0 },
    )).rejects.toThrow(/do not match their digest/);
    rmSync(outDir, { recursive: true, force: true });
  }, 120_000);

  it('cancels', async () => {
    const outDir = join(root, `out-${seq++}`);
    mkdirSync(outDir, { mode: 0o700 });
    const cancel = new SharedArrayBuffer(4);
    const flag = new Int32Array(cancel);
    let calls = 0;
    await expect(buildIndexParallel(
      {
        rawPath: raw, outDir, sha256: sha, sanitizerFingerprint: sanitizerFingerprint(), pageBytes: 4096, segments: 3, sanitizer: { cr: 'newline', limits: { ...DEFAULT_LIMITS } },
        onProgress: () => {
          if (++calls === 3) Atomics.store(flag, 0, 1);
        },
      },
      { script: await resolveWorkerScript(), cancel, minParallelBytes: 0 },
    )).rejects.toBeInstanceOf(BuildCancelled);
    rmSync(outDir, { recursive: true, force: true });
  }, 120_000);

  it('writes the files of one inline run through the service (worker threads, nothing of the segments left)', async () => {
    const { fixture, indexed } = await import('./helpers');
    const one = await fixture({ pageBytes: 1024, storeAllPages: false });
    const threads = await fixture({ pageBytes: 1024, storeAllPages: false, inline: false, segments: 2, minParallelBytes: 1 });
    try {
      const small = repeat(block, 400);
      const a = await indexed(one, small);
      const b = await indexed(threads, small);
      for (const name of [...FILE_ORDER, SUMS]) {
        const x = readFileSync(join(one.vault.root, 'index', a.sha, name));
        const y = readFileSync(join(threads.vault.root, 'index', b.sha, name));
        expect(y.equals(x), name).toBe(true);
      }
      expect(readdirSync(join(threads.vault.root, 'index', b.sha)).sort()).toEqual([...FILE_ORDER, MANIFEST, SUMS].sort());
      expect((await threads.service.getTextLines(b.ref, 100, 3)).lines).toEqual((await one.service.getTextLines(a.ref, 100, 3)).lines);
    } finally {
      await one.cleanup();
      await threads.cleanup();
    }
  }, 120_000);
});
