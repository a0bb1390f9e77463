// What may leave the renderer for the clipboard or a file: text with no ESC, no C0 but LF and TAB,
// no DEL, no C1, no invisible or reordering character. Main checks again; we check first so a
// bug shows here instead of as a refusal.

/** Code point ranges that must not leave: controls, format/invisible, bidi, variation selectors, tags. */
const FORBIDDEN: ReadonlyArray<readonly [number, number]> = [
  [0x00, 0x08], [0x0b, 0x1f], [0x7f, 0x9f], [0xad, 0xad], [0x61c, 0x61c], [0x115f, 0x1160], [0x17b4, 0x17b5],
  [0x180b, 0x180f], [0x200b, 0x200f], [0x2028, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164], [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff], [0xffa0, 0xffa0], [0xfff0, 0xfffb], [0x1d173, 0x1d17a], [0xe0000, 0xe0fff],
];

/** True when `text` is safe to paste anywhere. */
export function isInert(text: string): boolean {
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x0a || cp === 0x09 || (cp >= 0x20 && cp < 0x7f)) continue;
    for (const [lo, hi] of FORBIDDEN) if (cp >= lo && cp <= hi) return false;
    if (cp >= 0xd800 && cp <= 0xdfff) return false; // a lone surrogate
  }
  return true;
}

/** Throws when `text` is not inert. */
export function assertInert(text: string): string {
  if (!isInert(text)) throw new Error('refusing to copy or export text that is not inert');
  return text;
}
