import { terminalSafe } from './terminal-safe';

/**
 * Prefix of every row of untrusted (already sanitized) text that Airlock prints for humans.
 * Airlock's own lines never start with it and captured rows always do, so output cannot imitate
 * a header, a section line or a notice.
 */
export const TEXT_GUTTER = '| ';

/** Columns between a terminal's tab stops. */
const TAB_WIDTH = 8;

/** Columns assumed when the terminal's width is unknown (output piped, or not a TTY). */
export const DEFAULT_COLUMNS = 80;

/**
 * Splits `text` into display rows behind {@link TEXT_GUTTER}. A line longer than the terminal is
 * cut into several rows, each with the gutter, because the terminal's own wrapping would start a
 * row without it (and a long line could then fake an Airlock line). Widths are counted
 * conservatively — 1 column for ASCII, 2 for anything else, TABs expanded to the spaces they move
 * across — so a cut comes early, never late.
 * `complete` says whether the text ended with a newline.
 */
export function gutterRows(text: string, columns = DEFAULT_COLUMNS): { rows: string[]; complete: boolean } {
  const room = Math.max(8, columns - TEXT_GUTTER.length);
  const lines = terminalSafe(text).split('\n');
  const complete = lines[lines.length - 1] === '';
  if (complete) lines.pop();
  const rows: string[] = [];
  for (const line of lines) {
    let row = '';
    let width = 0;
    for (const ch of line) {
      // A TAB moves the cursor to the next tab stop, counted from the row's first column (the
      // gutter's), so it is written as the spaces it would take and measured as such.
      const text = ch === '\t' ? ' '.repeat(TAB_WIDTH - ((TEXT_GUTTER.length + width) % TAB_WIDTH)) : ch;
      const w = ch === '\t' ? text.length : ch.charCodeAt(0) < 0x80 ? 1 : 2;
      if (width + w > room) {
        rows.push(TEXT_GUTTER + row);
        row = '';
        width = 0;
        if (ch === '\t') continue;
      }
      row += text;
      width += w;
    }
    rows.push(TEXT_GUTTER + row);
  }
  return { rows, complete };
}
