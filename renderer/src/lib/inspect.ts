// The byte inspector: one byte in every base, and what it is in both readings terminals use.
import { c0Meaning, c1Meaning } from '../../../shared/parser/meaning';
import { formatCells } from '../../../shared/hex/cells';
import type { SpanInfo } from '../../../shared/bridge/types';
import { SpanClass } from '../../../shared/parser/span-class';
import { spanHead } from './spans';

export interface ByteFacts {
  readonly offset: number;
  readonly byte: number;
  readonly hex: string;
  readonly dec: string;
  readonly oct: string;
  readonly bin: string;
  /** A UTF-8 terminal (xterm.js, VTE, kitty…): decodes UTF-8 first. */
  readonly utf8Reading: string;
  /** An 8-bit VT500: every byte 0x80–0x9F is a C1 control. */
  readonly vt500Reading: string;
  /** The UTF-8 sequence this byte is part of, if well-formed. */
  readonly sequence: { readonly start: number; readonly bytes: string; readonly codePoint: string; readonly glyph: string } | null;
}

/** Length of the UTF-8 sequence led by `b` (0: not a lead byte). */
function leadLength(b: number): number {
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

/** Decodes a well-formed sequence at `at` of `window` or returns null. */
function decodeAt(window: Uint8Array, at: number): { length: number; cp: number } | null {
  const n = leadLength(window[at]);
  if (n === 0 || at + n > window.length) return null;
  let cp = window[at] & (n === 2 ? 0x1f : n === 3 ? 0x0f : 0x07);
  for (let k = 1; k < n; k++) {
    const c = window[at + k];
    if ((c & 0xc0) !== 0x80) return null;
    cp = cp * 64 + (c & 0x3f);
  }
  const min = n === 2 ? 0x80 : n === 3 ? 0x800 : 0x10000;
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return null;
  return { length: n, cp };
}

function hex2(b: number): string {
  return b.toString(16).padStart(2, '0');
}

function codePointName(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * What an ESC byte is, from the span under it: the introducer of the sequence or string it opens
 * ("ESC — introduces OSC 52 clipboard access"), the first byte of the ST that ends one, or a lone
 * ESC (an ESC span with no final byte). Null without a span (the reading then says only "ESC").
 */
export function escRole(span: SpanInfo | null | undefined, offset: number, next: number | undefined): string | null {
  if (!span || offset < span.offset || offset >= span.offset + span.length) return null;
  const head = spanHead(span);
  if (offset === span.offset) {
    // An ESC span that did not end with a final byte: a lone or cut-off ESC.
    if (span.cls === SpanClass.Esc && span.terminator !== 'final') {
      return span.length === 1 ? 'C0 ESC escape (lone)' : `ESC — starts an escape sequence cut off after ${span.length - 1} byte${span.length === 2 ? '' : 's'} (no final byte)`;
    }
    if (span.cls === SpanClass.Esc) return `ESC — first byte of ${head}`;
    return `ESC — introduces ${head}`;
  }
  const end = span.offset + span.length;
  if (offset === end - 2 && next === 0x5c && span.terminator === 'ST') return `ESC — starts the ST (ESC \\) that ends ${head}`;
  if (offset === end - 1 && span.terminator === 'ESC') return `ESC — cuts off ${head} (an ESC that starts no ST)`;
  return `ESC — inside ${head}`;
}

/**
 * Facts about the byte at `offset`; `window` holds the bytes from `windowStart` (a few neighbours
 * either side are enough to settle the UTF-8 sequence). `span` is the innermost span under the
 * byte, if known: it names what an ESC introduces or ends.
 */
export function inspectByte(window: Uint8Array, windowStart: number, offset: number, span?: SpanInfo | null): ByteFacts {
  const i = offset - windowStart;
  const b = window[i];
  let sequence: ByteFacts['sequence'] = null;
  for (let back = 0; back <= 3 && i - back >= 0; back++) {
    const d = decodeAt(window, i - back);
    if (d && d.length > back) {
      const bytes = Array.from(window.subarray(i - back, i - back + d.length), hex2).join(' ');
      const glyphCell = caretSafeGlyph(d.cp);
      sequence = { start: offset - back, bytes, codePoint: codePointName(d.cp), glyph: glyphCell };
      break;
    }
    if (back > 0 && (window[i - back] & 0xc0) !== 0x80) break;
  }
  let utf8Reading: string;
  const esc = b === 0x1b ? escRole(span, offset, window[i + 1]) ?? 'C0 ESC escape' : null;
  if (esc !== null) utf8Reading = esc;
  else if (b < 0x20 || b === 0x7f) utf8Reading = `C0 ${c0Meaning(b)}`;
  else if (b < 0x80) utf8Reading = b === 0x20 ? 'space' : `ASCII '${String.fromCharCode(b)}'`;
  else if (sequence) {
    const cp = parseInt(sequence.codePoint.slice(2), 16);
    const role = sequence.start === offset ? 'lead byte' : 'continuation byte';
    utf8Reading = cp >= 0x80 && cp <= 0x9f ? `${role} of encoded C1 ${c1Meaning(cp)}` : `${role} of ${sequence.codePoint}`;
  } else utf8Reading = 'ill-formed UTF-8 (shown as U+FFFD)';
  let vt500Reading: string;
  // ESC is the same C0 control in both readings; so is what it opens (a reading that differs
  // inside the sequence shows as a Withheld or invalid UTF-8 span, not at the ESC).
  if (esc !== null) vt500Reading = esc;
  else if (b < 0x20 || b === 0x7f) vt500Reading = `C0 ${c0Meaning(b)}`;
  else if (b < 0x80) vt500Reading = b === 0x20 ? 'space' : `GL '${String.fromCharCode(b)}'`;
  else if (b <= 0x9f) vt500Reading = `C1 ${c1Meaning(b)}`;
  else vt500Reading = `GR graphic 0x${hex2(b)} (charset dependent)`;
  return {
    offset, byte: b, hex: `0x${hex2(b)}`, dec: String(b), oct: `0o${b.toString(8).padStart(3, '0')}`,
    bin: b.toString(2).padStart(8, '0').replace(/(\d{4})(\d{4})/, '$1 $2'), utf8Reading, vt500Reading, sequence,
  };
}

/** The character as the caret column shows it: escaped (`<U+202E>`) when drawing it could mislead. */
function caretSafeGlyph(cp: number): string {
  const bytes = new TextEncoder().encode(String.fromCodePoint(cp));
  return formatCells(bytes, 0, { lookahead: new Uint8Array(0) })[0].text;
}
