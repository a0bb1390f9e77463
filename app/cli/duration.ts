const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Parses a retention duration like `45s`, `30m`, `12h` or `7d` into milliseconds.
 * Deliberately strict (one non-negative integer, one unit, nothing else): a typo in a retention
 * flag must fail loudly rather than prune on a guessed meaning. Throws RangeError otherwise.
 */
export function parseDuration(text: string): number {
  const match = /^(\d{1,15})([smhd])$/.exec(text);
  if (!match) {
    throw new RangeError(`invalid duration '${text.slice(0, 40)}': expected a whole number followed by s, m, h or d (e.g. 7d, 12h, 30m, 45s)`);
  }
  const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
  if (!Number.isSafeInteger(ms)) throw new RangeError(`duration '${text}' is too large`);
  return ms;
}
