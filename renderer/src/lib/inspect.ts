// The byte inspector: one byte in every base, and what it is in both readings terminals use.
import { c0Meaning, c1Meaning } from '../../../shared/parser/meaning';
import { formatCells } from '../../../shared/hex/cells';

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
 * Facts about the byte at `offset`; `window` holds the bytes from `windowStart` (a few neighbours
 * either side are enough to settle the UTF-8 sequence).
 */
export function inspectByte(window: Uint8Array, windowStart: number, offset: number): ByteFacts {
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
  if (b < 0x20 || b === 0x7f) utf8Reading = `C0 ${c0Meaning(b)}`;
  else if (b < 0x80) utf8Reading = b === 0x20 ? 'space' : `ASCII '${String.fromCharCode(b)}'`;
  else if (sequence) {
    const cp = parseInt(sequence.codePoint.slice(2), 16);
    const role = sequence.start === offset ? 'lead byte' : 'continuation byte';
    utf8Reading = cp >= 0x80 && cp <= 0x9f ? `${role} of encoded C1 ${c1Meaning(cp)}` : `${role} of ${sequence.codePoint}`;
  } else utf8Reading = 'ill-formed UTF-8 (shown as U+FFFD)';
  let vt500Reading: string;
  if (b < 0x20 || b === 0x7f) vt500Reading = `C0 ${c0Meaning(b)}`;
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
