// The WebAssembly SIMD rows (shared/hex/row-simd.wat) behind HexRowWriter write byte for byte what
// the JavaScript rows write, for every input, start offset and way of cutting the rows; and the
// module shipped in row-simd.generated.ts is what the .wat assembles to.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HexRowWriter } from '../../shared/hex/row-bytes';
import { createRowSimd } from '../../shared/hex/row-simd';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';

// Weighted to what SIMD must get right (each caret class, the escaped \ ^ < |, DEL) and to
// what must send a row back to JavaScript (bytes from 0x80 on, characters across a row edge).
const ASCII_TRICKY = [0x00, 0x07, 0x08, 0x09, 0x0a, 0x1b, 0x1f, 0x20, 0x3c, 0x5c, 0x5e, 0x7c, 0x7e, 0x7f];
const chunk = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((s) => Array.from(new TextEncoder().encode(s))) },
  { weight: 2, arbitrary: fc.array(fc.constantFrom(...ASCII_TRICKY), { maxLength: 20 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 6 }).map((b) => Array.from(b)) },
  // 2- and 3-byte characters SIMD copies once shown; ones shown as notation (C1 as UTF-8, bidi,
  // zero-width, combining, noncharacters); 4-byte ones; ill-formed ones (overlong, surrogate).
  { weight: 2, arbitrary: fc.constantFrom('€', '本', 'é', 'ñ', '─', '✓', '→', 'Ж', '\u0085', '\u202e', '\u200b', '\u0301', '\ufeff', '\ufffe', '\u00a0', '🙂').map((s) => Array.from(new TextEncoder().encode(s))) },
  { weight: 1, arbitrary: fc.constantFrom([0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xc2], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x28, 0xa1]) },
);
const stream = fc.array(chunk, { maxLength: 30 }).map((parts) => Uint8Array.from(parts.flat()));

/**
 * Writes `bytes` (stream offset `base` for its first byte) as rows of 16 in stretches of the given
 * lengths; with `simd`, input and output are in the writer's SIMD memory.
 */
function dump(bytes: Uint8Array, base: number, stretches: number[], streamEnds: boolean, simd: boolean): string {
  const writer = new HexRowWriter(16);
  const rows = Math.ceil(bytes.length / 16);
  const size = writer.maxRowBytes * (rows + 1);
  const input = simd ? writer.allocate(bytes.length + 16) : new Uint8Array(bytes.length + 16);
  const out = simd ? writer.allocate(size) : new Uint8Array(size);
  input.set(bytes);
  let p = 0;
  const full = Math.floor(bytes.length / 16);
  for (let row = 0, k = 0; row < full; k++) {
    const count = Math.min(stretches[k % stretches.length], full - row);
    p = writer.writeRows(out, p, input, row * 16, 16, count, base + row * 16, bytes.length, streamEnds);
    row += count;
  }
  if (full * 16 < bytes.length) p = writer.writeRow(out, p, input, full * 16, bytes.length - full * 16, base + full * 16, bytes.length, streamEnds);
  return Buffer.from(out.subarray(0, p)).toString('latin1');
}

describe('SIMD hex rows', () => {
  it('is available here (Node has WebAssembly SIMD), so the tests below compare two writers', () => {
    expect(createRowSimd(new Uint16Array(128), new Uint8Array(128))).not.toBeNull();
  });

  it('writes the rows the JavaScript writer writes, in stretches or one by one, at any offset', () => {
    const bases = fc.oneof(fc.constant(0), fc.nat(1 << 30).map((n) => n * 16), fc.constantFrom(0xffff_ff00, 0xffff_ffc0, 0xffff_fff0, 0x1_0000_0000 - 48));
    fc.assert(
      fc.property(stream, bases, fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 8 }), fc.boolean(), (bytes, base, stretches, streamEnds) => {
        expect(dump(bytes, base, stretches, streamEnds, true)).toBe(dump(bytes, base, stretches, streamEnds, false));
      }),
      { numRuns: 600, seed: 20261204 },
    );
  });

  it('writes every ASCII byte value in every column of a row as the JavaScript writer does', () => {
    for (let b = 0; b < 0x80; b++) {
      for (const col of [0, 7, 8, 15]) {
        const bytes = new Uint8Array(48).fill(0x41);
        bytes[16 + col] = b;
        expect(dump(bytes, 0x1230, [3], true, true)).toBe(dump(bytes, 0x1230, [3], true, false));
      }
    }
  });

  it('writes rows of repeated 2- and 3-byte characters (after the first, copied by SIMD) as the JavaScript writer does', () => {
    // A log line of box drawing, accents, CJK, a check mark, and a zero-width space (notation:
    // never copied), shifted by 0..15 bytes so every character meets every column and row edge.
    const line = new TextEncoder().encode('── résumé 本日 ✓ ok\u200b done ──\n');
    for (let shift = 0; shift < 16; shift++) {
      const bytes = new Uint8Array(shift + line.length * 40);
      for (let k = 0; k < 40; k++) bytes.set(line, shift + k * line.length);
      for (const stretches of [[1], [7], [64]]) expect(dump(bytes, 0x400, stretches, true, true)).toBe(dump(bytes, 0x400, stretches, true, false));
    }
  });

  it('falls back to plain arrays once its memory is handed out (rows are then written in JavaScript)', () => {
    const writer = new HexRowWriter(16);
    const big = writer.allocate(7 << 20);
    // In the module's memory, after its tables.
    expect(big.byteOffset).toBeGreaterThanOrEqual(16384);
    const rest = writer.allocate(4 << 20);
    expect(rest.buffer).not.toBe(big.buffer);
    // Other layouts never use SIMD memory.
    expect(new HexRowWriter(8).allocate(64).byteOffset).toBe(0);
  });

  it('writes the same rows with plain arrays where WebAssembly is missing (an engine without it)', () => {
    const saved = (globalThis as { WebAssembly?: unknown }).WebAssembly;
    const bytes = new TextEncoder().encode('plain ok \x1b[31mred\x1b[0m résumé 本 \x07\x08 end\n'.repeat(20));
    const withSimd = dump(bytes, 0x40, [5], true, true);
    try {
      (globalThis as { WebAssembly?: unknown }).WebAssembly = undefined;
      const writer = new HexRowWriter(16);
      const a = writer.allocate(64);
      // Not in any WebAssembly memory: a plain array of its own.
      expect(a.byteOffset).toBe(0);
      expect(a.buffer.byteLength).toBe(64);
      expect(dump(bytes, 0x40, [5], true, true)).toBe(withSimd);
    } finally {
      (globalThis as { WebAssembly?: unknown }).WebAssembly = saved;
    }
  });

  it('ships the module that row-simd.wat assembles to', () => {
    // Exits non-zero (and this throws) when row-simd.generated.ts is stale.
    execFileSync(process.execPath, [resolve(__dirname, '../../scripts/build-wasm.mjs'), '--check'], { stdio: 'pipe' });
  });
});
