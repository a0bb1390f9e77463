/**
 * An independent specification of the DEC/VT500 parser diagram (vt100.net/emu/dec_ansi_parser)
 * with Airlock's documented departures (see shared/parser/transition-table.ts), written from the
 * diagram rather than derived from the implementation. Used by parser-transitions.test.ts.
 */
import { bytes, utf8 } from './record';


/** Action codes of the packed encoding (the values are part of the table's contract). */
export const A = {
  ignore: 0, print: 1, execute: 2, escStart: 3, c1Start: 4, collect: 5, param: 6, escDispatch: 7,
  csiDispatch: 8, enter: 9, hook: 10, put: 11, stringEnd: 12, abort: 13, c1Execute: 15,
} as const;
export type ActionName = keyof typeof A;

export const S = {
  ground: 0, escape: 1, escape_intermediate: 2, csi_entry: 3, csi_param: 4, csi_intermediate: 5,
  csi_ignore: 6, dcs_entry: 7, dcs_param: 8, dcs_intermediate: 9, dcs_passthrough: 10, dcs_ignore: 11,
  osc_string: 12, sos_pm_apc_string: 13,
} as const;
export type StateName = keyof typeof S;

export const TEXT = 0xa0;
export const INVISIBLE = 0xa1;
export const INVALID = 0xa2;
export const BOM = 0xa3;

export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Byte classes: a partition of the units 0x00–0xA3, each with a representative input. */
export interface ByteClass {
  name: string;
  units: number[];
  /** Bytes fed to exercise the class (a raw byte, or a UTF-8 character for synthetic units). */
  sample: Uint8Array;
}

export const CLASSES: ByteClass[] = [
  { name: 'C0 control (CR as sample)', units: [...range(0x00, 0x06), 0x08, ...range(0x0b, 0x17), 0x19, ...range(0x1c, 0x1f)], sample: bytes('\r') },
  { name: 'BEL', units: [0x07], sample: bytes('\x07') },
  { name: 'TAB/LF', units: [0x09, 0x0a], sample: bytes('\n') },
  { name: 'CAN/SUB', units: [0x18, 0x1a], sample: bytes('\x18') },
  { name: 'ESC', units: [0x1b], sample: bytes('\x1b') },
  { name: 'intermediate 0x20-0x2F ($ as sample)', units: range(0x20, 0x2f), sample: bytes('$') },
  { name: 'digit or ; (1 as sample)', units: [...range(0x30, 0x39), 0x3b], sample: bytes('1') },
  { name: 'colon', units: [0x3a], sample: bytes(':') },
  { name: 'private marker 0x3C-0x3F (? as sample)', units: range(0x3c, 0x3f), sample: bytes('?') },
  { name: 'final 0x40-0x7E (m as sample)', units: range(0x40, 0x7e).filter((c) => ![0x50, 0x58, 0x5b, 0x5d, 0x5e, 0x5f].includes(c)), sample: bytes('m') },
  { name: 'P', units: [0x50], sample: bytes('P') },
  { name: 'X ^ _ (_ as sample)', units: [0x58, 0x5e, 0x5f], sample: bytes('_') },
  { name: '[', units: [0x5b], sample: bytes('[') },
  { name: ']', units: [0x5d], sample: bytes(']') },
  { name: 'DEL', units: [0x7f], sample: bytes('\x7f') },
  { name: 'C1 control (raw 0x84 IND as sample)', units: [...range(0x80, 0x8f), ...range(0x91, 0x97), 0x99, 0x9a], sample: bytes('\x84') },
  { name: 'C1 DCS 0x90', units: [0x90], sample: bytes('\x90') },
  { name: 'C1 SOS/PM/APC (raw 0x9F APC as sample)', units: [0x98, 0x9e, 0x9f], sample: bytes('\x9f') },
  { name: 'C1 CSI 0x9B', units: [0x9b], sample: bytes('\x9b') },
  { name: 'C1 ST 0x9C', units: [0x9c], sample: bytes('\x9c') },
  { name: 'C1 OSC 0x9D', units: [0x9d], sample: bytes('\x9d') },
  { name: 'UTF-8 text (本 = E6 9C AC as sample)', units: [TEXT], sample: utf8('本') },
  { name: 'UTF-8 invisible (U+202E as sample)', units: [INVISIBLE], sample: utf8('\u202e') },
  { name: 'invalid UTF-8 (0xFF as sample)', units: [INVALID], sample: bytes('\xff') },
  { name: 'BOM U+FEFF', units: [BOM], sample: utf8('\ufeff') },
];

