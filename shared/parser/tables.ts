// The lookup tables the parser checks the terminal readings with (readings.ts defines them), built
// at the first unit that needs one, once per process: text without controls (a plain log) never
// does, and building them costs a process about as much as sanitizing a few MiB of such text.
import {
  agrees, agreeTable, EFFECTIVE_STATES, ownTable, READING_COUNT, readingTables, stableTable, stringStops,
} from './readings';
import { Unit } from './states';

export { ESC_IN_DCS, HOME, MOVE, NEXT, PRINT, Reading, READING_COUNT, TMUX_GROUND, tmuxCharLength } from './readings';
export { TRANSITIONS } from './transition-table';

/** The tables, each indexed by an effective state (readings.ts) and a unit. */
export interface ReadingLookups {
  /** Each reading's table, by {@link Reading}: `state << 8 | unit` (readings.ts readingTables). */
  readonly readings: readonly Uint8Array[];
  /** `s << 8 | unit`: every reading agrees with the parser (readings.ts agreeTable). */
  readonly agree: Uint8Array;
  /** `s << 5 | byte - 0x80`: every reading agrees on a raw 0x80–0x9F byte (C1 to the parser, invalid UTF-8 to them). */
  readonly agreeStray: Uint8Array;
  /** `s << 8 | unit`: the parser's own step (readings.ts ownStep). */
  readonly own: Uint8Array;
  /** Per reading, by state: printable ASCII keeps it there (readings.ts stableTable). */
  readonly stable: readonly Uint8Array[];
  /** `s << 5 | byte`: a C0 byte a string payload cannot skip (readings.ts stringStops). */
  readonly stringStops: Uint8Array;
}

let built: ReadingLookups | null = null;

/** The tables (built on the first call). */
export function lookups(): ReadingLookups {
  return built ?? (built = build());
}

function build(): ReadingLookups {
  const readings = readingTables();
  const own = ownTable();
  const agree = agreeTable(readings, own);
  const agreeStray = new Uint8Array(EFFECTIVE_STATES << 5);
  for (let s = 0; s < EFFECTIVE_STATES; s++) for (let c = 0; c < 32; c++) agreeStray[(s << 5) | c] = agrees(readings, s, own[(s << 8) | (0x80 + c)], Unit.Invalid) ? 1 : 0;
  const stable: Uint8Array[] = [];
  for (let r = 0; r < READING_COUNT; r++) stable.push(stableTable(readings[r]));
  return { readings, agree, agreeStray, own, stable, stringStops: stringStops(agree) };
}
