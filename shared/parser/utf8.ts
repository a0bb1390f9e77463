/**
 * Classification of one non-ASCII unit starting at a byte >= 0x80. Returned packed as
 * `length << 3 | kind`; the code point of Text, Invisible and C1 units is left in {@link lastCodePoint}.
 */
export const enum Utf8Kind {
  /** Well-formed, visible character (>= U+00A0, not invisible). */
  Text = 0,
  /** Well-formed but invisible: a Default_Ignorable_Code_Point (see {@link isInvisible}). */
  Invisible = 1,
  /**
   * C1 control: U+0080–U+009F encoded as C2 80–C2 9F (length 2), or a raw 0x80–0x9F byte outside
   * a well-formed character (length 1, a "stray" byte: C1 only in the 8-bit reading).
   */
  C1 = 2,
  /**
   * A maximal ill-formed subpart (Unicode §3.9 "U+FFFD substitution of maximal subparts"), cut
   * short before its first continuation byte in 0x80–0x9F: an 8-bit terminal reads that byte as a
   * C1 control, so it starts a unit of its own.
   */
  Invalid = 3,
  /** A well-formed prefix cut off by the end of the available bytes: wait for more. */
  Incomplete = 4,
}

import { isInvisible } from './invisible';

/** The code point of the last Text/Invisible/C1 unit {@link classifyMultibyte} decoded. */
export let lastCodePoint = 0;

/** Length of an ill-formed subpart of `len` bytes at `i`, cut before a continuation byte 0x80–0x9F. */
function invalid(bytes: Uint8Array, i: number, len: number): number {
  for (let k = 1; k < len; k++) if (bytes[i + k] <= 0x9f) return (k << 3) | Utf8Kind.Invalid;
  return (len << 3) | Utf8Kind.Invalid;
}

/**
 * Classifies the unit at `bytes[i]` (which must be >= 0x80) using bytes up to `end`.
 * Never reads past `end`; linear and allocation-free.
 */
export function classifyMultibyte(bytes: Uint8Array, i: number, end: number): number {
  const b0 = bytes[i];
  if (b0 < 0xc2 || b0 > 0xf4) {
    if (b0 <= 0x9f) {
      lastCodePoint = b0;
      return (1 << 3) | Utf8Kind.C1;
    }
    return (1 << 3) | Utf8Kind.Invalid;
  }
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 === 0xe0) lo = 0xa0;
  else if (b0 === 0xed) hi = 0x9f;
  else if (b0 === 0xf0) lo = 0x90;
  else if (b0 === 0xf4) hi = 0x8f;
  if (i + 1 >= end) return (1 << 3) | Utf8Kind.Incomplete;
  const b1 = bytes[i + 1];
  if (b1 < lo || b1 > hi) return (1 << 3) | Utf8Kind.Invalid;
  if (b0 < 0xe0) {
    const cp = ((b0 & 0x1f) << 6) | (b1 & 0x3f);
    lastCodePoint = cp;
    return (2 << 3) | (cp < 0xa0 ? Utf8Kind.C1 : isInvisible(cp) ? Utf8Kind.Invisible : Utf8Kind.Text);
  }
  if (i + 2 >= end) return (2 << 3) | Utf8Kind.Incomplete;
  const b2 = bytes[i + 2];
  if ((b2 & 0xc0) !== 0x80) return invalid(bytes, i, 2);
  if (b0 < 0xf0) {
    const cp = ((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
    lastCodePoint = cp;
    return (3 << 3) | (isInvisible(cp) ? Utf8Kind.Invisible : Utf8Kind.Text);
  }
  if (i + 3 >= end) return (3 << 3) | Utf8Kind.Incomplete;
  const b3 = bytes[i + 3];
  if ((b3 & 0xc0) !== 0x80) return invalid(bytes, i, 3);
  const cp = ((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
  lastCodePoint = cp;
  return (4 << 3) | (isInvisible(cp) ? Utf8Kind.Invisible : Utf8Kind.Text);
}

export { isInvisible };

/** Code point of the last character of the well-formed UTF-8 text `buf[from..to)`. */
export function lastCharOf(buf: Uint8Array, from: number, to: number): number {
  let k = to - 1;
  while (k > from && (buf[k] & 0xc0) === 0x80) k--;
  return firstCharOf(buf, k);
}

/** Code point of the first character of the well-formed UTF-8 text at `buf[at]`. */
export function firstCharOf(buf: Uint8Array, at: number): number {
  const b = buf[at];
  if (b < 0x80) return b;
  if (b < 0xe0) return ((b & 0x1f) << 6) | (buf[at + 1] & 0x3f);
  if (b < 0xf0) return ((b & 0x0f) << 12) | ((buf[at + 1] & 0x3f) << 6) | (buf[at + 2] & 0x3f);
  return ((b & 0x07) << 18) | ((buf[at + 1] & 0x3f) << 12) | ((buf[at + 2] & 0x3f) << 6) | (buf[at + 3] & 0x3f);
}
