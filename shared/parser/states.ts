/**
 * States of the DEC/VT500 parser (vt100.net/emu/dec_ansi_parser), extended for UTF-8 input.
 * Values are packed into 4 bits of the transition table, so there may be at most 16.
 */
export const enum State {
  Ground = 0,
  Escape = 1,
  EscapeIntermediate = 2,
  CsiEntry = 3,
  CsiParam = 4,
  CsiIntermediate = 5,
  CsiIgnore = 6,
  DcsEntry = 7,
  DcsParam = 8,
  DcsIntermediate = 9,
  DcsPassthrough = 10,
  DcsIgnore = 11,
  OscString = 12,
  SosPmApcString = 13,
}

/** Number of states; the table has one 256-entry row per state. */
export const STATE_COUNT = 14;

/** State names for error messages and tests. */
export const STATE_NAMES = [
  'ground', 'escape', 'escape_intermediate', 'csi_entry', 'csi_param', 'csi_intermediate',
  'csi_ignore', 'dcs_entry', 'dcs_param', 'dcs_intermediate', 'dcs_passthrough', 'dcs_ignore',
  'osc_string', 'sos_pm_apc_string',
] as const;

/**
 * What the parser does on a transition. Packed into the high 4 bits of a table entry.
 * "Current sequence" is the ESC/CSI/DCS/OSC/SOS/PM/APC span that is open, if any.
 */
export const enum Action {
  /** The unit belongs to the current sequence and needs no bookkeeping (DEL, ignored C0). */
  Ignore = 0,
  /** Ground: the unit is text. */
  Print = 1,
  /** A control inside or outside a sequence: its own span (LF/TAB print); the sequence goes on. */
  Execute = 2,
  /** ESC: ends an open sequence as malformed (or, in a string, may begin ST) and opens an ESC span. */
  EscStart = 3,
  /** A C1 introducer (CSI, DCS, OSC, SOS, PM, APC): ends an open sequence and opens an 8-bit one. */
  C1Start = 4,
  /** Intermediate byte or private marker. */
  Collect = 5,
  /** Parameter byte (digit, `;` or `:`). */
  Param = 6,
  /** Final byte of an ESC sequence. */
  EscDispatch = 7,
  /** Final byte of a CSI sequence (also ends an ignored CSI, which stays flagged malformed). */
  CsiDispatch = 8,
  /** ESC [, ESC ], ESC P, ESC X/^/_: the open ESC span becomes a CSI or string span. */
  Enter = 9,
  /** Final byte of a DCS header: the payload follows. */
  Hook = 10,
  /** One unit of string payload. */
  Put = 11,
  /** String terminator: BEL in OSC, or C1 ST anywhere. */
  StringEnd = 12,
  /** CAN or SUB: aborts the open sequence; the control is its own span. */
  Abort = 13,
  /** A C1 control that is not an introducer: ends an open sequence; its own span. (14 is unused.) */
  C1Execute = 15,
}

/**
 * Input units. ASCII bytes and C1 controls are their own code (C1 in either form: raw byte or
 * C2 80–C2 9F); the decoder folds every other unit into one of three synthetic codes.
 */
export const enum Unit {
  /** A well-formed UTF-8 character >= U+00A0 that is visible text. */
  Text = 0xa0,
  /** A well-formed UTF-8 invisible code point (Default_Ignorable_Code_Point, see invisible.ts). */
  Invisible = 0xa1,
  /** A maximal ill-formed UTF-8 subpart. */
  Invalid = 0xa2,
  /**
   * U+FEFF, an invisible code point the parser treats as {@link Invisible}; a unit of its own
   * because xterm.js drops it before parsing while other terminals read it as a character.
   */
  Bom = 0xa3,
}
