import { makeCell, type Cell } from './cell';

/**
 * Unicode's abbreviations for U+0080–U+009F (ISO 6429 names; PAD, HOP and SGC are the
 * never-standardised slots). A name says what the byte would do on a terminal that honours 8-bit
 * controls (`CSI`, `OSC`, `ST`), which a bare hex value does not.
 */
const C1_NAMES: readonly string[] = [
  'PAD', 'HOP', 'BPH', 'NBH', 'IND', 'NEL', 'SSA', 'ESA',
  'HTS', 'HTJ', 'VTS', 'PLD', 'PLU', 'RI', 'SS2', 'SS3',
  'DCS', 'PU1', 'PU2', 'STS', 'CCH', 'MW', 'SPA', 'EPA',
  'SOS', 'SGC', 'SCI', 'CSI', 'ST', 'OSC', 'PM', 'APC',
];

/** The continuation mark; a literal U+00B7 in the input is escaped so it cannot pose as one. */
export const CONTINUATION_MARK = '\u00b7';

const HEX_DIGITS = '0123456789abcdef';

/** Two lowercase hex digits for every byte value, so formatting never calls toString(16). */
export const HEX_BYTE: readonly string[] = Object.freeze(
  Array.from({ length: 256 }, (_, b) => HEX_DIGITS[b >> 4] + HEX_DIGITS[b & 15]),
);

function caretC0(b: number): string {
  return '^' + String.fromCharCode(b + 0x40);
}

function printableText(b: number): string {
  // These three start notations; escaping them keeps every cell uniquely decodable from text.
  if (b === 0x5c) return '\\\\';
  if (b === 0x5e) return '\\^';
  if (b === 0x3c) return '\\<';
  return String.fromCharCode(b);
}

/** Cells for bytes 0x00–0x7F, which mean the same in every UTF-8 state. */
export const ASCII_CELLS: readonly Cell[] = Object.freeze(
  Array.from({ length: 0x80 }, (_, b) => {
    if (b < 0x20) return makeCell(caretC0(b), 'c0');
    if (b === 0x20) return makeCell(' ', 'space');
    if (b === 0x7f) return makeCell('^?', 'del');
    return makeCell(printableText(b), 'printable');
  }),
);

/** Cells for C1 controls, indexed by `byte - 0x80` (also used for the C2 of C2 80–9F). */
export const C1_CELLS: readonly Cell[] = Object.freeze(C1_NAMES.map((name) => makeCell(`<${name}>`, 'c1')));

/** Cells for ill-formed bytes, indexed by byte value (only 0x80–0xFF occur). */
export const INVALID_CELLS: readonly Cell[] = Object.freeze(
  HEX_BYTE.map((hex) => makeCell(`\\x${hex}`, 'invalid')),
);

/** Cells for bytes whose meaning depends on unseen neighbours, indexed by byte value. */
export const PARTIAL_CELLS: readonly Cell[] = Object.freeze(
  HEX_BYTE.map((hex) => makeCell(`<${hex}?>`, 'partial')),
);

/** The one cell every continuation byte of a well-formed character shares. */
export const CONTINUATION_CELL: Cell = makeCell(CONTINUATION_MARK, 'utf8-cont');

/**
 * Caret notation for one byte on its own, without UTF-8 decoding: `^@`–`^_` for C0, `^?` for DEL,
 * `<CSI>`-style names for 0x80–0x9F, `\xa0`–`\xff` for the other high bytes, and printable ASCII
 * as itself (with `\`, `^`, `<` escaped as `\\`, `\^`, `\<`). Use {@link caretString} or
 * {@link formatHexRows} when the bytes may hold UTF-8 text.
 *
 * @throws RangeError if `b` is not an integer in 0–255.
 */
export function caretForByte(b: number): string {
  if (!Number.isInteger(b) || b < 0 || b > 0xff) throw new RangeError(`not a byte: ${b}`);
  if (b < 0x80) return ASCII_CELLS[b].text;
  if (b < 0xa0) return C1_CELLS[b - 0x80].text;
  return INVALID_CELLS[b].text;
}
