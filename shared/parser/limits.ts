/**
 * Named limits of the parser. Past a limit the parser keeps consuming (and discarding) up to the
 * sequence's terminator or EOF, flags the span {@link SpanFlag.Oversized}, and never turns the
 * discarded bytes back into text. Raising a limit never changes what is kept as text; it only
 * changes what is classified and flagged.
 */
export interface ParserLimits {
  /** Parameter and intermediate bytes one CSI or DCS header may hold before it is oversized. */
  readonly maxCsiParamBytes: number;
  /** Payload bytes one OSC, DCS, APC, PM or SOS string may hold before it is oversized. */
  readonly maxStringBytes: number;
  /** Intermediate bytes one ESC sequence may hold before it is oversized. */
  readonly maxEscIntermediates: number;
}

/** CSI/DCS header bytes: xterm accepts 32 parameters; 256 bytes covers them with room to spare. */
export const MAX_CSI_PARAM_BYTES = 256;
/** String payload bytes: generous for titles and OSC 8 URIs, far below a clipboard bomb. */
export const MAX_STRING_BYTES = 64 * 1024;
/** ESC intermediates: real sequences use at most two (e.g. ESC ( B, ESC % G). */
export const MAX_ESC_INTERMEDIATES = 8;

/** The limits used when a caller does not choose its own. */
export const DEFAULT_LIMITS: ParserLimits = Object.freeze({
  maxCsiParamBytes: MAX_CSI_PARAM_BYTES,
  maxStringBytes: MAX_STRING_BYTES,
  maxEscIntermediates: MAX_ESC_INTERMEDIATES,
});

/**
 * Completes `partial` with {@link DEFAULT_LIMITS}: a field that is absent or `undefined` keeps its
 * default. A given value that is not a whole number >= 0 is a mistake worth stopping for.
 *
 * @throws RangeError naming the limit and the value.
 */
export function resolveLimits(partial: Partial<ParserLimits> = {}): ParserLimits {
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof ParserLimits)[]) {
    const value = partial[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`parser limit ${key} must be a whole number >= 0, got ${String(value)}`);
    }
    limits[key] = value;
  }
  return Object.freeze(limits);
}
