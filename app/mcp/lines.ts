import { completeUtf8Prefix } from '../capture/text-window';

/** One window of lines out of a text. */
export interface LineSlice {
  /** Lines in the whole text (a final line without LF counts). */
  readonly totalLines: number;
  /** 1-based number of the first line returned; 0 when none. */
  readonly startLine: number;
  /** 1-based number of the last line returned; 0 when none. */
  readonly endLine: number;
  /** The lines, each ending in LF (the text's last line only if it had one). */
  readonly text: string;
  /** Stopped early because the next line would pass `maxBytes` (or one line alone was cut). */
  readonly byteLimited: boolean;
}

/** Start offsets of every line of `text`. */
export function lineStarts(text: string): number[] {
  const starts = text.length === 0 ? [] : [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * Lines `start` .. `start + maxLines - 1` (1-based) of `text`, at most `maxBytes` of UTF-8. The
 * first line is cut on a character boundary when it alone is longer than `maxBytes`, so a result
 * never comes back empty merely because of one long line.
 */
export function sliceLines(text: string, starts: readonly number[], start: number, maxLines: number, maxBytes: number): LineSlice {
  const total = starts.length;
  if (start > total || maxLines === 0) return { totalLines: total, startLine: 0, endLine: 0, text: '', byteLimited: false };
  let out = '';
  let bytes = 0;
  let line = start;
  let byteLimited = false;
  for (; line < start + maxLines && line <= total; line++) {
    const piece = text.slice(starts[line - 1], line < total ? starts[line] : text.length);
    const size = Buffer.byteLength(piece, 'utf8');
    if (bytes + size > maxBytes) {
      byteLimited = true;
      if (line === start) {
        const b = Buffer.from(piece, 'utf8');
        out = b.subarray(0, completeUtf8Prefix(b.subarray(0, maxBytes))).toString('utf8');
        line++;
      }
      break;
    }
    out += piece;
    bytes += size;
  }
  return { totalLines: total, startLine: start, endLine: line - 1, text: out, byteLimited };
}

/** 1-based numbers of the lines containing `term` (literal; optionally case-insensitive). */
export function matchingLines(text: string, starts: readonly number[], term: string, ignoreCase: boolean): number[] {
  const hay = ignoreCase ? text.toLowerCase() : text;
  const needle = ignoreCase ? term.toLowerCase() : term;
  // toLowerCase can change lengths for a few characters; then search line by line instead.
  const sameLength = hay.length === text.length;
  const out: number[] = [];
  if (!sameLength) {
    for (let l = 0; l < starts.length; l++) {
      const line = text.slice(starts[l], l + 1 < starts.length ? starts[l + 1] : text.length);
      if ((ignoreCase ? line.toLowerCase() : line).includes(needle)) out.push(l + 1);
    }
    return out;
  }
  let from = 0;
  let l = 0;
  for (let i = hay.indexOf(needle, from); i !== -1; i = hay.indexOf(needle, from)) {
    while (l + 1 < starts.length && starts[l + 1] <= i) l++;
    out.push(l + 1);
    // Continue at the next line: one entry per matching line.
    from = l + 1 < starts.length ? starts[l + 1] : hay.length;
  }
  return out;
}
