import { utf8SgrLength, utf8Width } from '../../node/fit';

/** The whitespace of a JavaScript regular expression's `\s` (and of `trim`) among ASCII bytes. */
function isSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
}

/** Whether `buf[start..end)` is all ASCII (the lines {@link wrapAsciiLine} takes). */
export function isAscii(buf: Uint8Array, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (buf[k] >= 0x80) return false;
  return true;
}

/** The most bytes {@link wrapAsciiLine} writes for a line of `length` bytes: each piece may start a further row. */
export function wrapBound(length: number, continuation: Uint8Array): number {
  return length * (continuation.length + 2) + 1;
}

/**
 * What `wrapLine(line, columns, continuation)` (app/node/fit.ts) makes of the ASCII line held as
 * bytes `src[start..end)` (no LF; Airlock's own SGR allowed; wider than `columns`), written into
 * `out` at `p` as its visual rows, each followed by LF, without a string or an object per piece:
 * the pieces are its words (with their trailing spaces), a word wider than a row character by
 * character, laid out as fitPieces lays them (a further row starts with `continuation`, a row
 * ends without its trailing spaces, a blank piece is dropped at a cut). Returns the end; `out`
 * must have room for {@link wrapBound}. A property test holds it to wrapLine.
 */
export function wrapAsciiLine(src: Uint8Array, start: number, end: number, columns: number, continuation: Uint8Array, out: Uint8Array, p: number): number {
  const indent = continuation.length;
  const room = Math.max(8, columns - indent);
  const cols = Math.max(columns, room);
  let rowStart = p;
  let width = 0;
  let empty = true;
  /** Places the piece `src[from..to)`, `w` columns wide (fitPieces' loop body). */
  const put = (from: number, to: number, w: number, blank: boolean): void => {
    if (!empty && width + w > cols) {
      while (p > rowStart && isSpace(out[p - 1])) p--;
      out[p++] = 0x0a;
      rowStart = p;
      out.set(continuation, p);
      p += indent;
      width = indent;
      if (blank) return;
    }
    for (let k = from; k < to; k++) out[p++] = src[k];
    width += w;
    empty = false;
  };
  for (let k = start; k < end; ) {
    // One match of /\S+\s*|\s+/: a word and the spaces after it, or spaces alone.
    let j = k;
    while (j < end && !isSpace(src[j])) j++;
    const blank = j === k;
    while (j < end && isSpace(src[j])) j++;
    const w = utf8Width(src, k, j);
    if (w <= room) put(k, j, w, blank);
    else {
      for (let i = k; i < j; ) {
        const sgr = utf8SgrLength(src, i, j);
        if (sgr > 0) put(i, i + sgr, 0, false);
        else put(i, i + 1, 1, isSpace(src[i]));
        i += sgr > 0 ? sgr : 1;
      }
    }
    k = j;
  }
  while (p > rowStart && isSpace(out[p - 1])) p--;
  out[p++] = 0x0a;
  return p;
}
