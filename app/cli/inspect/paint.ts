import type { CellKind } from '../../../shared/hex';
import { SPAN_CLASS_NAMES, type SpanClass } from '../../../shared/parser/span-class';
import { fitPieces, type Piece } from '../../terminal/fit';

/** What a cell is painted as: a span's class (its whole extent), else the cell's own kind. */
export type PaintStyle = CellKind | 'kept' | 'note' | 'dim' | `span:${(typeof SPAN_CLASS_NAMES)[number]}`;

/** SGR sequences Airlock itself emits on a TTY: fixed strings, never built from input. */
const SGR: Partial<Record<PaintStyle, string>> = {
  // Cell kinds outside any span.
  c0: '\x1b[31m',
  del: '\x1b[31m',
  c1: '\x1b[35m',
  invalid: '\x1b[33m',
  invisible: '\x1b[36m',
  'utf8-escaped': '\x1b[36m',
  partial: '\x1b[2m',
  // LF and TAB are kept as text: dim, never the colour of a removed control.
  kept: '\x1b[2m',
  note: '\x1b[1;34m',
  dim: '\x1b[2m',
  // Spans, over every byte of their extent (introducer, parameters, payload, terminator).
  'span:c0': '\x1b[31m',
  'span:c1': '\x1b[35m',
  'span:esc': '\x1b[35m',
  'span:csi': '\x1b[35m',
  'span:osc': '\x1b[30;43m',
  'span:dcs': '\x1b[30;43m',
  'span:apc': '\x1b[30;43m',
  'span:pm': '\x1b[30;43m',
  'span:sos': '\x1b[30;43m',
  'span:invalid_utf8': '\x1b[33m',
  'span:invisible': '\x1b[30;46m',
};
/** Ends every colour Airlock paints. */
export const RESET = '\x1b[0m';

/** Colours inert cell text; returns the text unchanged for styles that need no colour. */
export function paintCell(text: string, style: PaintStyle): string {
  const sgr = SGR[style];
  return sgr === undefined ? text : `${sgr}${text}${RESET}`;
}

/** The SGR of each span class, by number ('' for none): {@link SGR} of `span:<name>`. */
const SPAN_SGR: readonly string[] = SPAN_CLASS_NAMES.map((name) => SGR[`span:${name}`] ?? '');
const KEPT_SGR = SGR.kept ?? '';

/**
 * The SGR {@link paintCell} puts around a cell painted as {@link styleFor} says ('' for none),
 * from tables: for rows painted cell by cell, without a style string per cell.
 */
export function cellSgr(kind: CellKind, text: string, span: SpanClass | undefined): string {
  if (span !== undefined) return SPAN_SGR[span];
  if (kind === 'c0' && (text === '^J' || text === '^I')) return KEPT_SGR;
  return SGR[kind] ?? '';
}

/** `text` inside `sgr` and a reset, as {@link paintCell} paints it; `text` alone for no SGR. */
export function painted(text: string, sgr: string): string {
  return sgr === '' ? text : `${sgr}${text}${RESET}`;
}

/** The style for a byte: its span's class when it lies in one, else its cell kind (LF/TAB as kept text). */
export function styleFor(kind: CellKind, text: string, span: SpanClass | undefined): PaintStyle {
  if (span !== undefined) return `span:${SPAN_CLASS_NAMES[span]}`;
  if (kind === 'c0' && (text === '^J' || text === '^I')) return 'kept';
  return kind;
}

/**
 * The legend printed above a coloured dump, each name in its own colour, cut to the terminal's
 * `columns` between names (further rows begin `legend:+`).
 */
export function legend(columns = Infinity): string[] {
  const items: [string, PaintStyle][] = [
    ['C0/DEL', 'span:c0'], ['ESC/CSI/C1', 'span:csi'], ['string (OSC/DCS/APC/PM/SOS, whole payload)', 'span:osc'],
    ['invisible', 'span:invisible'], ['invalid UTF-8', 'span:invalid_utf8'], ['LF/TAB (kept)', 'kept'], ['look-alike', 'utf8-escaped'],
  ];
  const continuation = 'legend:+ ';
  const pieces: Piece[] = [{ text: paintCell('legend:', 'note'), width: 'legend:'.length }];
  items.forEach(([name, style], k) => {
    pieces.push({ text: k === 0 ? ' ' : '  ', width: k === 0 ? 1 : 2 });
    // A name is one piece, unless it is wider than a row: then word by word.
    const words = continuation.length + name.length <= columns ? [name] : name.split(' ');
    words.forEach((word, w) => {
      if (w > 0) pieces.push({ text: ' ', width: 1 });
      pieces.push({ text: paintCell(word, style), width: word.length });
    });
  });
  return fitPieces(pieces, columns, continuation);
}

/**
 * Whether to colour: `always`/`never` win; `auto` colours only a TTY and only without NO_COLOR
 * (https://no-color.org) or TERM=dumb.
 */
export function wantsColor(mode: string, isTTY: boolean, env: NodeJS.ProcessEnv): boolean {
  if (mode === 'always') return true;
  if (mode === 'never') return false;
  return isTTY && !env.NO_COLOR && env.TERM !== 'dumb';
}
