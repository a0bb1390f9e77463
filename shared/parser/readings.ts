import { Action, State, Unit } from './states';
import { TRANSITIONS } from './transition-table';

/**
 * The terminal readings the parser checks its own (8-bit VT500) reading against: what each real
 * terminal's parser does with a unit in each of its states, as packed tables written from the
 * terminal's source and held to the terminal itself by test/shared/terminal-differential.test.ts
 * (tmux in a pane, libvterm's vterm-dump and unterm, @xterm/headless). A unit reaches the
 * sanitized text only where the parser and every reading print it (see docs/sanitizer.md).
 *
 * Units are the parser's: ASCII bytes, C1 as U+0080–U+009F (C2 80–C2 9F), {@link Unit.Text},
 * {@link Unit.Invisible}, {@link Unit.Bom} and {@link Unit.Invalid}. A raw 0x80–0x9F byte outside
 * a character is {@link Unit.Invalid} here: none of these terminals reads it as C1.
 *
 * An entry is `next | PRINT | MOVE`: the reading's next state; whether it shows the unit as text
 * (LF and TAB count, as the sanitized text keeps them); whether it may move the cursor to another
 * place or line (LF, VT, FF, CR, BS, a C1 control, an ESC final that moves ({@link ESC_MOVES}),
 * DECALN, any CSI but SGR).
 */
export const enum Reading { Xterm = 0, Vterm = 1, Tmux = 2 }
export const READING_COUNT = 3;
export const READING_NAMES = ['xterm.js', 'libvterm', 'tmux'] as const;

export const NEXT = 0x0f;
export const PRINT = 0x10;
export const MOVE = 0x20;

/**
 * The parser's own state as the readings see it: its 14 states, plus an ESC that arrived inside a
 * DCS payload (tmux keeps the DCS open unless `\` follows; the parser is in {@link State.Escape}
 * then, as for an ESC in any other string).
 */
export const ESC_IN_DCS = 14;
export const EFFECTIVE_STATES = 15;

const UNITS = 256;
const C0_MOVES = [0x08, 0x0a, 0x0b, 0x0c, 0x0d];
/** ESC finals that move the cursor or the lines: IND, NEL, RI, DECRC, RIS, cursor to lower left, DECBI, DECFI. */
const ESC_MOVES = [...'DEM8cF69'].map((c) => c.charCodeAt(0));
/** DECALN (ESC # 8): the one ESC with an intermediate that moves (it fills the screen). */
const DECALN_FINAL = 0x38;
const SGR_FINAL = 0x6d;

/**
 * A reading's table under construction. Ranges are written with the native fill (this runs at
 * module load, before the parser: no arrays are built per entry).
 */
class Table {
  readonly table: Uint8Array;

  constructor(states: number) {
    this.table = new Uint8Array(states * UNITS);
    for (let s = 0; s < states; s++) this.table.fill(s, s * UNITS, (s + 1) * UNITS);
  }

  /** Units `from`..`to` in `state` go to `next` with `flags`. */
  range(from: number, to: number, state: number, next: number, flags = 0): void {
    this.table.fill(next | flags, state * UNITS + from, state * UNITS + to + 1);
  }

  /** Each of `units` in `state` goes to `next` with `flags`. */
  units(units: readonly number[], state: number, next: number, flags = 0): void {
    for (const u of units) this.table[state * UNITS + u] = next | flags;
  }

  /** Every non-ASCII unit (C1 as U+0080–U+009F, characters, invalid, BOM) in `state` goes to `next`. */
  nonAscii(state: number, next: number): void {
    this.range(0x80, Unit.Bom, state, next);
  }

  /** C0 controls executed where they stand (not CAN, SUB, ESC): LF and TAB are text, the line moves move. */
  executeC0(state: number, next: number, bel = true): void {
    for (let u = 0; u < 0x20; u++) {
      if (u === 0x18 || u === 0x1a || u === 0x1b || (u === 0x07 && !bel)) continue;
      this.table[state * UNITS + u] = next | (u === 0x0a || u === 0x09 ? PRINT : 0) | (C0_MOVES.includes(u) ? MOVE : 0);
    }
  }

