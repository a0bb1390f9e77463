// AssemblyScript (see layout.ts).
//
// The vector constants of the row paths, kept in memory. V8 (Node 20) builds a v128.const in a
// register on every use, inside loops too: two 64-bit immediates moved over from general
// registers and merged, 3–5 instructions (simdHex had 12 of them, about a third of its code). A
// v128.load from a fixed address is one. So the hot paths read theirs from T_VEC through
// {@link vec}, and {@link setVectors} writes them once.
import { T_VEC } from './layout';

// Bytes repeated in every lane.
export const V_0F: usize = 0;
export const V_10: usize = 1;
export const V_1F: usize = 2;
export const V_20: usize = 3;
export const V_3C: usize = 4;
export const V_3F: usize = 5;
export const V_40: usize = 6;
export const V_5C: usize = 7;
export const V_5E: usize = 8;
export const V_7C: usize = 9;
export const V_7F: usize = 10;
// simdHex: the offset's bytes (little-endian u32) in digit order, then the swizzles and spaces of
// its four stores (see there).
export const V_OFFSET_BYTES: usize = 11;
export const V_HEX_A: usize = 12;
export const V_HEX_A_SPACES: usize = 13;
export const V_HEX_B_D: usize = 14;
export const V_HEX_B_E: usize = 15;
export const V_HEX_B_SPACES: usize = 16;
export const V_HEX_C: usize = 17;
export const V_HEX_C_SPACES: usize = 18;
export const V_HEX_D: usize = 19;
export const V_HEX_D_SPACES: usize = 20;
/** Lanes 0–15, for masks of a span's bytes in a row. */
export const V_LANES: usize = 21;
// resolveRow16: UTF-8 lead and continuation bytes, and the second bytes of E0, ED, F0 and F4
// that Table 3-7 narrows.
export const V_01: usize = 22;
export const V_8F: usize = 23;
export const V_90: usize = 24;
export const V_9F: usize = 25;
export const V_A0: usize = 26;
export const V_C0: usize = 27;
export const V_80: usize = 28;
export const V_C2: usize = 29;
export const V_DF: usize = 30;
export const V_E0: usize = 31;
export const V_ED: usize = 32;
export const V_F0: usize = 33;
export const V_F4: usize = 34;
/** How many there are (T_VEC holds 64). */
const VECTORS: usize = 35;

/** Vector constant `k` (a V_ constant). */
export function vec(k: usize): v128 {
  return v128.load(T_VEC + (k << 4));
}

/** Writes the vector constants (once, before any row). */
export function setVectors(): void {
  put(V_0F, i8x16.splat(0x0f));
  put(V_10, i8x16.splat(0x10));
  put(V_1F, i8x16.splat(0x1f));
  put(V_20, i8x16.splat(0x20));
  put(V_3C, i8x16.splat(0x3c));
  put(V_3F, i8x16.splat(0x3f));
  put(V_40, i8x16.splat(0x40));
  put(V_5C, i8x16.splat(0x5c));
  put(V_5E, i8x16.splat(0x5e));
  put(V_7C, i8x16.splat(0x7c));
  put(V_7F, i8x16.splat(0x7f));
  put(V_OFFSET_BYTES, i8x16(3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0));
  put(V_HEX_A, i8x16(-1, -1, 0, 1, -1, 2, 3, -1, 4, 5, -1, 6, 7, -1, 8, 9));
  put(V_HEX_A_SPACES, i8x16(0x20, 0x20, 0, 0, 0x20, 0, 0, 0x20, 0, 0, 0x20, 0, 0, 0x20, 0, 0));
  put(V_HEX_B_D, i8x16(-1, 10, 11, -1, 12, 13, -1, 14, 15, -1, -1, -1, -1, -1, -1, -1));
  put(V_HEX_B_E, i8x16(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, -1, 2, 3));
  put(V_HEX_B_SPACES, i8x16(0x20, 0, 0, 0x20, 0, 0, 0x20, 0, 0, 0x20, 0x20, 0, 0, 0x20, 0, 0));
  put(V_HEX_C, i8x16(-1, 4, 5, -1, 6, 7, -1, 8, 9, -1, 10, 11, -1, 12, 13, -1));
  put(V_HEX_C_SPACES, i8x16(0x20, 0, 0, 0x20, 0, 0, 0x20, 0, 0, 0x20, 0, 0, 0x20, 0, 0, 0x20));
  put(V_HEX_D, i8x16(14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  put(V_HEX_D_SPACES, i8x16(0, 0, 0x20, 0x20, 0x7c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  put(V_LANES, i8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  put(V_01, i8x16.splat(0x01));
  put(V_8F, i8x16.splat(<i8>0x8f));
  put(V_90, i8x16.splat(<i8>0x90));
  put(V_9F, i8x16.splat(<i8>0x9f));
  put(V_A0, i8x16.splat(<i8>0xa0));
  put(V_C0, i8x16.splat(<i8>0xc0));
  put(V_80, i8x16.splat(<i8>0x80));
  put(V_C2, i8x16.splat(<i8>0xc2));
  put(V_DF, i8x16.splat(<i8>0xdf));
  put(V_E0, i8x16.splat(<i8>0xe0));
  put(V_ED, i8x16.splat(<i8>0xed));
  put(V_F0, i8x16.splat(<i8>0xf0));
  put(V_F4, i8x16.splat(<i8>0xf4));
  assert(VECTORS <= 64);
}

function put(k: usize, v: v128): void {
  v128.store(T_VEC + (k << 4), v);
}
