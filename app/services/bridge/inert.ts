// Copy and export refuse text that is not inert rather than clean it: the renderer builds hex,
// caret and C-array text from the bytes and copies sanitized text, so anything else is a bug or an
// attack, and pasting raw control bytes into a terminal must not be possible from this app. The
// one definition of "inert" is shared/sanitize/inert.ts (the renderer checks with it first).
import { firstNotInert } from '../../../shared/sanitize/inert';

export { firstNotInert };

/** UTF-16 units checked between two turns of main's event loop. */
const SLICE = 1 << 20;

/**
 * Whether a slice may end after UTF-16 unit `c`: printable ASCII that nothing after it can join
 * (not a digit, `#` or `*`, which take a keycap's selector). After it a parser that has seen only
 * inert text is at rest, and one that has not already found what makes the text not inert.
 */
function cutsAfter(c: number): boolean {
  return c >= 0x20 && c <= 0x7e && (c < 0x30 || c > 0x39) && c !== 0x23 && c !== 0x2a;
}

/**
 * {@link firstNotInert} for text up to the bridge's 32 MiB, checked a slice at a time with main's
 * event loop free between slices (in one go, 32 MiB held main ~300 ms). Slices end after an ASCII
 * character nothing can join ({@link cutsAfter}), so the slices are inert exactly when the whole
 * is; a stretch of `slice` units with none (a megabyte of CJK or emoji) is checked with the rest.
 */
export async function firstNotInertYielding(text: string, slice = SLICE): Promise<number> {
  let from = 0;
  while (from < text.length) {
    let to = text.length;
    if (from + slice < text.length) {
      for (let k = from + slice - 1; k > from; k--) {
        if (cutsAfter(text.charCodeAt(k))) {
          to = k + 1;
          break;
        }
      }
    }
    const at = firstNotInert(from === 0 && to === text.length ? text : text.slice(from, to));
    if (at >= 0) return from + at;
    from = to;
    if (from < text.length) await new Promise((r) => setImmediate(r));
  }
  return -1;
}