  /** A dispatched CSI final 0x40–0x7E: all but SGR may move. */
  csiFinals(state: number, next: number): void {
    this.range(0x40, 0x7e, state, next, MOVE);
    this.units([SGR_FINAL], state, next);
  }

  /** Dispatched ESC finals `from`..`to`: those of {@link ESC_MOVES} move (after an intermediate only DECALN). */
  escFinals(from: number, to: number, state: number, next: number, intermediate: boolean): void {
    this.range(from, to, state, next);
    for (const f of intermediate ? [DECALN_FINAL] : ESC_MOVES) if (f >= from && f <= to) this.units([f], state, next, MOVE);
  }
}

/** Whether a dispatched ESC final moves; see {@link Table.escFinals}. */
const escMove = (final: number, intermediate: boolean): number => ((intermediate ? final === DECALN_FINAL : ESC_MOVES.includes(final)) ? MOVE : 0);

// ---- xterm.js 6.0 (src/common/parser/EscapeSequenceParser.ts, VT500_TRANSITION_TABLE) ----------
// Its decoder drops invalid UTF-8 and every U+FEFF before the parser sees them: no unit at all.

const enum X {
  Ground = 0, Escape, EscInt, CsiEntry, CsiParam, CsiInt, CsiIgnore, SosPmApc, Osc, DcsEntry, DcsParam, DcsIgnore, DcsInt, DcsPass,
}
const X_STATES = 14;