/** What the diagram (with the documented departures) says happens to `unit` in `state`. */
export function spec(state: StateName, unit: number): [ActionName, StateName] {
  // "Anywhere" transitions.
  if (unit === 0x18 || unit === 0x1a) return ['abort', 'ground'];
  if (unit === 0x1b) return ['escStart', 'escape'];
  if (unit === 0x9c) return ['stringEnd', 'ground'];
  if (unit === 0x90) return ['c1Start', 'dcs_entry'];
  if (unit === 0x9b) return ['c1Start', 'csi_entry'];
  if (unit === 0x9d) return ['c1Start', 'osc_string'];
  if (unit === 0x98 || unit === 0x9e || unit === 0x9f) return ['c1Start', 'sos_pm_apc_string'];
  if (unit >= 0x80 && unit <= 0x9f) return ['c1Execute', 'ground'];

  const c0 = unit < 0x20;
  const nonAscii = unit >= 0xa0;
  // Departure: non-ASCII inside an ESC, CSI or DCS header is ignored there (deny by default).
  const inHeader = state !== 'ground' && state !== 'osc_string' && state !== 'dcs_passthrough' && state !== 'dcs_ignore'
    && state !== 'sos_pm_apc_string';
  if (nonAscii && inHeader) return ['ignore', state];
  const inter = unit >= 0x20 && unit <= 0x2f;
  const param = (unit >= 0x30 && unit <= 0x39) || unit === 0x3a || unit === 0x3b;
  const priv = unit >= 0x3c && unit <= 0x3f;
  const final = unit >= 0x40 && unit <= 0x7e;
  switch (state) {
    case 'ground':
      if (unit === 0x09 || unit === 0x0a || (unit >= 0x20 && unit <= 0x7e) || unit === TEXT) return ['print', 'ground'];
      return ['execute', 'ground']; // other C0, DEL, invisible, invalid: a control span
    case 'escape':
      if (c0) return ['execute', 'escape'];
      if (unit === 0x7f) return ['ignore', 'escape'];
      if (inter) return ['collect', 'escape_intermediate'];
      if (unit === 0x5b) return ['enter', 'csi_entry'];
      if (unit === 0x5d) return ['enter', 'osc_string'];
      if (unit === 0x50) return ['enter', 'dcs_entry'];
      if (unit === 0x58 || unit === 0x5e || unit === 0x5f) return ['enter', 'sos_pm_apc_string'];
      return ['escDispatch', 'ground'];
    case 'escape_intermediate':
      if (c0) return ['execute', state];
      if (unit === 0x7f) return ['ignore', state];
      if (inter) return ['collect', state];
      return ['escDispatch', 'ground'];
    case 'csi_entry':
      if (c0) return ['execute', state];
      if (unit === 0x7f) return ['ignore', state];
      if (inter) return ['collect', 'csi_intermediate'];
      if (param) return ['param', 'csi_param'];
      if (priv) return ['collect', 'csi_param'];
      return ['csiDispatch', 'ground'];
    case 'csi_param':
      if (c0) return ['execute', state];
      if (unit === 0x7f) return ['ignore', state];
      if (inter) return ['collect', 'csi_intermediate'];
      if (param) return ['param', state];
      if (priv) return ['ignore', 'csi_ignore'];
      return ['csiDispatch', 'ground'];
    case 'csi_intermediate':
      if (c0) return ['execute', state];
      if (unit === 0x7f) return ['ignore', state];
      if (inter) return ['collect', state];
      if (param || priv) return ['ignore', 'csi_ignore'];
      return ['csiDispatch', 'ground'];
    case 'csi_ignore':
      if (c0) return ['execute', state];
      if (unit === 0x7f) return ['ignore', state];
      if (final) return ['csiDispatch', 'ground'];
      return ['ignore', state];
    case 'dcs_entry':
      if (c0 || unit === 0x7f) return ['ignore', state];
      if (inter) return ['collect', 'dcs_intermediate'];
      if (param) return ['param', 'dcs_param'];
      if (priv) return ['collect', 'dcs_param'];
      return ['hook', 'dcs_passthrough'];
    case 'dcs_param':
      if (c0 || unit === 0x7f) return ['ignore', state];
      if (inter) return ['collect', 'dcs_intermediate'];
      if (param) return ['param', state];
      if (priv) return ['ignore', 'dcs_ignore'];
      return ['hook', 'dcs_passthrough'];
    case 'dcs_intermediate':
      if (c0 || unit === 0x7f) return ['ignore', state];
      if (inter) return ['collect', state];
      if (param || priv) return ['ignore', 'dcs_ignore'];
      return ['hook', 'dcs_passthrough'];
    case 'osc_string':
      if (unit === 0x07) return ['stringEnd', 'ground'];
      return ['put', state];
    case 'dcs_passthrough':
    case 'dcs_ignore':
    case 'sos_pm_apc_string':
      return ['put', state];
  }
}

/** A prefix that leaves the parser in each state (at stream offset = prefix length). */
export const PREFIX: Record<StateName, string> = {
  ground: '',
  escape: '\x1b',
  escape_intermediate: '\x1b(',
  csi_entry: '\x1b[',
  csi_param: '\x1b[1',
  csi_intermediate: '\x1b[ ',
  csi_ignore: '\x1b[1?',
  dcs_entry: '\x1bP',
  dcs_param: '\x1bP1',
  dcs_intermediate: '\x1bP$',
  dcs_passthrough: '\x1bPq',
  dcs_ignore: '\x1bP1?',
  osc_string: '\x1b]0;',
  sos_pm_apc_string: '\x1b_',
};

export const STATES = Object.keys(S) as StateName[];

