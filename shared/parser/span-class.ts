/**
 * What kind of non-text span the parser found. Values index {@link SPAN_CLASS_NAMES}; they are
 * stable because reports and the viewer's packed span arrays store them as numbers.
 */
export const enum SpanClass {
  /** A C0 control byte other than LF and TAB (which are kept as text), or DEL. */
  C0 = 0,
  /** A C1 control: a raw 0x80–0x9F byte outside UTF-8, or U+0080–U+009F encoded as C2 80–C2 9F. */
  C1 = 1,
  /** An ESC sequence: ESC, intermediates 0x20–0x2F, final 0x30–0x7E (also a lone or interrupted ESC). */
  Esc = 2,
  /** A control sequence: CSI (ESC [ or 0x9B), parameters, intermediates, final. */
  Csi = 3,
  /** Operating system command string (ESC ] or 0x9D … BEL or ST). */
  Osc = 4,
  /** Device control string (ESC P or 0x90 … ST). */
  Dcs = 5,
  /** Application program command string (ESC _ or 0x9F … ST). */
  Apc = 6,
  /** Privacy message string (ESC ^ or 0x9E … ST). */
  Pm = 7,
  /** Start-of-string string (ESC X or 0x98 … ST). */
  Sos = 8,
  /** Bytes that are not well-formed UTF-8 (one span per maximal ill-formed subpart). */
  InvalidUtf8 = 9,
  /**
   * Well-formed but invisible code points: every Default_Ignorable_Code_Point (tags, bidi marks
   * and controls, zero-width characters, variation selectors, fillers) outside the documented
   * exceptions that real text needs.
   */
  Invisible = 10,
  /**
   * Text that only one of the two readings (UTF-8 terminal, 8-bit terminal) shows as text, while
   * the other treats it as control or payload: withheld from the sanitized text.
   */
  Withheld = 11,
}

/** Lower-case names of {@link SpanClass} values, as used in reports and the CLI. */
export const SPAN_CLASS_NAMES = [
  'c0', 'c1', 'esc', 'csi', 'osc', 'dcs', 'apc', 'pm', 'sos', 'invalid_utf8', 'invisible', 'withheld',
] as const;

/** A {@link SpanClass} name as it appears in JSON. */
export type SpanClassName = (typeof SPAN_CLASS_NAMES)[number];

/** Number of span classes; sizes per-class counter arrays. */
export const SPAN_CLASS_COUNT = SPAN_CLASS_NAMES.length;

/** Bit flags describing how a span ended. */
export const enum SpanFlag {
  None = 0,
  /** The input ended (EOF) before the sequence or string was terminated. */
  Unterminated = 1,
  /** A parameter run or string payload went past its limit; the rest was discarded. */
  Oversized = 2,
  /** The sequence was aborted (CAN/SUB), interrupted (ESC, C1) or held bytes its grammar forbids. */
  Malformed = 4,
  /** Introduced by a C1 control (8-bit form) instead of ESC. */
  EightBit = 8,
  /** The C1 control came as its UTF-8 encoding (C2 80–C2 9F) rather than a raw byte. */
  Utf8Encoded = 16,
  /**
   * A raw 0x80–0x9F byte outside a well-formed UTF-8 character opened or ended this span, or is
   * this span: invalid UTF-8 to a UTF-8 terminal, a C1 control only to an 8-bit terminal.
   */
  Stray = 32,
}

/** Bit flags of an ambiguous stretch (see {@link ParserSink.ambiguous}). */
export const enum StretchFlag {
  None = 0,
  /** Text one reading shows was withheld inside the stretch. */
  WithheldText = 1,
  /** The UTF-8 reading fed a line, or executed CR, BS, VT, FF or a sequence there: its cursor may have moved. */
  TouchedLine = 2,
  /** The readings still disagreed at end of input: everything from the stretch's start was withheld. */
  ToEnd = 4,
  /** The UTF-8 reading showed text there that the 8-bit reading treats as control or payload. */
  ShownText = 8,
}
