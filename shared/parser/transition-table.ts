import { Action, State, STATE_COUNT, Unit } from './states';

/**
 * The DEC/VT500 state diagram as a packed table: entry `state << 8 | unit` holds
 * `action << 4 | nextState`. Built once at module load, read-only afterwards.
 *
 * Departures from the diagram, each deliberate:
 * - Units come from a UTF-8 decoder: 0x80–0x9F are C1 controls only outside well-formed UTF-8
 *   (or as C2 80–C2 9F); other non-ASCII units are {@link Unit.Text}, {@link Unit.Invisible},
 *   {@link Unit.Bom} (read as invisible) or {@link Unit.Invalid}.
 * - LF and TAB are text in ground (the sanitized output keeps them); DEL in ground is a control span.
 * - `:` is a parameter byte (sub-parameters, e.g. SGR 38:2:r:g:b), not a reason to ignore.
 * - Non-ASCII inside an ESC, CSI or DCS header is ignored there (the sequence goes on, flagged
 *   malformed), as tmux and libvterm (after ESC) do: deny by default, it never becomes text. Where
 *   a terminal reads it otherwise (xterm.js ends the sequence), readings.ts has that terminal's
 *   table and the parser withholds what the readings disagree about.
 *
 * This parser reads a raw 0x80–0x9F byte outside a character as the C1 control it is to an 8-bit
 * terminal; the terminal readings it tracks beside it (readings.ts) read such a byte otherwise.
 */
function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let c = from; c <= to; c++) out.push(c);
  return out;
}

const C0_EXECUTE = [...range(0x00, 0x17), 0x19, ...range(0x1c, 0x1f)];
const C1_EXECUTE = [...range(0x80, 0x8f), ...range(0x91, 0x97), 0x99, 0x9a];
const NON_ASCII = [Unit.Text, Unit.Invisible, Unit.Invalid, Unit.Bom];
const STRING_STATES = [State.DcsPassthrough, State.DcsIgnore, State.OscString, State.SosPmApcString];

function buildTable(): Uint8Array {
  const table = new Uint8Array(STATE_COUNT << 8);
  const add: Add = (units, state, action, next) => {
    for (const u of units) table[(state << 8) | u] = (action << 4) | next;
  };
  const all = range(0, STATE_COUNT - 1) as State[];

  // Default: a unit nobody claims is ignored without leaving the state. (A native fill: a loop
  // here would run long enough at startup to be queued for optimization ahead of the parser.)
  for (const s of all) table.fill((Action.Ignore << 4) | s, s << 8, (s + 1) << 8);

  // "Anywhere" transitions.
  for (const s of all) {
    add([0x18, 0x1a], s, Action.Abort, State.Ground);
    add([0x1b], s, Action.EscStart, State.Escape);
    add(C1_EXECUTE, s, Action.C1Execute, State.Ground);
    add([0x9c], s, Action.StringEnd, State.Ground);
    add([0x90], s, Action.C1Start, State.DcsEntry);
    add([0x9b], s, Action.C1Start, State.CsiEntry);
    add([0x9d], s, Action.C1Start, State.OscString);
    add([0x98, 0x9e, 0x9f], s, Action.C1Start, State.SosPmApcString);
  }

  // Ground.
  add(C0_EXECUTE, State.Ground, Action.Execute, State.Ground);
  add([0x09, 0x0a], State.Ground, Action.Print, State.Ground);
  add(range(0x20, 0x7e), State.Ground, Action.Print, State.Ground);
  add([0x7f], State.Ground, Action.Execute, State.Ground);
  add([Unit.Text], State.Ground, Action.Print, State.Ground);
  add([Unit.Invisible, Unit.Bom, Unit.Invalid], State.Ground, Action.Execute, State.Ground);

  // C0 controls execute inside ESC and CSI sequences (as on a VT500), and DEL is ignored there.
  for (const s of [State.Escape, State.EscapeIntermediate, State.CsiEntry, State.CsiParam,
    State.CsiIntermediate, State.CsiIgnore]) {
    add(C0_EXECUTE, s, Action.Execute, s);
    add([0x09, 0x0a], s, Action.Execute, s);
    add([0x7f], s, Action.Ignore, s);
    add(NON_ASCII, s, Action.Ignore, s);
  }

  // Escape.
  add(range(0x20, 0x2f), State.Escape, Action.Collect, State.EscapeIntermediate);
  add([...range(0x30, 0x4f), ...range(0x51, 0x57), 0x59, 0x5a, 0x5c, ...range(0x60, 0x7e)],
    State.Escape, Action.EscDispatch, State.Ground);
  add([0x5b], State.Escape, Action.Enter, State.CsiEntry);
  add([0x5d], State.Escape, Action.Enter, State.OscString);
  add([0x50], State.Escape, Action.Enter, State.DcsEntry);
  add([0x58, 0x5e, 0x5f], State.Escape, Action.Enter, State.SosPmApcString);

  // Escape intermediate.
  add(range(0x20, 0x2f), State.EscapeIntermediate, Action.Collect, State.EscapeIntermediate);
  add(range(0x30, 0x7e), State.EscapeIntermediate, Action.EscDispatch, State.Ground);

  // CSI and DCS headers share one grammar: parameters, private marker, intermediates, final.
  addHeader(add, [State.CsiEntry, State.CsiParam, State.CsiIntermediate, State.CsiIgnore], Action.CsiDispatch, State.Ground);
  add(range(0x20, 0x3f), State.CsiIgnore, Action.Ignore, State.CsiIgnore);
  add(range(0x40, 0x7e), State.CsiIgnore, Action.CsiDispatch, State.Ground);

  // DCS header: C0, DEL and non-ASCII are ignored (the default); anything else unexpected sends
  // the string to dcs_ignore.
  addHeader(add, [State.DcsEntry, State.DcsParam, State.DcsIntermediate, State.DcsIgnore], Action.Hook, State.DcsPassthrough);

  // String payloads: everything but the terminators and "anywhere" units is payload.
  for (const s of STRING_STATES) {
    add([...C0_EXECUTE, ...range(0x20, 0x7f), ...NON_ASCII], s, Action.Put, s);
  }
  add([0x07], State.OscString, Action.StringEnd, State.Ground);

  return table;
}

type Add = (units: readonly number[], state: State, action: Action, next: State) => void;

/**
 * Transitions of a CSI or DCS header (entry, param, intermediate, ignore), which the diagram draws
 * alike; only what the final byte does differs.
 */
function addHeader(add: Add, [entry, param, intermediate, ignore]: readonly State[], onFinal: Action, afterFinal: State): void {
  const params = [...range(0x30, 0x39), 0x3a, 0x3b];
  add(range(0x20, 0x2f), entry, Action.Collect, intermediate);
  add(params, entry, Action.Param, param);
  add(range(0x3c, 0x3f), entry, Action.Collect, param);
  add(range(0x40, 0x7e), entry, onFinal, afterFinal);

  add(params, param, Action.Param, param);
  add(range(0x3c, 0x3f), param, Action.Ignore, ignore);
  add(range(0x20, 0x2f), param, Action.Collect, intermediate);
  add(range(0x40, 0x7e), param, onFinal, afterFinal);

  add(range(0x20, 0x2f), intermediate, Action.Collect, intermediate);
  add(range(0x30, 0x3f), intermediate, Action.Ignore, ignore);
  add(range(0x40, 0x7e), intermediate, onFinal, afterFinal);
}

/** The packed table; see the module comment for how it departs from the VT500 diagram. */
export const TRANSITIONS: Uint8Array = buildTable();
