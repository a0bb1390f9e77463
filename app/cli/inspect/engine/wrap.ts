// AssemblyScript. Airlock's own lines cut to the terminal: what wrapLine (app/node/fit.ts) makes
// of a line, on its bytes.

/** JavaScript's `\s` among ASCII bytes (the only whitespace Airlock's own lines hold). */
function isSpace(b: u32): bool {
  return b == 0x20 || (b >= 0x09 && b <= 0x0d);
}

/** The length of Airlock's own SGR (`ESC [` digits and `;` `m`) at `k`, ending before `end`, or 0. */
export function sgrLength(k: usize, end: usize): usize {
  if (load<u8>(k) != 0x1b || k + 1 >= end || load<u8>(k + 1) != 0x5b) return 0;
  let j = k + 2;
  while (j < end) {
    const c = <u32>load<u8>(j);
    if ((c < 0x30 || c > 0x39) && c != 0x3b) break;
    j++;
  }
  return j < end && load<u8>(j) == 0x6d ? j + 1 - k : 0;
}

/**
 * Display columns of the UTF-8 text `[start, end)` as textWidth counts them: 1 per ASCII byte,
 * 2 per other character, none for Airlock's own SGR.
 */
export function textWidth(start: usize, end: usize): i32 {
  let w = 0;
  for (let k = start; k < end; k++) {
    const b = <u32>load<u8>(k);
    if (b == 0x1b) {
      const s = sgrLength(k, end);
      if (s > 0) {
        k += s - 1;
        continue;
      }
    }
    if (b < 0x80) w++;
    else if (b >= 0xc0) w += 2;
  }
  return w;
}

/**
 * Writes the line `[start, end)` (no LF; wider than `columns`) at `p` as wrapLine cuts it into
 * visual rows, each followed by LF: pieces are its words with their trailing spaces (a word
 * wider than a row character by character, Airlock's SGR whole and without width), laid out as
 * fitPieces lays them (a further row starts with the continuation `[cont, cont + contLen)` of
 * `contWidth` columns, a row ends without its trailing spaces, a blank piece is dropped at a
 * cut). Returns the end.
 */
export function wrapLine(start: usize, end: usize, columns: i32, cont: usize, contLen: usize, contWidth: i32, p: usize): usize {
  const room = max(8, columns - contWidth);
  const cols = max(columns, room);
  let rowStart = p;
  let width = 0;
  let empty = true;
  // Below `charEnd` a word wider than a row goes character by character.
  let charEnd: usize = 0;
  let k = start;
  while (k < end) {
    let to: usize;
    let w: i32;
    let blank: bool;
    if (k < charEnd) {
      const b = <u32>load<u8>(k);
      const s = sgrLength(k, charEnd);
      if (s > 0) {
        to = k + s;
        w = 0;
      } else if (b >= 0xc0) {
        to = k + 1;
        while (to < charEnd && (load<u8>(to) & 0xc0) == 0x80) to++;
        w = 2;
      } else {
        to = k + 1;
        w = b < 0x80 ? 1 : 0;
      }
      blank = s == 0 && isSpace(b);
    } else {
      // One match of /\S+\s*|\s+/: a word and the spaces after it, or spaces alone.
      to = k;
      w = 0;
      while (to < end && !isSpace(load<u8>(to))) {
        const b = <u32>load<u8>(to);
        const s = b == 0x1b ? sgrLength(to, end) : 0;
        if (s > 0) {
          to += s;
        } else {
          to++;
          if (b < 0x80) w++;
          else if (b >= 0xc0) w += 2;
        }
      }
      blank = to == k;
      while (to < end && isSpace(load<u8>(to))) {
        to++;
        w++;
      }
      if (w > room) {
        charEnd = to;
        continue;
      }
    }
    if (!empty && width + w > cols) {
      while (p > rowStart && isSpace(load<u8>(p - 1))) p--;
      store<u8>(p, 0x0a);
      p++;
      rowStart = p;
      memory.copy(p, cont, contLen);
      p += contLen;
      width = contWidth;
      if (blank) {
        k = to;
        continue;
      }
    }
    memory.copy(p, k, to - k);
    p += to - k;
    width += w;
    empty = false;
    k = to;
  }
  while (p > rowStart && isSpace(load<u8>(p - 1))) p--;
  store<u8>(p, 0x0a);
  return p + 1;
}
