import { terminalSafe } from './terminal-safe';

/**
 * Prefix of every row of untrusted (already sanitized) text that Airlock prints for humans.
 * Airlock's own lines never start with it and captured rows always do, so output cannot imitate
 * a header, a section line or a notice.
 */
export const TEXT_GUTTER = '| ';

/** Columns between a terminal's tab stops. */
const TAB_WIDTH = 8;

/** Columns assumed for a terminal whose width is unknown. */
export const DEFAULT_COLUMNS = 80;

/**
 * Splits `text` into display rows behind {@link TEXT_GUTTER}. A line longer than the terminal is
 * cut into several rows, each with the gutter, because the terminal's own wrapping would start a
 * row without it (and a long line could then fake an Airlock line). Widths are counted
 * conservatively — 1 column for ASCII, 2 for anything else, TABs expanded to the spaces they move
 * across — so a cut comes early, never late.
 * `columns` Infinity (output that is not a terminal: a file, a pipe) keeps every line whole, as
 * the command printed it (TABs too), so `grep` finds it: only a terminal wraps.
 * `complete` says whether the text ended with a newline.
 */
export function gutterRows(text: string, columns = DEFAULT_COLUMNS): { rows: string[]; complete: boolean } {
  const room = Math.max(8, columns - TEXT_GUTTER.length);
  const lines = terminalSafe(text).split('\n');
  const complete = lines[lines.length - 1] === '';
  if (complete) lines.pop();
  const rows: string[] = [];
  for (const line of lines) {
    // Most lines are short, ASCII and TAB-free: one row, as it is.
    if (room === Infinity || (line.length <= room && !WIDE_OR_TAB.test(line))) rows.push(TEXT_GUTTER + line);
    else cutLine(rows, line, room);
  }
  return { rows, complete };
}

/** A TAB or anything outside ASCII: such a line is measured character by character. */
const WIDE_OR_TAB = /[\t\u0080-\uffff]/;

/**
 * Appends the rows of one line that needs measuring. Walks code points (a surrogate pair is one
 * character of width 2) and slices runs of the line instead of growing a string per character.
 */
function cutLine(rows: string[], line: string, room: number): void {
  let row = '';
  let start = 0; // first code unit of the current row not yet in `row`
  let width = 0;
  for (let i = 0; i < line.length; ) {
    const c = line.charCodeAt(i);
    if (c === 0x09) {
      // A TAB moves the cursor to the next tab stop, counted from the row's first column (the
      // gutter's), so it is written as the spaces it would take and measured as such. A TAB that
      // does not fit ends the row and is dropped: the next row starts at a tab stop anyway.
      const spaces = TAB_WIDTH - ((TEXT_GUTTER.length + width) % TAB_WIDTH);
      if (width + spaces > room) {
        rows.push(TEXT_GUTTER + row + line.slice(start, i));
        row = '';
        width = 0;
      } else {
        row += line.slice(start, i) + ' '.repeat(spaces);
        width += spaces;
      }
      start = ++i;
      continue;
    }
    const w = c < 0x80 ? 1 : 2;
    if (width + w > room) {
      rows.push(TEXT_GUTTER + row + line.slice(start, i));
      row = '';
      width = 0;
      start = i;
    }
    width += w;
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < line.length && (line.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
  }
  rows.push(TEXT_GUTTER + row + line.slice(start));
}

/** Text of one unterminated line held back before its rows are cut (a line of any length streams). */
const HOLD = 64 * 1024;

/**
 * {@link gutterRows} for text that arrives in pieces (a record's text read as a stream, a running
 * capture): `write` gets output text, rows ending in LF. On a terminal (finite `columns`) rows of
 * complete lines go out as they are known; an unterminated line longer than a bound goes out row
 * by row too, keeping only its last, still growing row: the rows are the ones gutterRows gives for
 * the whole text. Off a terminal (`columns` Infinity) lines stay whole and text goes out as it
 * comes: a line's row is begun with the gutter and continued by the next pieces, ended by its LF.
 */
export class GutterStream {
  private pending = '';
  /** Off a terminal: a row is begun (its gutter written) and not yet ended. */
  private open = false;

  constructor(
    private readonly columns: number,
    private readonly write: (text: string) => void,
  ) {}

  /** Whether a row is begun and not ended (off a terminal only: on one, rows go out whole). */
  get rowOpen(): boolean {
    return this.open;
  }

  push(text: string): void {
    if (this.columns === Infinity) {
      this.pushWhole(text);
      return;
    }
    this.pending += text;
    const nl = this.pending.lastIndexOf('\n');
    if (nl >= 0) {
      this.emit(gutterRows(this.pending.slice(0, nl + 1), this.columns).rows);
      this.pending = this.pending.slice(nl + 1);
    }
    if (this.pending.length > HOLD) {
      const { rows } = gutterRows(this.pending, this.columns);
      const last = rows.pop()!;
      this.emit(rows);
      // terminalSafe leaves its own escapes as they are, so the kept row can be cut again.
      this.pending = last.slice(TEXT_GUTTER.length);
    }
  }

  /** Ends the text (an open row gets its LF); says whether the text ended with a newline. */
  end(): { complete: boolean } {
    if (this.columns === Infinity) {
      const complete = !this.open;
      if (this.open) this.write('\n');
      this.open = false;
      return { complete };
    }
    if (this.pending === '') return { complete: true };
    this.emit(gutterRows(this.pending, this.columns).rows);
    this.pending = '';
    return { complete: false };
  }

  private emit(rows: readonly string[]): void {
    if (rows.length > 0) this.write(`${rows.join('\n')}\n`);
  }

  private pushWhole(text: string): void {
    if (text === '') return;
    const safe = terminalSafe(text);
    let out = '';
    for (let at = 0; at < safe.length; ) {
      const nl = safe.indexOf('\n', at);
      const end = nl < 0 ? safe.length : nl + 1;
      if (!this.open) out += TEXT_GUTTER;
      out += safe.slice(at, end);
      this.open = nl < 0;
      at = end;
    }
    this.write(out);
  }
}