function xtermTable(): Uint8Array {
  const t = new Table(X_STATES);
  for (let s = 0; s < X_STATES; s++) {
    // Default: ERROR, to ground (the unit is dropped); invalid UTF-8 and BOM never reach the parser.
    t.range(0x00, Unit.Invisible, s, X.Ground);
    t.units([Unit.Invalid, Unit.Bom], s, s);
    // Anywhere.
    t.units([0x18, 0x1a, 0x9c], s, X.Ground);
    t.range(0x80, 0x8f, s, X.Ground, MOVE);
    t.range(0x91, 0x97, s, X.Ground, MOVE);
    t.units([0x99, 0x9a], s, X.Ground, MOVE);
    t.units([0x1b], s, X.Escape);
    t.units([0x9d], s, X.Osc);
    t.units([0x98, 0x9e, 0x9f], s, X.SosPmApc);
    t.units([0x9b], s, X.CsiEntry);
    t.units([0x90], s, X.DcsEntry);
  }
  t.range(0x20, 0x7e, X.Ground, X.Ground, PRINT);
  for (const s of [X.Ground, X.Escape, X.CsiEntry, X.CsiParam, X.CsiIgnore, X.CsiInt, X.EscInt]) t.executeC0(s, s);
  for (const s of [X.Escape, X.CsiEntry, X.CsiParam, X.CsiInt, X.EscInt, X.CsiIgnore]) t.units([0x7f], s, s);
  // OSC.
  t.range(0x00, 0x1f, X.Osc, X.Osc);
  t.range(0x20, 0x7f, X.Osc, X.Osc);
  t.units([0x18, 0x1a, 0x07], X.Osc, X.Ground);
  t.units([0x1b], X.Osc, X.Escape);
  t.units([0x5d], X.Escape, X.Osc);
  // SOS, PM, APC: everything but the terminators is ignored, except non-ASCII (an error).
  t.units([0x58, 0x5e, 0x5f], X.Escape, X.SosPmApc);
  t.range(0x00, 0x7f, X.SosPmApc, X.SosPmApc);
  t.units([0x18, 0x1a], X.SosPmApc, X.Ground);
  t.units([0x1b], X.SosPmApc, X.Escape);
  // CSI.
  t.units([0x5b], X.Escape, X.CsiEntry);
  t.csiFinals(X.CsiEntry, X.Ground);
  t.range(0x30, 0x3f, X.CsiEntry, X.CsiParam);
  t.range(0x30, 0x3b, X.CsiParam, X.CsiParam);
  t.csiFinals(X.CsiParam, X.Ground);
  t.range(0x3c, 0x3f, X.CsiParam, X.CsiIgnore);
  t.range(0x20, 0x3f, X.CsiIgnore, X.CsiIgnore);
  t.range(0x40, 0x7e, X.CsiIgnore, X.Ground);
  t.range(0x20, 0x2f, X.CsiEntry, X.CsiInt);
  t.range(0x20, 0x2f, X.CsiInt, X.CsiInt);
  t.range(0x30, 0x3f, X.CsiInt, X.CsiIgnore);
  t.csiFinals(X.CsiInt, X.Ground);
  t.range(0x20, 0x2f, X.CsiParam, X.CsiInt);
  // ESC.
  t.range(0x20, 0x2f, X.Escape, X.EscInt);
  t.range(0x20, 0x2f, X.EscInt, X.EscInt);
  t.escFinals(0x30, 0x7e, X.EscInt, X.Ground, true);
  t.escFinals(0x30, 0x4f, X.Escape, X.Ground, false);
  t.escFinals(0x51, 0x57, X.Escape, X.Ground, false);
  t.escFinals(0x59, 0x5a, X.Escape, X.Ground, false);
  t.escFinals(0x5c, 0x5c, X.Escape, X.Ground, false);
  t.escFinals(0x60, 0x7e, X.Escape, X.Ground, false);
  // DCS.
  t.units([0x50], X.Escape, X.DcsEntry);
  for (const s of [X.DcsEntry, X.DcsParam, X.DcsInt, X.DcsIgnore]) {
    t.range(0x00, 0x17, s, s);
    t.units([0x19, 0x7f], s, s);
    t.range(0x1c, 0x1f, s, s);
  }
  t.range(0x20, 0x2f, X.DcsEntry, X.DcsInt);
  t.range(0x30, 0x3f, X.DcsEntry, X.DcsParam);
  t.range(0x20, 0x7f, X.DcsIgnore, X.DcsIgnore);
  t.range(0x30, 0x3b, X.DcsParam, X.DcsParam);
  t.range(0x3c, 0x3f, X.DcsParam, X.DcsIgnore);
  t.range(0x20, 0x2f, X.DcsParam, X.DcsInt);
  t.range(0x20, 0x2f, X.DcsInt, X.DcsInt);
  t.range(0x30, 0x3f, X.DcsInt, X.DcsIgnore);
  for (const s of [X.DcsEntry, X.DcsParam, X.DcsInt]) t.range(0x40, 0x7e, s, X.DcsPass);
  t.range(0x00, 0x17, X.DcsPass, X.DcsPass);
  t.units([0x19], X.DcsPass, X.DcsPass);
  t.range(0x1c, 0x7f, X.DcsPass, X.DcsPass);
  t.units([0x18, 0x1a], X.DcsPass, X.Ground);
  t.units([0x1b], X.DcsPass, X.Escape);
  // Characters (NON_ASCII_PRINTABLE).
  t.units([Unit.Text, Unit.Invisible], X.Ground, X.Ground, PRINT);
  for (const s of [X.Osc, X.CsiIgnore, X.DcsIgnore, X.DcsPass]) t.units([Unit.Text, Unit.Invisible], s, s);
  return t.table;
}

// ---- libvterm 0.1.4 (src/parser.c, vterm_input_write, UTF-8 mode) -------------------------------
// A byte parser: NUL and DEL are skipped everywhere; C0 controls execute in every state, strings
// included; APC, PM and SOS are no strings (ESC _ is a C1 control and the payload is text); BEL
// ends a DCS as well as an OSC; in UTF-8 mode no byte 0x80–0x9F is a control.

const enum V { Normal = 0, Escape, EscInt, CsiLeader, CsiArgs, CsiInt, Str }
const V_STATES = 7;

