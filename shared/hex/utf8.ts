/*
 * UTF-8 well-formedness per Unicode Table 3-7, with maximal-subpart error lengths (Unicode §3.9,
 * "U+FFFD substitution of maximal subparts").
 *
 * Results are packed into one number so the hot loop allocates nothing: the low 3 bits hold a
 * length, the bits above a status.
 */

/** Status: a well-formed character of `length` bytes. */
export const SEQ_VALID = 0;
/** Status: an ill-formed maximal subpart of `length` bytes (the next byte starts a new attempt). */
export const SEQ_ILL_FORMED = 8;
/** Status: `length` bytes form a valid prefix, but the buffer ends before the character does. */
export const SEQ_TRUNCATED = 16;

/** Mask for the length in a packed result. */
export const SEQ_LENGTH_MASK = 7;

/**
 * Examines the sequence starting at `buf[at]` (a byte ≥ 0x80) using only `buf[at..end)`, and
 * returns a packed `status | length`.
 */
export function sequenceAt(buf: Uint8Array, at: number, end: number): number {
  const lead = buf[at];
  let trailing: number;
  // The second byte's range is narrower for E0, ED, F0 and F4: that is what excludes overlongs,
  // surrogates and code points above U+10FFFF.
  let lo = 0x80;
  let hi = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    trailing = 1;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    trailing = 2;
    if (lead === 0xe0) lo = 0xa0;
    else if (lead === 0xed) hi = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    trailing = 3;
    if (lead === 0xf0) lo = 0x90;
    else if (lead === 0xf4) hi = 0x8f;
  } else {
    return SEQ_ILL_FORMED | 1;
  }
  for (let k = 1; k <= trailing; k++) {
    if (at + k >= end) return SEQ_TRUNCATED | k;
    const b = buf[at + k];
    if (b < lo || b > hi) return SEQ_ILL_FORMED | k;
    lo = 0x80;
    hi = 0xbf;
  }
  return SEQ_VALID | (trailing + 1);
}

/** Decodes the well-formed `length`-byte character at `buf[at]` (as vetted by {@link sequenceAt}). */
export function codePointAt(buf: Uint8Array, at: number, length: number): number {
  const lead = buf[at];
  if (length === 2) return ((lead & 0x1f) << 6) | (buf[at + 1] & 0x3f);
  if (length === 3) return ((lead & 0x0f) << 12) | ((buf[at + 1] & 0x3f) << 6) | (buf[at + 2] & 0x3f);
  return (
    ((lead & 0x07) << 18) | ((buf[at + 1] & 0x3f) << 12) | ((buf[at + 2] & 0x3f) << 6) | (buf[at + 3] & 0x3f)
  );
}

/** Whether `b` is a continuation byte (10xxxxxx). */
export function isContinuation(b: number): boolean {
  return (b & 0xc0) === 0x80;
}

/** The text of the well-formed UTF-8 `buf[from..to)` (text a writer of this module made). */
export function utf8Text(buf: Uint8Array, from: number, to: number): string {
  let text = '';
  for (let at = from; at < to; ) {
    const b = buf[at];
    if (b < 0x80) {
      // A run of ASCII at once (in pieces: each is a call's arguments).
      let end = at + 1;
      while (end < to && buf[end] < 0x80 && end - at < 4096) end++;
      text += String.fromCharCode(...buf.subarray(at, end));
      at = end;
      continue;
    }
    const length = sequenceAt(buf, at, to) & SEQ_LENGTH_MASK;
    text += String.fromCodePoint(codePointAt(buf, at, length));
    at += length;
  }
  return text;
}
