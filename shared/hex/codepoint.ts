import { makeCell, type Cell } from './cell';
import { C1_CELLS } from './notation';

/**
 * Characters that are invisible or silently change layout: every Default_Ignorable_Code_Point
 * (zero-width, bidi controls, tag characters U+E0000–U+E0FFF, variation selectors, fillers, BOM),
 * all format characters (U+00AD, U+061C, U+202A–U+202E, U+2066–U+2069, …) and the line and
 * paragraph separators U+2028/U+2029.
 */
const INVISIBLE = /^[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Zl}\p{Zp}]$/u;

/**
 * Characters that are visible but misleading when drawn raw in a cell: marks combine with the
 * previous cell, spaces look like the space cell, and other (Co, Cn, Cs) characters have no
 * dependable glyph, so a newer font or terminal could draw them differently.
 */
const MISLEADING = /^[\p{M}\p{Z}\p{C}]$/u;

/**
 * Look-alikes of the notation characters `·`, `<`, `^` and `\`: drawn raw they could pass for a
 * continuation mark or the start of a notation. Best effort: the text stays uniquely decodable
 * by code point whatever this list holds; the list only protects a reader's eyes.
 */
const LOOKALIKES: ReadonlySet<number> = new Set([
  0x00b7, 0x0387, 0x16eb, 0x1427, 0x2022, 0x2027, 0x2219, 0x22c5, 0x2e31, 0x30fb, 0xa78f, 0xff65,
  0x2039, 0x02c2, 0x2329, 0x27e8, 0x3008, 0xfe64, 0xff1c,
  0x02c4, 0x02c6, 0x2038, 0xff3e,
  0x2216, 0x29f5, 0x29f9, 0xfe68, 0xff3c,
  0xfffd,
]);

/**
 * Whether `cp` lies in a block whose default bidi class is right-to-left (R or AL). Raw, such
 * letters make a bidi-aware terminal or browser reorder the caret column, so bytes would appear
 * out of order; ECMAScript regexes cannot test Bidi_Class, hence the ranges.
 */
function isRightToLeftBlock(cp: number): boolean {
  return (
    (cp >= 0x0590 && cp <= 0x08ff) ||
    (cp >= 0xfb1d && cp <= 0xfdff) ||
    (cp >= 0xfe70 && cp <= 0xfeff) ||
    (cp >= 0x10800 && cp <= 0x10fff) ||
    (cp >= 0x1e800 && cp <= 0x1efff)
  );
}

function codePointNotation(cp: number): string {
  return `<U+${cp.toString(16).toUpperCase().padStart(4, '0')}>`;
}

function classify(cp: number): Cell {
  const ch = String.fromCodePoint(cp);
  if (INVISIBLE.test(ch)) return makeCell(codePointNotation(cp), 'invisible');
  if (MISLEADING.test(ch) || LOOKALIKES.has(cp) || isRightToLeftBlock(cp)) {
    return makeCell(codePointNotation(cp), 'utf8-escaped');
  }
  return makeCell(ch, 'utf8-lead');
}

// Text in one script reuses a few hundred code points; the cap keeps hostile input (every code
// point once) from growing the cache without bound.
const CACHE_LIMIT = 4096;
const cache = new Map<number, Cell>();

/**
 * The lead cell for a well-formed non-ASCII code point (U+0080–U+10FFFF, no surrogates):
 * C1 for U+0080–U+009F, otherwise `invisible`, `utf8-escaped` or `utf8-lead`. Cells are cached and
 * shared.
 */
export function leadCellForCodePoint(cp: number): Cell {
  if (cp < 0xa0) return C1_CELLS[cp - 0x80];
  let cell = cache.get(cp);
  if (cell === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cell = classify(cp);
    cache.set(cp, cell);
  }
  return cell;
}