function vtermTable(): Uint8Array {
  const t = new Table(V_STATES);
  for (let s = 0; s < V_STATES; s++) {
    t.executeC0(s, s);
    t.units([0x00, 0x7f], s, s);
    t.units([0x18, 0x1a], s, V.Normal);
    t.units([0x1b], s, V.Escape);
  }
  t.units([0x07], V.Str, V.Normal);
  // Ground: ASCII is text; a character is text; anything else is dropped.
  t.range(0x20, 0x7e, V.Normal, V.Normal, PRINT);
  t.units([Unit.Text, Unit.Invisible, Unit.Bom], V.Normal, V.Normal, PRINT);
  // ESC, with or without intermediates: P [ ] open strings and CSI whatever came before.
  for (const s of [V.Escape, V.EscInt]) {
    t.range(0x20, 0x2f, s, V.EscInt);
    t.escFinals(0x30, 0x7e, s, V.Normal, s === V.EscInt);
    t.units([0x50, 0x5d], s, V.Str);
    t.units([0x5b], s, V.CsiLeader);
  }
  // CSI: leader bytes, then arguments, then intermediates, then the final; anything else ends it.
  for (const s of [V.CsiLeader, V.CsiArgs, V.CsiInt]) {
    t.range(0x30, 0x3f, s, V.Normal);
    t.nonAscii(s, V.Normal);
    t.range(0x20, 0x2f, s, V.CsiInt);
    t.csiFinals(s, V.Normal);
  }
  t.range(0x3c, 0x3f, V.CsiLeader, V.CsiLeader);
  t.range(0x30, 0x3b, V.CsiLeader, V.CsiArgs);
  t.range(0x30, 0x3b, V.CsiArgs, V.CsiArgs);
  // Non-ASCII bytes are ignored after ESC, payload in a string, and (not being C1) dropped in ground.
  return t.table;
}

// ---- tmux 3.3a (input.c, the input_state_* tables) ------------------------------------------------
// A byte parser with no C1 controls at all. Ground decodes UTF-8 (see Parser.tmuxDecode); every
// other state ignores bytes 0x80–0xFF or takes them as payload. A DCS payload ignores CAN and SUB
// and stays open after an ESC that is not followed by `\`. APC, PM, SOS and ESC k (window name)
// are strings up to ST that behave alike: one state here.

const enum T {
  Ground = 0, Escape, EscInt, CsiEnter, CsiParam, CsiInt, CsiIgnore, DcsEnter, DcsParam, DcsInt, DcsHandler, DcsEscape,
  DcsIgnore, Osc, Str,
}
const T_STATES = 15;

function tmuxTable(): Uint8Array {
  const t = new Table(T_STATES);
  for (let s = 0; s < T_STATES; s++) {
    if (s === T.DcsHandler || s === T.DcsEscape) continue;
    t.units([0x18, 0x1a], s, T.Ground);
    t.units([0x1b], s, T.Escape);
  }
  for (const s of [T.Ground, T.Escape, T.EscInt, T.CsiEnter, T.CsiParam, T.CsiInt, T.CsiIgnore]) t.executeC0(s, s);
  t.range(0x20, 0x7e, T.Ground, T.Ground, PRINT);
  t.units([Unit.Text, Unit.Invisible, Unit.Bom], T.Ground, T.Ground, PRINT);

  t.range(0x20, 0x2f, T.Escape, T.EscInt);
  t.escFinals(0x30, 0x7e, T.Escape, T.Ground, false);
  t.units([0x50], T.Escape, T.DcsEnter);
  t.units([0x58, 0x5e, 0x5f, 0x6b], T.Escape, T.Str);
  t.units([0x5b], T.Escape, T.CsiEnter);
  t.units([0x5d], T.Escape, T.Osc);
  t.range(0x20, 0x2f, T.EscInt, T.EscInt);
  t.escFinals(0x30, 0x7e, T.EscInt, T.Ground, true);

  t.range(0x20, 0x2f, T.CsiEnter, T.CsiInt);
  t.range(0x30, 0x3f, T.CsiEnter, T.CsiParam);
  t.csiFinals(T.CsiEnter, T.Ground);
  t.range(0x20, 0x2f, T.CsiParam, T.CsiInt);
  t.range(0x3c, 0x3f, T.CsiParam, T.CsiIgnore);
  t.csiFinals(T.CsiParam, T.Ground);
  t.range(0x30, 0x3f, T.CsiInt, T.CsiIgnore);
  t.csiFinals(T.CsiInt, T.Ground);
  t.range(0x40, 0x7e, T.CsiIgnore, T.Ground);

  t.range(0x20, 0x2f, T.DcsEnter, T.DcsInt);
  t.range(0x30, 0x3f, T.DcsEnter, T.DcsParam);
  t.units([0x3a], T.DcsEnter, T.DcsIgnore);
  t.range(0x40, 0x7e, T.DcsEnter, T.DcsHandler);
  t.range(0x20, 0x2f, T.DcsParam, T.DcsInt);
  t.range(0x3a, 0x3a, T.DcsParam, T.DcsIgnore);
  t.range(0x3c, 0x3f, T.DcsParam, T.DcsIgnore);
  t.range(0x40, 0x7e, T.DcsParam, T.DcsHandler);
  t.range(0x30, 0x3f, T.DcsInt, T.DcsIgnore);
  t.range(0x40, 0x7e, T.DcsInt, T.DcsHandler);
  t.units([0x1b], T.DcsHandler, T.DcsEscape);
  t.range(0x00, Unit.Bom, T.DcsEscape, T.DcsHandler);
  t.units([0x5c], T.DcsEscape, T.Ground);

  t.units([0x07], T.Osc, T.Ground);
  return t.table;
}

