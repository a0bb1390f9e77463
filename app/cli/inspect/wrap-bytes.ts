import { utf8SgrLength } from '../../node/fit';

/** The whitespace of a JavaScript regular expression's `\s` (and of `trim`) among ASCII bytes. */
function isSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
}

/**
 * utf8Width of `buf[start..end)` (Airlock's own SGR takes no columns) when it is all ASCII (the
 * lines {@link wrapAsciiLine} takes), else -1: both questions a dump asks of each annotation line,
 * in one pass.
 */
export function asciiWidth(buf: Uint8Array, start: number, end: number): number {
  let w = 0;
  for (let k = start; k < end; k++) {
    const b = buf[k];
    if (b >= 0x80) return -1;
    const sgr = b === 0x1b ? utf8SgrLength(buf, k, end) : 0;
    if (sgr > 0) k += sgr - 1;
    else w++;
  }
  return w;
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
  // One loop and one place where a piece is put (fitPieces' loop body), with no function made
  // per line: this runs for every cut annotation line of a terminal dump (two per row of BEL/BS).
  // Below `charEnd` a word wider than a row goes character by character.
  let charEnd = -1;
  for (let k = start; k < end; ) {
    let to: number;
    let w: number;
    let blank: boolean;
    if (k < charEnd) {
      const sgr = utf8SgrLength(src, k, charEnd);
      to = k + (sgr > 0 ? sgr : 1);
      w = sgr > 0 ? 0 : 1;
      blank = sgr === 0 && isSpace(src[k]);
    } else {
      // One match of /\S+\s*|\s+/: a word and the spaces after it, or spaces alone; its width is
      // utf8Width's (Airlock's own SGR takes none; an SGR holds no space, so it lies in the word).
      to = k;
      w = 0;
      while (to < end && !isSpace(src[to])) {
        const sgr = src[to] === 0x1b ? utf8SgrLength(src, to, end) : 0;
        if (sgr > 0) to += sgr;
        else {
          to++;
          w++;
        }
      }
      blank = to === k;
      while (to < end && isSpace(src[to])) {
        to++;
        w++;
      }
      if (w > room) {
        charEnd = to;
        continue;
      }
    }
    if (!empty && width + w > cols) {
      while (p > rowStart && isSpace(out[p - 1])) p--;
      out[p++] = 0x0a;
      rowStart = p;
      out.set(continuation, p);
      p += indent;
      width = indent;
      if (blank) {
        k = to;
        continue;
      }
    }
    for (let i = k; i < to; i++) out[p++] = src[i];
    width += w;
    empty = false;
    k = to;
  }
  while (p > rowStart && isSpace(out[p - 1])) p--;
  out[p++] = 0x0a;
  return p;
}
