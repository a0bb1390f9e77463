/**
 * Fitting Airlock's own lines to the terminal. A line wider than the terminal wraps, and the
 * wrapped rest starts a visual row that Airlock did not start: if that rest is a command line, a
 * path or caret text, it could look like one of Airlock's lines. So every line is cut into rows
 * that fit, and every row after the first begins with a continuation prefix that no untrusted
 * text can start a row with.
 */

/**
 * Display columns of one character, counted conservatively (1 for ASCII, 2 for anything else),
 * so a cut comes early rather than late. Callers pass terminal-safe text (no controls).
 */
export function charWidth(ch: string): number {
  return ch.charCodeAt(0) < 0x80 ? 1 : 2;
}

/**
 * Display columns of a terminal-safe string, conservatively (see {@link charWidth}). Airlock's
 * own colour (`ESC [ … m`, see {@link sgrLength}) takes none.
 */
export function textWidth(s: string): number {
  let w = 0;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u < 0x80) {
      const sgr = u === 0x1b ? sgrLength(s, i) : 0;
      if (sgr > 0) i += sgr - 1;
      else w++;
      continue;
    }
    // One character, one or two code units: 2 columns (as charWidth of it).
    w += 2;
    if (u >= 0xd800 && u <= 0xdbff) {
      const v = s.charCodeAt(i + 1);
      if (v >= 0xdc00 && v <= 0xdfff) i++;
    }
  }
  return w;
}

/**
 * The length of an SGR sequence (`ESC [`, digits and `;`, `m`) at `s[i]`, or 0. Terminal-safe
 * text holds no ESC of its own (input's is shown as `^[`), so one there is Airlock's own colour
 * around a word, which a terminal does not draw: it takes no columns and is never cut.
 */
export function sgrLength(s: string, i: number): number {
  if (s.charCodeAt(i) !== 0x1b || s.charCodeAt(i + 1) !== 0x5b) return 0;
  let j = i + 2;
  for (; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if ((c < 0x30 || c > 0x39) && c !== 0x3b) break;
  }
  return s.charCodeAt(j) === 0x6d ? j + 1 - i : 0;
}

/**
 * {@link textWidth} of the UTF-8 text `buf[start..end)`, counted on its bytes (no string made):
 * 1 per ASCII byte, 2 per other character (at its lead byte; continuation bytes none), none for
 * Airlock's own SGR (see {@link sgrLength}). The text must be well-formed UTF-8.
 */
export function utf8Width(buf: Uint8Array, start: number, end: number): number {
  let w = 0;
  for (let k = start; k < end; k++) {
    const b = buf[k];
    const sgr = b === 0x1b ? utf8SgrLength(buf, k, end) : 0;
    if (sgr > 0) {
      k += sgr - 1;
      continue;
    }
    if (b < 0x80) w++;
    else if (b >= 0xc0) w += 2;
  }
  return w;
}

/** {@link sgrLength} on bytes: the length of Airlock's own SGR at `buf[i]`, ending before `end`, or 0. */
export function utf8SgrLength(buf: Uint8Array, i: number, end: number): number {
  if (buf[i] !== 0x1b || i + 1 >= end || buf[i + 1] !== 0x5b) return 0;
  let j = i + 2;
  while (j < end && ((buf[j] >= 0x30 && buf[j] <= 0x39) || buf[j] === 0x3b)) j++;
  return j < end && buf[j] === 0x6d ? j + 1 - i : 0;
}

/** A piece of a row: the text to print (may carry Airlock's own SGR) and its display width. */
export interface Piece {
  readonly text: string;
  readonly width: number;
}

/**
 * Lays pieces out into rows of at most `columns` columns: the first row as it is, each further
 * row beginning with `continuation`. A piece is never split; one wider than a whole row gets a
 * row of its own (callers keep pieces small: a word, a byte, a cell).
 */
export function fitPieces(pieces: readonly Piece[], columns: number, continuation: string): string[] {
  const rows: string[] = [];
  const indent = textWidth(continuation);
  let row = '';
  let width = 0;
  let empty = true;
  for (const p of pieces) {
    if (!empty && width + p.width > columns) {
      rows.push(row.trimEnd());
      row = continuation;
      width = indent;
      // Spaces that only separated the pieces would start the row: drop them.
      if (p.text.trim() === '') continue;
    }
    row += p.text;
    width += p.width;
    empty = false;
  }
  rows.push(row.trimEnd());
  return rows;
}

/**
 * Cuts one terminal-safe line (no LF) into rows of at most `columns` columns, breaking after
 * spaces where it can and inside a word only when the word alone is too wide; rows after the
 * first begin with `continuation`.
 */
export function wrapLine(line: string, columns: number, continuation: string): string[] {
  if (columns === Infinity || textWidth(line) <= columns) return [line];
  const room = Math.max(8, columns - textWidth(continuation));
  const pieces: Piece[] = [];
  for (const word of line.match(/\S+\s*|\s+/g) ?? []) {
    const w = textWidth(word);
    if (w <= room) {
      pieces.push({ text: word, width: w });
      continue;
    }
    // A word wider than a row goes character by character (Airlock's colour whole, with no width).
    for (let i = 0; i < word.length; ) {
      const sgr = sgrLength(word, i);
      const ch = sgr > 0 ? word.slice(i, i + sgr) : String.fromCodePoint(word.codePointAt(i) as number);
      pieces.push({ text: ch, width: sgr > 0 ? 0 : charWidth(ch) });
      i += ch.length;
    }
  }
  return fitPieces(pieces, Math.max(columns, room), continuation);
}