/**
 * The readings' tables, indexed by {@link Reading}: entry `state << 8 | unit`. Built afresh on each
 * call: the parser takes them (and what is derived from them) once per process from tables.ts.
 */
export function readingTables(): Uint8Array[] {
  return [xtermTable(), vtermTable(), tmuxTable()];
}

/** The tmux reading's ground state (where it decodes UTF-8). */
export const TMUX_GROUND = T.Ground;

/**
 * Where each reading is while it agrees with the parser in (effective) state `s`: HOME[r][s].
 * Several parser states may share a reading's state (libvterm has no ignore state and no APC).
 */
export const HOME: readonly Uint8Array[] = [
  Uint8Array.of(X.Ground, X.Escape, X.EscInt, X.CsiEntry, X.CsiParam, X.CsiInt, X.CsiIgnore, X.DcsEntry, X.DcsParam, X.DcsInt,
    X.DcsPass, X.DcsIgnore, X.Osc, X.SosPmApc, X.Escape),
  Uint8Array.of(V.Normal, V.Escape, V.EscInt, V.CsiLeader, V.CsiArgs, V.CsiInt, V.Normal, V.Str, V.Str, V.Str,
    V.Str, V.Str, V.Str, V.Normal, V.Escape),
  Uint8Array.of(T.Ground, T.Escape, T.EscInt, T.CsiEnter, T.CsiParam, T.CsiInt, T.CsiIgnore, T.DcsEnter, T.DcsParam, T.DcsInt,
    T.DcsHandler, T.DcsIgnore, T.Osc, T.Str, T.DcsEscape),
];

/** The parser's own reading of `code` in effective state `s`: next effective state, whether it prints, whether it moves. */
export function ownStep(s: number, code: number): number {
  // An ESC that arrived in a string: `\` ends the string; anything else is read after a plain ESC.
  const row = s === ESC_IN_DCS ? State.Escape : s;
  if (s === ESC_IN_DCS && code === 0x5c) return State.Ground;
  const e = TRANSITIONS[(row << 8) | code];
  const action = (e >> 4) as Action;
  let next = e & 0xf;
  // An ESC inside a DCS payload: the parser waits in Escape (tmux still holds the DCS open).
  if (action === Action.EscStart && row === State.DcsPassthrough) next = ESC_IN_DCS;
  const prints = action === Action.Print || (action === Action.Execute && (code === 0x0a || code === 0x09));
  const moves = ((action === Action.Print || action === Action.Execute) && C0_MOVES.includes(code)) || action === Action.C1Execute;
  const dispatch = action === Action.EscDispatch ? escMove(code, row === State.EscapeIntermediate)
    : action === Action.CsiDispatch && code !== SGR_FINAL ? MOVE : 0;
  return next | (prints ? PRINT : 0) | (moves ? MOVE : 0) | dispatch;
}

