// AssemblyScript (compiled by scripts/build-redact-wasm.mjs into ../keyscan.generated.ts; not
// TypeScript): the SIMD form of findKeys' first steps (scan.ts). For 64 bytes at a time it finds
// the anchor bytes with shufti's exact test (two nibble lookups per 16), then runs findKeys' neighbour
// test on each (from the same tables JavaScript uses) and hands the survivors to JavaScript,
// which tests them again and compares the keys in full: this module only narrows what
// JavaScript looks at and decides nothing.

/** Two 16-byte tables, filled by JavaScript: per low nibble a bit per high nibble 0-7 of the ASCII anchors, and each high nibble's bit. */
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
 * Scans input bytes [from, len) (the 80 bytes after `len` must be 0) and writes candidate
 * positions as u32 at `out`, at most `cap` of them. Returns how many it wrote.
 */
export function scan(from: i32, len: i32, out: usize, cap: i32): i32 {
  let n: i32 = 0;
  let i = from;
  while (i < len) {
    if (n + 64 > cap) {
      resumeAt = i;
      return n;
    }
    // 64 bytes at a time, without a branch per 16: in text most 64-byte stretches hold an anchor
    // letter somewhere, and a branch per 16 bytes taken at random costs more than the lookups.
    const p = INPUT + <usize>i;
    let mask: u64 =
      <u64>anchors(p) | (<u64>anchors(p + 16) << 16) | (<u64>anchors(p + 32) << 32) | (<u64>anchors(p + 48) << 48);
    while (mask != 0) {
      const at = i + <i32>ctz(mask);
      mask &= mask - 1;
      // The anchor's own neighbours (scan.ts NEIGHBOURS), exactly; branch-free, since most
      // anchors in text fail here at random.
      const q = INPUT + <usize>at;
      const slot = <usize>load<u8>(SLOTS + <usize>load<u8>(q));
      const nb = NEIGHBOURS + (((slot - 1) & 0x3f) << 9);
      const ok = <i32>(slot != 0) & <i32>(at < len) & <i32>load<u8>(nb + <usize>load<u8>(q - 1)) & <i32>load<u8>(nb + 256 + <usize>load<u8>(q + 1));
      store<u32>(out + (<usize>n << 2), at);
      n += ok;
    }
    i += 64;
  }
  resumeAt = len;
  return n;
}

/**
 * The anchor bytes among the 16 at `p`, as a bitmask: shufti's exact test (a bit per high
 * nibble, looked up by the low nibble) and the look-alike keys' non-ASCII anchor bytes.
 */
function anchors(p: usize): u32 {
  const v = v128.load(p);
  const low = i8x16.splat(0x0f);
  const exact = i8x16.ne(v128.and(i8x16.swizzle(v128.load(TABLES), v128.and(v, low)), i8x16.swizzle(v128.load(TABLES + 16), i8x16.shr_u(v, 4))), i8x16.splat(0));
  return i8x16.bitmask(v128.or(exact, v128.or(i8x16.eq(v, i8x16.splat(<i8>0x9f)), i8x16.eq(v, i8x16.splat(<i8>0x9a)))));
}
