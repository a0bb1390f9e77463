// AssemblyScript (compiled by scripts/build-redact-wasm.mjs into ../keyscan.generated.ts; not
// TypeScript): the SIMD form of findKeys' first step (scan.ts). For 16 bytes at a time it looks
// up each byte, the byte before it and the byte after it in nibble tables (two swizzles each, as
// Hyperscan's Teddy does) and keeps the positions where all three can belong to one bucket of
// keys, then runs findKeys' exact neighbour test on those (from the same tables JavaScript uses).
// JavaScript then runs that test again and the full comparison on each candidate, so this module
// only narrows what JavaScript looks at and decides nothing.

/**
 * Eight 16-byte tables, filled by JavaScript: prev low/high nibble, anchor low/high, next
 * low/high (bucket bits), then the exact anchor test: per low nibble, a bit per high nibble 0-7
 * of the ASCII anchors, and the bit of each high nibble (as shufti does).
 */
const TABLES: usize = 64;
/** Per byte: 0, or 1 + its anchor slot (scan.ts ANCHORS). */
const SLOTS: usize = 256;
/** Per anchor slot, 512 bytes: the bytes allowed before (0..255) and after (256..511) it (scan.ts NEIGHBOURS). */
const NEIGHBOURS: usize = 512;
/** The input starts here; the byte before it is the byte before the input (or 0). */
export const INPUT: usize = 32768;

let resumeAt: i32 = 0;

/** Where the last scan stopped (the input length, or the first position not scanned when `cap` filled up). */
export function resume(): i32 {
  return resumeAt;
}

/**
 * Scans input bytes [from, len) (the 16 bytes after `len` must be 0) and writes candidate
 * positions as u32 at `out`, at most `cap` of them. Returns how many it wrote.
 */
export function scan(from: i32, len: i32, out: usize, cap: i32): i32 {
  const pLo = v128.load(TABLES);
  const pHi = v128.load(TABLES + 16);
  const aLo = v128.load(TABLES + 32);
  const aHi = v128.load(TABLES + 48);
  const nLo = v128.load(TABLES + 64);
  const nHi = v128.load(TABLES + 80);
  const exactLo = v128.load(TABLES + 96);
  const hiBit = v128.load(TABLES + 112);
  const low = i8x16.splat(0x0f);
  const lookalike1 = i8x16.splat(<i8>0x9f);
  const lookalike2 = i8x16.splat(<i8>0x9a);
  let n: i32 = 0;
  let i = from;
  while (i < len) {
    const p = INPUT + <usize>i;
    const v = v128.load(p);
    const vp = v128.load(p - 1);
    const vn = v128.load(p + 1);
    // All three at once (as Teddy does): a text byte rarely has the right neighbours too.
    const vl = v128.and(v, low);
    const vh = i8x16.shr_u(v, 4);
    // Only real anchors: the exact test (ASCII), or the look-alike keys' rare non-ASCII bytes.
    const exact = v128.or(
      i8x16.ne(v128.and(i8x16.swizzle(exactLo, vl), i8x16.swizzle(hiBit, vh)), i8x16.splat(0)),
      v128.or(i8x16.eq(v, lookalike1), i8x16.eq(v, lookalike2)),
    );
    const a = v128.and(exact, v128.and(i8x16.swizzle(aLo, vl), i8x16.swizzle(aHi, vh)));
    const b = v128.and(i8x16.swizzle(pLo, v128.and(vp, low)), i8x16.swizzle(pHi, i8x16.shr_u(vp, 4)));
    const c = v128.and(i8x16.swizzle(nLo, v128.and(vn, low)), i8x16.swizzle(nHi, i8x16.shr_u(vn, 4)));
    const m = v128.and(a, v128.and(b, c));
    if (v128.any_true(m)) {
      if (n + 16 > cap) {
        resumeAt = i;
        return n;
      }
      let mask = i8x16.bitmask(i8x16.ne(m, i8x16.splat(0)));
      while (mask != 0) {
        const at = i + ctz(mask);
        mask &= mask - 1;
        // The exact test the nibble tables approximate: this anchor's own neighbours.
        const q = INPUT + <usize>at;
        const slot = <usize>load<u8>(SLOTS + <usize>load<u8>(q));
        if (at >= len || slot == 0) continue;
        const nb = NEIGHBOURS + ((slot - 1) << 9);
        if (load<u8>(nb + <usize>load<u8>(q - 1)) == 0 || load<u8>(nb + 256 + <usize>load<u8>(q + 1)) == 0) continue;
        store<u32>(out + (<usize>n << 2), at);
        n++;
      }
    }
    i += 16;
  }
  resumeAt = len;
  return n;
}
