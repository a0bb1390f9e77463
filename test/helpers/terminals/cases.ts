// The generator of the reading-rule differential tests (terminal-differential.test.ts, one stream;
// shared-terminal-differential.test.ts, two streams on one terminal): byte classes in every parser
// state, markers, and whether a terminal reading printed a marker.
import fc from 'fast-check';
import type { SanitizerOptions } from '../../../shared/sanitize/sanitizer';
import { bytes, utf8 } from '../record';
import type { Readings } from './readings';

/** Prefixes that leave a parser in each state (names are the parser's states, or what they test). */
export const STATES: Record<string, string[]> = {
  ground: [''],
  escape: ['\x1b'],
  escape_intermediate: ['\x1b(', '\x1b ', '\x1b)'],
  csi_entry: ['\x1b[', '\xc2\x9b', '\x9b'],
  csi_param: ['\x1b[1', '\x1b[1;2', '\x1b[38:5'],
  csi_leader: ['\x1b[?', '\x1b[>'],
  csi_intermediate: ['\x1b[ ', '\x1b[1$'],
  csi_ignore: ['\x1b[1?', '\x1b[??', '\x1b[1!2'],
  dcs_entry: ['\x1bP', '\xc2\x90', '\x90'],
  dcs_param: ['\x1bP1', '\x1bP1;2'],
  dcs_intermediate: ['\x1bP$', '\x1bP1+'],
  dcs_passthrough: ['\x1bPq', '\x1bP$q'],
  dcs_ignore: ['\x1bP1?', '\x1bP:'],
  esc_in_dcs: ['\x1bPqa\x1b'],
  osc_header: ['\x1b]', '\x1b]5'],
  osc_string: ['\x1b]0;', '\x1b]8;;', '\x1b]52;c;', '\xc2\x9d0;', '\x9d0;'],
  esc_in_osc: ['\x1b]0;a\x1b'],
  apc: ['\x1b_', '\xc2\x9f', '\x9f'],
  pm: ['\x1b^'],
  sos: ['\x1bX', '\xc2\x98'],
  tmux_name: ['\x1bk'],
  // A CSI tmux drops whole (64 parameter bytes or more, a value over INT_MAX) and the others take;
  // at most 16 parameters (libvterm 0.1.4 crashes on more), and the large value second (xterm.js
  // carries out a first count of 3e9 one by one: REP would not fit in memory).
  csi_tmux_drops: [`\x1b[${'0'.repeat(66)}`, '\x1b[1;3000000000', `\x1b[?${'25;'.repeat(14)}`],
};

/** Byte classes, each with samples (raw bytes as latin1 strings, or UTF-8 via utf8()). */
export const CLASSES: Record<string, Uint8Array[]> = {
  ascii_final: ['m', 'n', 'q', 'y', 'Q', 'R', 'B', 'C', 'E', 'I', 'p', 'b'].map((s) => bytes(s)),
  ascii_param: ['1', ';', ':', '0'].map((s) => bytes(s)),
  ascii_private: ['?', '>', '<', '='].map((s) => bytes(s)),
  ascii_intermediate: [' ', '$', '!', '(', '"'].map((s) => bytes(s)),
  ascii_introducer: ['k', 'P', '[', ']', '_', '^', 'X', '\\'].map((s) => bytes(s)),
  c0: ['\x00', '\x01', '\x07', '\t', '\n', '\x0b', '\x0c', '\x0e', '\x0f', '\x11', '\x18', '\x1a', '\x1b', '\x1c', '\x1f', '\r\n'].map((s) => bytes(s)),
  del: [bytes('\x7f')],
  raw_c1: [0x80, 0x84, 0x85, 0x8d, 0x8e, 0x90, 0x98, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f].map((b) => Uint8Array.of(b)),
  utf8_c1: [0x80, 0x84, 0x85, 0x8e, 0x90, 0x9b, 0x9c, 0x9d, 0x9f].map((b) => Uint8Array.of(0xc2, b)),
  two_byte: ['é', 'ñ', 'Ω', '«'].map(utf8),
  three_byte: ['本', '€', 'ｒ', '忽', '─'].map(utf8),
  four_byte: ['🙂', '𝐀', '𠀀'].map(utf8),
  bom: [utf8('\ufeff')],
  invisible: ['\u200b', '\u200d', '\u200d', '\n\u200d', '\u2060', '\ufe0f', '\u{e0041}', '\u202e', '\ufff9', '\u00ad', '\u2028'].map(utf8),
  invalid: ['\xff', '\xfe', '\xe2\x82', '\xe2\x9c', '\xf0\x9f', '\xa0', '\xbf', '\xed\xa0\x80', '\xf4\x90\x80\x80', '\xf5\x80', '\xc3'].map((s) => bytes(s)),
  overlong: ['\xc0\xaf', '\xc1\x9c', '\xe0\x80\xaf', '\xf0\x80\x80\xaf', '\xe0\x82\x9c'].map((s) => bytes(s)),
};