/**
 * agree[s << 8 | unit] is 1 when every reading, at HOME in effective state `s`, goes where the
 * parser goes (to HOME of its next state), shows the unit if the parser does, and moves only if
 * the parser moves: then nothing needs tracking. A raw C1 byte is a different unit to the readings
 * (Invalid) than to the parser; the parser checks those, and invalid UTF-8 in ground (tmux's
 * decoder), one by one.
 */
export function agreeTable(tables: readonly Uint8Array[], own: Uint8Array): Uint8Array {
  const agree = new Uint8Array(EFFECTIVE_STATES << 8);
  for (let s = 0; s < EFFECTIVE_STATES; s++) {
    for (let code = 0; code <= Unit.Bom; code++) agree[(s << 8) | code] = agrees(tables, s, own[(s << 8) | code], code) ? 1 : 0;
  }
  return agree;
}

/** {@link ownStep} for every effective state and unit: `s << 8 | unit`. */
export function ownTable(): Uint8Array {
  const own = new Uint8Array(EFFECTIVE_STATES << 8);
  for (let s = 0; s < EFFECTIVE_STATES; s++) for (let code = 0; code <= Unit.Bom; code++) own[(s << 8) | code] = ownStep(s, code);
  return own;
}

/**
 * Whether every reading (`tables`) agrees with the parser in effective state `s` on a unit the
 * parser steps on as `own` ({@link ownStep}) and the readings read as `shadowCode`.
 */
export function agrees(tables: readonly Uint8Array[], s: number, own: number, shadowCode: number): boolean {
  const next = own & NEXT;
  for (let r = 0; r < READING_COUNT; r++) {
    const e = tables[r][(HOME[r][s] << 8) | shadowCode];
    if ((e & NEXT) !== HOME[r][next === ESC_IN_DCS ? ESC_IN_DCS : next]) return false;
    if ((own & PRINT) !== 0 && (e & PRINT) === 0) return false;
    if ((e & MOVE) !== 0 && (own & MOVE) === 0) return false;
  }
  return true;
}

/**
 * States of a reading (`table`) in which every printable ASCII byte leaves the state as it is and
 * is shown by all of them or by none: stable[s] is 1 (shown) or 2 (not shown), else 0. A run of such bytes
 * is taken at once while the readings disagree.
 */
export function stableTable(table: Uint8Array): Uint8Array {
  const stable = new Uint8Array(16);
  for (let s = 0; s < 16; s++) {
    const first = table[(s << 8) | 0x20];
    let same = (first & NEXT) === s;
    for (let b = 0x21; b < 0x7f && same; b++) same = (table[(s << 8) | b] & (NEXT | PRINT)) === (first & (NEXT | PRINT));
    stable[s] = same ? ((first & PRINT) !== 0 ? 1 : 2) : 0;
  }
  return stable;
}

/** How many bytes tmux's decoder takes for a character that starts with `b` (0: not a lead byte). */
export function tmuxCharLength(b: number): number {
  return b < 0xc2 || b > 0xf4 ? 0 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
}

/**
 * stops[s << 5 | b]: a C0 byte `b` that a string payload in state `s` cannot skip: one that ends or
 * aborts the string (ESC, CAN, SUB, BEL for OSC) or that some terminal reading treats otherwise
 * (libvterm ends a DCS at BEL and executes C0 controls inside strings). `agree`: {@link agreeTable}'s.
 */
export function stringStops(agree: Uint8Array): Uint8Array {
  const stops = new Uint8Array(16 << 5);
  for (const s of [State.DcsPassthrough, State.DcsIgnore, State.OscString, State.SosPmApcString]) {
    for (let b = 0; b < 0x20; b++) {
      const action = (TRANSITIONS[(s << 8) | b] >> 4) as Action;
      if (action !== Action.Put || agree[(s << 8) | b] === 0) stops[(s << 5) | b] = 1;
    }
  }
  return stops;
}
