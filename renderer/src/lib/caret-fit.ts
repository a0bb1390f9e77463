// How one hex row's caret notation fits its column. Notation is wider than the byte it stands for
// (`^[` for ESC, `<OSC>`, `<U+202E>`), so a row of escapes can need 80 columns where one of text
// needs 16: the column holds CARET_COLUMNS, a wider row is condensed down to MIN_SQUEEZE, and a row
// wider still shows the cells that fit and then a marker naming how many bytes it left out (their
// notation is in the row's tooltip, and each byte's in the inspector). Nothing is cut silently.

/** Columns of the caret column at its natural width (its CSS width is this many `ch`). */
export const CARET_COLUMNS = 24;
/** The most a row's notation is condensed (horizontally) before cells are left out. */
export const MIN_SQUEEZE = 0.7;

/** How a row's caret cells are drawn. */
export interface CaretFit {
  /** Cells drawn, from the row's first. */
  readonly shown: number;
  /** Horizontal scale of the drawn cells (and the marker): 1, or down to {@link MIN_SQUEEZE}. */
  readonly squeeze: number;
  /** Cells left out after the drawn ones (0: none, and no marker). */
  readonly cut: number;
}

/**
 * Display columns of a cell's text in a monospace font: 1 per character, 2 for East Asian wide
 * and emoji code points (the fallback fonts draw them double width). Estimated rather than
 * measured so a row's layout is known before it is drawn.
 */
export function notationColumns(text: string): number {
  let w = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    w += isWide(cp) ? 2 : 1;
  }
  return w;
}

function isWide(cp: number): boolean {
  return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff)
    || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1faff)
    || (cp >= 0x20000 && cp <= 0x3fffd);
}

/** The marker for `cut` cells left out: `+N`. */
export function markerText(cut: number): string {
  return `+${cut}`;
}

/** Columns the marker takes: its text and two more for its frame and gap (8px, see `.ct.more`). */
function markerColumns(cut: number): number {
  return markerText(cut).length + 2;
}

/** How cells of these widths (in columns) fit `columns` (see {@link CaretFit}). */
export function fitCaret(widths: readonly number[], columns = CARET_COLUMNS): CaretFit {
  let total = 0;
  for (const w of widths) total += w;
  if (total <= columns) return { shown: widths.length, squeeze: 1, cut: 0 };
  const room = columns / MIN_SQUEEZE;
  if (total <= room) return { shown: widths.length, squeeze: columns / total, cut: 0 };
  // The marker's width depends on how many are left out; it has 1–3 digits for a row of up to 256 bytes.
  let used = 0;
  let shown = 0;
  while (shown < widths.length && used + widths[shown] + markerColumns(widths.length - shown - 1) <= room) used += widths[shown++];
  const cut = widths.length - shown;
  return { shown, squeeze: Math.min(1, columns / (used + markerColumns(cut))), cut };
}
