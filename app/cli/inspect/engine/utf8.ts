// AssemblyScript. UTF-8 well-formedness per Unicode Table 3-7, as shared/hex/utf8.ts decides it.

/** Status: a well-formed character. */
export const SEQ_VALID: i32 = 0;
/** Status: an ill-formed maximal subpart (the next byte starts a new attempt). */
export const SEQ_ILL_FORMED: i32 = 8;
/** Status: a valid prefix cut off by the end of the bytes known. */
export const SEQ_TRUNCATED: i32 = 16;
export const SEQ_LENGTH_MASK: i32 = 7;

/** The sequence starting at `at` (a byte from 0x80), looking at `[at, end)`: `status | length`. */
export function sequenceAt(at: usize, end: usize): i32 {
  const lead = <u32>load<u8>(at);
  let trailing: i32;
  let lo: u32 = 0x80;
  let hi: u32 = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    trailing = 1;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    trailing = 2;
    if (lead == 0xe0) lo = 0xa0;
    else if (lead == 0xed) hi = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    trailing = 3;
    if (lead == 0xf0) lo = 0x90;
    else if (lead == 0xf4) hi = 0x8f;
  } else {
    return SEQ_ILL_FORMED | 1;
  }
  for (let k = 1; k <= trailing; k++) {
    if (at + <usize>k >= end) return SEQ_TRUNCATED | k;
    const b = <u32>load<u8>(at + <usize>k);
    if (b < lo || b > hi) return SEQ_ILL_FORMED | k;
    lo = 0x80;
    hi = 0xbf;
  }
  return SEQ_VALID | (trailing + 1);
}

/** The code point of the well-formed `length`-byte character at `at`. */
export function codePointAt(at: usize, length: i32): i32 {
  const lead = <i32>load<u8>(at);
  if (length == 2) return ((lead & 0x1f) << 6) | (<i32>load<u8>(at + 1) & 0x3f);
  if (length == 3) return ((lead & 0x0f) << 12) | ((<i32>load<u8>(at + 1) & 0x3f) << 6) | (<i32>load<u8>(at + 2) & 0x3f);
  return ((lead & 0x07) << 18) | ((<i32>load<u8>(at + 1) & 0x3f) << 12) | ((<i32>load<u8>(at + 2) & 0x3f) << 6) | (<i32>load<u8>(at + 3) & 0x3f);
}
