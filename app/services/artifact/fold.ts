// Linear matching for the searches: every text search (sanitized text) and raw search (granted
// bytes) runs in time linear in what it scans, whatever the pattern a caller picks. Exact and
// ASCII-folded text search: Knuth–Morris–Pratt on bytes, skipping to the pattern's first byte with
// memchr while nothing is matched. Unicode case-insensitive search: the text is folded one code
// point at a time, as it streams past, into the same form as the query, and KMP runs on the
// folded bytes; nothing is built per character of the query (a regular expression with one
// alternation per character cost O(text x query) and froze main for minutes on 2 MiB). Raw search
// with `??` wildcards: bit-parallel Shift-And over a pattern of at most MAX_MASKED_BYTES bytes.

/** The longest raw search pattern (bytes), so that a wildcard search costs a bounded number of word operations per byte. */
export const MAX_MASKED_BYTES = 256;
/** Bytes of original text one byte of folded text can stand for (Kelvin sign: 3 bytes fold to `k`). */
export const MAX_BYTES_PER_FOLDED_BYTE = 4;

const utf8 = new TextEncoder();
const NEVER = 0xff; // no UTF-8 text holds this byte: an undecodable byte folds to it and matches nothing

/** KMP failure table: `fail[k]` is the length of the longest proper border of `p[0..k]`. */
export function failureTable(p: Uint8Array): Int32Array {
  const fail = new Int32Array(p.length);
  for (let i = 1, k = 0; i < p.length; i++) {
    while (k > 0 && p[i] !== p[k]) k = fail[k - 1];
    if (p[i] === p[k]) k++;
    fail[i] = k;
  }
  return fail;
}

/**
 * Calls `hit(i)` for every start `i < limit` of `needle` in `hay` (overlapping too), ascending.
 * While no prefix is matched it jumps to the next occurrence of the first byte (memchr).
 */
export function scanBytes(needle: Uint8Array, fail: Int32Array, hay: Buffer, limit: number, hit: (i: number) => void): void {
  const m = needle.length;
  if (m === 0) return;
  const first = needle[0];
  let k = 0;
  for (let i = 0; i < hay.length; i++) {
    if (k === 0) {
      const j = hay.indexOf(first, i);
      if (j < 0 || j >= limit) return;
      i = j;
    }
    const c = hay[i];
    while (k > 0 && needle[k] !== c) k = fail[k - 1];
    if (needle[k] === c) k++;
    if (k === m) {
      const start = i - m + 1;
      if (start >= limit) return;
      hit(start);
      k = fail[k - 1];
    }
  }
}

const foldCache = new Map<number, Uint8Array>();
const MAX_CACHED = 1 << 16;

/**
 * One code point's case fold as UTF-8: upper case, then lower case (`ß` → `ss`, `Σ` and `ς` → `σ`,
 * `İ` → `i̇`, the Kelvin sign → `k`), the same equivalence the query gets. Cached per code point.
 */
export function foldCodePoint(cp: number): Uint8Array {
  let f = foldCache.get(cp);
  if (f === undefined) {
    f = utf8.encode(String.fromCodePoint(cp).toUpperCase().toLowerCase());
    if (foldCache.size < MAX_CACHED) foldCache.set(cp, f);
  }
  return f;
}

/** The query folded as the text will be (see {@link foldCodePoint}). */
export function foldQuery(query: string): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const ch of query) parts.push(foldCodePoint(ch.codePointAt(0)!));
  return Buffer.concat(parts);
}

/**
 * Case-insensitive search of a folded `needle` in UTF-8 `hay`: calls `hit(i)` for the raw start
 * `i < limit` of every match (overlapping too), ascending. A match starts and ends on code point
 * boundaries of `hay` (`s` never matches the second half of `ß` → `ss`). Bytes at the start of
 * `hay` that continue a character begun before it are skipped (that character's hits belong to
 * the chunk before); a character cut off at its end is not folded. One pass, O(1) per byte.
 */
