// A segmented lazy build (runs from fresh Sanitizers at segment starts, spliced where a later run's
// state matches: lazy-merge.ts) writes byte for byte the files of one lazy run: page table,
// checkpoints, minimap, stored pages, sums and manifest.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../../../shared/parser';
import type { BuildResult } from '../../../../app/services/artifact/build';
import { engineFingerprint } from '../../../../app/services/artifact/engine';
import { LAZY_FILE_ORDER, MANIFEST, SUMS } from '../../../../app/services/artifact/format';
import { buildLazyIndex } from '../../../../app/services/artifact/lazy-build';
import { hostileStream, restingHostileStream } from '../../../helpers/arbitraries';
// @ts-expect-error plain ESM module without types
import { hostileBlock } from '../../../../bench/viewer/hostile.mjs';

const root = mkdtempSync(join(tmpdir(), 'airlock-lazy-segments-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let seq = 0;

interface Built {
  readonly files: Record<string, Buffer>;
  readonly result: BuildResult;
}

function build(raw: string, sha: string, cr: 'newline' | 'overwrite', pageBytes: number, segments: number): Built {
  const outDir = join(root, `out-${seq++}`);
  mkdirSync(outDir, { mode: 0o700 });
  const result = buildLazyIndex({
    rawPath: raw, outDir, sha256: sha, engine: engineFingerprint(), pageBytes, segments, lazy: true, sanitizer: { cr, limits: { ...DEFAULT_LIMITS } },
  });
  const files: Record<string, Buffer> = {};
  for (const name of readdirSync(outDir)) files[name] = readFileSync(join(outDir, name));
  rmSync(outDir, { recursive: true, force: true });
  return { files, result };
}

function manifestOf(b: Built): string {
  const m = JSON.parse(b.files[MANIFEST].toString('utf8')) as Record<string, unknown>;
  delete m.builtMs;
  delete m.createdAt;
  return JSON.stringify(m);
}

/** Builds `bytes` in one lazy run and cut into each of `cuts` segments; all must match. Returns the splices made. */
function check(bytes: Uint8Array, pageBytes: number, cuts = [2, 3, 5], crs: ('newline' | 'overwrite')[] = ['newline', 'overwrite']): number {
  const sha = createHash('sha256').update(bytes).digest('hex');
  const raw = join(root, `raw-${seq++}`);
  writeFileSync(raw, bytes);
  let splices = 0;
  try {
    for (const cr of crs) {
      const one = build(raw, sha, cr, pageBytes, 1);
      for (const n of cuts) {
        const many = build(raw, sha, cr, pageBytes, n);
        const what = `${cr}, ${n} segments of ${pageBytes}-byte pages`;
        expect(Object.keys(many.files).sort(), what).toEqual(Object.keys(one.files).sort());
        for (const name of [...LAZY_FILE_ORDER, SUMS]) {
          if (!one.files[name].equals(many.files[name])) expect.fail(`${what}: ${name} differs (${one.files[name].length} vs ${many.files[name].length} bytes)`);
        }
        expect(manifestOf(many), what).toBe(manifestOf(one));
        splices += many.result.splices.length;
      }
    }
  } finally {
    rmSync(raw, { force: true });
  }
  return splices;
}

function repeat(block: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(block.length * n);
  for (let i = 0; i < n; i++) out.set(block, i * block.length);
  return out;
}

describe('segmented lazy build', () => {
  it('on the bench artifact, splicing at many boundaries', () => {
    expect(check(repeat(hostileBlock() as Uint8Array, 60), 1024)).toBeGreaterThan(5);
  });

  it('on plain text: one map segment open across every hand-over', () => {
    const text = Buffer.from(Array.from({ length: 3000 }, (_, i) => `plain line ${i} with no control at all`).join('\n'));
    expect(check(text, 2048)).toBeGreaterThan(3);
  });

  it('on CR- and BS-heavy text, with pending breaks and spaces near boundaries', () => {
    const unit = Buffer.from('working 10%\rworking 20%\rdone\n\x1b[Cx pass\b\b\b\bFAIL\n\x1b[2Aup\n');
    expect(check(repeat(unit, 400), 512)).toBeGreaterThan(3);
  });

  it('where the parser is not at rest across many boundaries (stored pages)', () => {
    const bytes = Buffer.concat([Buffer.from('start\n\x1b]0;'), Buffer.alloc(20000, 0x61), Buffer.from('\x07after\n'), Buffer.from(repeat(Buffer.from('ok \x1b[31mred\x1b[0m\n'), 800))]);
    check(bytes, 256, [2, 4]);
  });

  it('on a big generated hostile stream', () => {
    expect(check(restingHostileStream(300_000, 7), 1024, [2, 3])).toBeGreaterThan(1);
  });

  it('on random hostile streams', () => {
    fc.assert(fc.property(hostileStream(400), fc.integer({ min: 8, max: 96 }), (bytes, page) => {
      check(bytes, page, [2, 4]);
    }), { numRuns: 40 });
  });
});

describe('segmented lazy build in worker threads', () => {
  it('writes the files of one inline run', async () => {
    const { fixture, indexed } = await import('./helpers');
    const bytes = repeat(hostileBlock() as Uint8Array, 400);
    const one = await fixture({ pageBytes: 1024, lazyIndex: true });
    const threads = await fixture({ pageBytes: 1024, lazyIndex: true, inline: false, segments: 2, minParallelBytes: 1 });
    try {
      const a = await indexed(one, bytes);
      const b = await indexed(threads, bytes);
      for (const name of [...LAZY_FILE_ORDER, SUMS]) {
        const x = readFileSync(join(one.vault.root, 'index', a.sha, name));
        const y = readFileSync(join(threads.vault.root, 'index', b.sha, name));
        expect(y.equals(x), name).toBe(true);
      }
      // Nothing of the segments' own files is left in the index directory.
      expect(readdirSync(join(threads.vault.root, 'index', b.sha)).sort()).toEqual([...LAZY_FILE_ORDER, MANIFEST, SUMS].sort());
      expect((await threads.service.getTextLines(b.ref, 100, 3)).lines).toEqual((await one.service.getTextLines(a.ref, 100, 3)).lines);
    } finally {
      await one.cleanup();
      await threads.cleanup();
    }
  });
});

describe('segmented lazy build, memory', () => {
  it('hands every checkpoint of a later run to the merge, whatever the memory budget', () => {
    const bytes = repeat(hostileBlock() as Uint8Array, 200);
    const sha = createHash('sha256').update(bytes).digest('hex');
    const raw = join(root, `raw-${seq++}`);
    writeFileSync(raw, bytes);
    const one = build(raw, sha, 'newline', 256, 1);
    const outDir = join(root, `out-${seq++}`);
    mkdirSync(outDir, { mode: 0o700 });
    // A budget of nothing: an eager later run would spill its columns to files.
    buildLazyIndex({
      rawPath: raw, outDir, sha256: sha, engine: engineFingerprint(), pageBytes: 256, segments: 3, lazy: true, memoryBudget: 0,
      sanitizer: { cr: 'newline', limits: { ...DEFAULT_LIMITS } },
    });
    expect(readFileSync(join(outDir, 'checkpoints.bin')).equals(one.files['checkpoints.bin'])).toBe(true);
    expect(readdirSync(outDir).sort()).toEqual(Object.keys(one.files).sort());
  });
});
