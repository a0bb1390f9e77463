import { encodeUtf8 } from './utf8';

/**
 * A redaction is visible in the text as `⟦redacted:RULE⟧`. The opening bracket U+27E6 cannot come
 * from the command: the stage replaces it, and its look-alike U+301A, with U+FFFD wherever command
 * output holds them (same length in UTF-8, so no offset moves; counted as `lookalikes`). So every
 * U+27E6 in redacted text opens a marker Airlock wrote, and the envelope lists each marker's
 * position, rule and the sanitized-text range it stands for, outside the text.
 */
export const MARKER_OPEN = '\u27e6';
export const MARKER_CLOSE = '\u27e7';
export const MARKER_FORMAT = `${MARKER_OPEN}redacted:RULE${MARKER_CLOSE}`;

/** The marker text for a rule. */
export function markerText(rule: string): string {
  return `${MARKER_OPEN}redacted:${rule}${MARKER_CLOSE}`;
}

const cache = new Map<string, Uint8Array>();

/** The marker's UTF-8 bytes (cached per rule: rule ids come from a fixed table). */
export function markerBytes(rule: string): Uint8Array {
  let b = cache.get(rule);
  if (b === undefined) {
    b = encodeUtf8(markerText(rule));
    cache.set(rule, b);
  }
  return b;
}

/** What a look-alike of the opening bracket becomes: U+FFFD, three bytes like both look-alikes. */
export const LOOKALIKE_REPLACEMENT = Uint8Array.of(0xef, 0xbf, 0xbd);

/** One redaction as the envelope and the record list it. All offsets and lengths are UTF-8 bytes. */
export interface Redaction {
  readonly rule: string;
  /** Where the value was in the stream's sanitized text (the offset map relates this to raw bytes). */
  readonly offset: number;
  /** Its length there. */
  readonly length: number;
  /** Where the marker is in the delivered text (the envelope's stream text, or the record's). */
  readonly at: number;
}

/**
 * Checks that the markers in `text` are exactly the listed ones: every listed redaction has its
 * marker at `at` (UTF-8 byte offset), and no U+27E6 appears anywhere else. Returns the problems
 * found (empty when the text and the list agree). For consumers and tests; when the list was cut
 * (`listed_all` false), unlisted markers after the last listed one are expected.
 */
export function checkMarkers(text: string, redactions: readonly Redaction[]): string[] {
  const bytes = encodeUtf8(text);
  const problems: string[] = [];
  const listed = new Set<number>();
  for (const r of redactions) {
    const m = markerBytes(r.rule);
    const ok = r.at + m.length <= bytes.length && m.every((b, i) => bytes[r.at + i] === b);
    if (!ok) problems.push(`no ${r.rule} marker at byte ${r.at}`);
    listed.add(r.at);
  }
  const open = encodeUtf8(MARKER_OPEN);
  for (let i = bytes.indexOf(open[0]); i >= 0; i = bytes.indexOf(open[0], i + 1)) {
    if (bytes[i + 1] === open[1] && bytes[i + 2] === open[2] && !listed.has(i)) problems.push(`unlisted marker opening at byte ${i}`);
  }
  return problems;
}
