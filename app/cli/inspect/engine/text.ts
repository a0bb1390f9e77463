// AssemblyScript. Writing numbers and fixed text into memory.
import { T_HEX, T_HEX2, T_SGR, T_SGR_LEN } from './layout';

/** Writes `v` (an integer below 2^53) in lowercase hex, at least `digits` digits, at `p`; returns the end. */
export function writeHex(p: usize, v: f64, digits: i32): usize {
  let x = <u64>v;
  let n = 1;
  for (let y = x >> 4; y != 0; y >>= 4) n++;
  if (n < digits) n = digits;
  const end = p + <usize>n;
  let q = end;
  while (q > p) {
    q--;
    store<u8>(q, load<u8>(T_HEX + <usize>(x & 15)));
    x >>= 4;
  }
  return end;
}

/** The 8 hex digits of `v` (below 2^32) at `p`, two at a time from T_HEX2 (offsets of rows and lines). */
export function writeHex8(p: usize, v: f64): void {
  const x = <u32>v;
  store<u16>(p, load<u16>(T_HEX2 + (<usize>(x >>> 24) << 1)));
  store<u16>(p + 2, load<u16>(T_HEX2 + (<usize>((x >>> 16) & 255) << 1)));
  store<u16>(p + 4, load<u16>(T_HEX2 + (<usize>((x >>> 8) & 255) << 1)));
  store<u16>(p + 6, load<u16>(T_HEX2 + (<usize>(x & 255) << 1)));
}

/** The number of hex digits `writeHex(p, v, digits)` writes. */
export function hexDigits(v: f64, digits: i32): i32 {
  let n = 1;
  for (let y = <u64>v >> 4; y != 0; y >>= 4) n++;
  return n < digits ? digits : n;
}

/** Writes `v` (an integer below 2^53) in decimal at `p`; returns the end. */
export function writeDecimal(p: usize, v: f64): usize {
  const x = <u64>v;
  let n = 1;
  for (let y = x / 10; y != 0; y /= 10) n++;
  const end = p + <usize>n;
  digitsBefore(end, x);
  return end;
}

/** Writes the decimal digits of `x` so that they end at `end`; returns where they begin. */
function digitsBefore(end: usize, x: u64): usize {
  let q = end;
  do {
    q--;
    const d = x / 10;
    store<u8>(q, <u8>(0x30 + (x - d * 10)));
    x = d;
  } while (x != 0);
  return q;
}

/** Writes `v` (below 10^6) right-aligned in a field of 6 columns at `p`; returns the end. */
export function writeField6(p: usize, v: f64): usize {
  let q = digitsBefore(p + 6, <u64>v);
  while (q > p) {
    q--;
    store<u8>(q, 0x20);
  }
  return p + 6;
}

/** Copies `n` bytes from `src` to `p`; returns the end (short copies byte by byte: cheaper than a call). */
export function put(p: usize, src: usize, n: usize): usize {
  if (n <= 8) {
    for (let k: usize = 0; k < n; k++) store<u8>(p + k, load<u8>(src + k));
  } else {
    memory.copy(p, src, n);
  }
  return p + n;
}

/** Writes `n` spaces at `p`; returns the end. */
export function spaces(p: usize, n: i32): usize {
  for (let k = 0; k < n; k++) store<u8>(p + <usize>k, 0x20);
  return p + <usize>n;
}

/** Writes colour `c`'s SGR at `p` (nothing for 0); returns the end. The 8 bytes after `p` must be writable. */
export function paint(p: usize, c: u32): usize {
  store<u64>(p, load<u64>(T_SGR + (<usize>c << 3)));
  return p + <usize>load<u8>(T_SGR_LEN + <usize>c);
}

/** Writes the reset `ESC [ 0 m` at `p`; returns the end. */
export function reset(p: usize): usize {
  store<u32>(p, 0x6d305b1b);
  return p + 4;
}