export const TERMINATORS = ['', '', '\x07', '\x1b\\', '\xc2\x9c', '\x9c', '\x18', 'm'].map((s) => bytes(s));

const asciiMarker = fc.array(fc.constantFrom(...'ABCDEFGHJKLMNPRSTUVWXYZ'), { minLength: 5, maxLength: 5 }).map((l) => `Q${l.join('')}`);
/** Non-ASCII markers: wide CJK, fullwidth Latin, 2-byte letters, emoji old and new, a line separator. */
const otherMarker = fc.tuple(
  fc.constantFrom('記', 'ｒ', 'é', '🙂', '🫨', ' ', 'Ω'),
  fc.array(fc.constantFrom(...'甲乙丙丁戊己庚辛壬癸ＡＢＣｘｙｚñßøΩ'), { minLength: 3, maxLength: 3 }),
).map(([head, l]) => `${head}${l.join('')}`);
export const markerArb = fc.oneof({ weight: 3, arbitrary: asciiMarker }, { weight: 2, arbitrary: otherMarker });

export type Part = { marker: string } | { raw: Uint8Array };

/**
 * One byte class in one state: ground (where tmux's decoder and its ZWJ rule act on the character
 * after) as often as all other states together, a terminator or none after.
 */
export const probeArb: fc.Arbitrary<Part> = fc.tuple(
  fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom(...Object.values(STATES).flat()) }),
  fc.constantFrom(...Object.values(CLASSES)),
  fc.nat(),
  fc.constantFrom(...TERMINATORS),
).map(([prefix, samples, pick, end]) => ({ raw: bytes(prefix, samples[pick % samples.length], prefix === '' ? '' : end) }));

export const partArb: fc.Arbitrary<Part> = fc.oneof(
  { weight: 4, arbitrary: probeArb },
  { weight: 3, arbitrary: markerArb.map((marker) => ({ marker })) },
  { weight: 1, arbitrary: fc.constantFrom('ok ', '\n', ' ', '\t').map((s) => ({ raw: bytes(s) })) },
);

export interface Case { raw: Uint8Array; markers: string[] }

export const caseArb: fc.Arbitrary<Case> = fc.array(partArb, { minLength: 1, maxLength: 10 }).map((parts) => ({
  raw: bytes(...parts.map((p) => ('marker' in p ? utf8(p.marker) : p.raw))),
  markers: parts.flatMap((p) => ('marker' in p ? [p.marker] : [])),
}));

export const optionsArb: fc.Arbitrary<SanitizerOptions> = fc.record({ cr: fc.constantFrom('newline' as const, 'overwrite' as const) });

export const READING_NAMES = ['tmux', 'libvterm', 'xterm', 'eightBit'] as const;

/**
 * Whether reading `name` prints `marker`. libvterm: in its parser's text or on its screen (see
 * Readings.vterm), with what its tools add between characters removed (U+FFFD for the bytes
 * vterm-dump cuts off, controls, marks and format characters from cells unterm prints after a
 * broken character).
 */
export function prints(seen: Readings, name: (typeof READING_NAMES)[number], marker: string): boolean {
  if (name !== 'libvterm') return seen[name].includes(marker);
  const junk = /[�\p{Cc}\p{Cf}\p{M}]/gu;
  return seen.vterm.replace(junk, '').includes(marker) || (seen.vtermScreen ?? '').replace(junk, '').includes(marker);
}
