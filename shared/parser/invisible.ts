import { EMOJI_RANGES, IDEOGRAPHIC_RANGES, IGNORABLE_RANGES, JOINING_RANGES, PICTOGRAPHIC_RANGES } from './unicode-tables';
import { UNDRAWN_RANGES } from './undrawn-table';

/** Whether `cp` lies in one of the inclusive ranges of a flat `start, end, …` table (binary search). */
export function inRanges(table: Uint32Array, cp: number): boolean {
  let lo = 0;
  let hi = table.length >>> 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (table[mid << 1] <= cp) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && cp <= table[((lo - 1) << 1) + 1];
}

/**
 * Code points a terminal does not draw but that carry information: every
 * Default_Ignorable_Code_Point (which covers the bidi marks LRM/RLM/ALM, the bidi embedding,
 * override and isolate controls, zero-width characters and joiners, variation selectors, Hangul
 * fillers, the soft hyphen and the tag characters), the interlinear annotation controls
 * U+FFF9–U+FFFB, and the code points one terminal reading does not draw at all (tmux: those its
 * C library gives no width, see undrawn-table.ts: unassigned ones, U+2028, U+2029).
 */
export function isInvisible(cp: number): boolean {
  if (cp < 0x10000) return (INVISIBLE_BMP[cp >> 3] & (1 << (cp & 7))) !== 0;
  return inRanges(INVISIBLE_SUPPLEMENTARY, cp);
}

/** Interlinear annotation anchor, separator and terminator: they mark hidden annotation text. */
const ANNOTATION_FROM = 0xfff9;
const ANNOTATION_TO = 0xfffb;

/** One bit per BMP code point, set for the invisible ones (built from the range tables). */
export const INVISIBLE_BMP = new Uint8Array(0x10000 >> 3);
const supplementary: number[] = [];
for (const table of [IGNORABLE_RANGES, UNDRAWN_RANGES, Uint32Array.of(ANNOTATION_FROM, ANNOTATION_TO)]) {
  for (let i = 0; i < table.length; i += 2) {
    const from = table[i];
    const to = table[i + 1];
    for (let cp = from; cp <= to && cp < 0x10000; cp++) INVISIBLE_BMP[cp >> 3] |= 1 << (cp & 7);
    if (to >= 0x10000) supplementary.push(Math.max(from, 0x10000), to);
  }
}
/** The supplementary ranges of all three tables, merged into one sorted table. */
const INVISIBLE_SUPPLEMENTARY = mergeRanges(supplementary);

function mergeRanges(flat: number[]): Uint32Array {
  const pairs: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i], flat[i + 1]]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [from, to] of pairs) {
    const n = out.length;
    if (n > 0 && from <= out[n - 1] + 1) out[n - 1] = Math.max(out[n - 1], to);
    else out.push(from, to);
  }
  return Uint32Array.from(out);
}

/** Whether `cp` is one a terminal reading does not draw at all (see undrawn-table.ts). */
export function isUndrawn(cp: number): boolean {
  return inRanges(UNDRAWN_RANGES, cp);
}

/** Kinds of invisible code points, as the report counts them. */
export const enum InvisibleKind {
  Tag = 0,
  Bidi = 1,
  BidiMark = 2,
  ZeroWidth = 3,
  VariationSelector = 4,
  Other = 5,
}

/** Report keys of {@link InvisibleKind}, in order. */
export const INVISIBLE_KIND_NAMES = ['tag', 'bidi', 'bidi_mark', 'zero_width', 'variation_selector', 'other'] as const;

/** The kind of an invisible code point (see {@link isInvisible}). */
export function invisibleKind(cp: number): InvisibleKind {
  if (cp >= 0xe0000 && cp <= 0xe007f) return InvisibleKind.Tag;
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return InvisibleKind.Bidi;
  if (cp === 0x200e || cp === 0x200f || cp === 0x061c) return InvisibleKind.BidiMark;
  if ((cp >= 0x200b && cp <= 0x200d) || (cp >= 0x2060 && cp <= 0x2064) || cp === 0xfeff || cp === 0x180e) return InvisibleKind.ZeroWidth;
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef) || (cp >= 0x180b && cp <= 0x180d) || cp === 0x180f) {
    return InvisibleKind.VariationSelector;
  }
  return InvisibleKind.Other;
}

export const ZWNJ = 0x200c;
export const ZWJ = 0x200d;
export const VS15 = 0xfe0e;
export const VS16 = 0xfe0f;

/** Characters that take an emoji or text presentation selector (VS16, VS15). */
export function takesPresentationSelector(cp: number): boolean {
  return inRanges(EMOJI_RANGES, cp);
}

/** Characters a ZWJ may join in an emoji ZWJ sequence (pictographs and skin tone modifiers). */
export function isPictographic(cp: number): boolean {
  return inRanges(PICTOGRAPHIC_RANGES, cp);
}

/** CJK ideographs: they take one ideographic variation selector (U+E0100–U+E01EF). */
export function isIdeograph(cp: number): boolean {
  return inRanges(IDEOGRAPHIC_RANGES, cp);
}

/** Letters and marks of the scripts that put ZWNJ/ZWJ between letters (Arabic/Persian, Indic, …). */
export function isJoiningLetter(cp: number): boolean {
  return cp >= 0x600 && inRanges(JOINING_RANGES, cp);
}

/** Whether `cp` is an ideographic variation selector. */
export function isIdeographicSelector(cp: number): boolean {
  return cp >= 0xe0100 && cp <= 0xe01ef;
}