export function scanFolded(needle: Uint8Array, fail: Int32Array, hay: Buffer, limit: number, hit: (i: number) => void): void {
  const m = needle.length;
  if (m === 0) return;
  // Where each of the last m folded bytes came from: the raw offset of its character when it is
  // that character's first folded byte, else -1.
  const from = new Float64Array(m);
  let j = 0;
  let k = 0;
  const step = (c: number, start: number, last: boolean): void => {
    from[j % m] = start;
    j++;
    while (k > 0 && needle[k] !== c) k = fail[k - 1];
    if (needle[k] === c) k++;
    if (k === m) {
      const s = from[(j - m) % m];
      if (last && s >= 0 && s < limit) hit(s);
      k = fail[k - 1];
    }
  };
  let i = 0;
  while (i < hay.length && (hay[i] & 0xc0) === 0x80) i++;
  while (i < hay.length) {
    // Nothing can start before `limit` any more once the matched prefix began past it.
    if (k === 0 && i >= limit) return;
    const b = hay[i];
    if (b < 0x80) {
      step(b >= 0x41 && b <= 0x5a ? b | 0x20 : b, i, true);
      i++;
      continue;
    }
    const len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    if (i + len > hay.length) return;
    let cp = len === 4 ? b & 0x07 : len === 3 ? b & 0x0f : b & 0x1f;
    let ok = len > 1;
    for (let t = 1; t < len && ok; t++) {
      const c = hay[i + t];
      ok = (c & 0xc0) === 0x80;
      cp = cp * 64 + (c & 0x3f);
    }
    if (!ok || cp > 0x10ffff) {
      step(NEVER, i, true);
      i++;
      continue;
    }
    const f = foldCodePoint(cp);
    for (let t = 0; t < f.length; t++) step(f[t], t === 0 ? i : -1, t === f.length - 1);
    i += len;
  }
}

/** A raw byte pattern with `??` wildcards, compiled for {@link scanMasked}. */
export interface MaskedPattern {
  readonly length: number;
  /** 32-bit words per state. */
  readonly words: number;
  /** `table[b * words + w]`: bit p of word w set when pattern byte 32w+p is `b` or a wildcard. */
  readonly table: Uint32Array;
}

/** Compiles `bytes` (with `mask[i]` 0 for a wildcard) for Shift-And; at most MAX_MASKED_BYTES bytes. */
export function compileMasked(bytes: Uint8Array, mask: Uint8Array): MaskedPattern {
  const n = bytes.length;
  if (n === 0 || n > MAX_MASKED_BYTES) throw new RangeError(`a raw pattern is 1 to ${MAX_MASKED_BYTES} bytes`);
  const words = Math.ceil(n / 32);
  const table = new Uint32Array(256 * words);
  for (let p = 0; p < n; p++) {
    const bit = 1 << (p & 31);
    const w = p >>> 5;
    if (mask[p]) table[bytes[p] * words + w] |= bit;
    else for (let b = 0; b < 256; b++) table[b * words + w] |= bit;
  }
  return { length: n, words, table };
}

/**
 * Calls `hit(i)` for every start `i < limit` of the pattern in `hay` with the whole match inside
 * `hay`, ascending (Shift-And: `words` word operations per byte, no backtracking).
 */
export function scanMasked(p: MaskedPattern, hay: Uint8Array, limit: number, hit: (i: number) => void): void {
  const { words, table, length: n } = p;
  const state = new Uint32Array(words);
  const lastWord = (n - 1) >>> 5;
  const lastBit = 1 << ((n - 1) & 31);
  const end = Math.min(hay.length, limit + n - 1);
  for (let i = 0; i < end; i++) {
    const row = hay[i] * words;
    let carry = 1;
    for (let w = 0; w < words; w++) {
      const s = state[w];
      state[w] = ((s << 1) | carry) & table[row + w];
      carry = s >>> 31;
    }
    if (state[lastWord] & lastBit) hit(i - n + 1);
  }
}
