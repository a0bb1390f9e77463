/**
 * Characters that must never reach a terminal (or an operator's eyes) raw:
 * C0 except TAB and LF, DEL, C1 (U+0080–U+009F), the line and paragraph separators U+2028/U+2029,
 * bidi embeddings/overrides (U+202A–U+202E), bidi isolates (U+2066–U+2069) and Unicode tag
 * characters (U+E0000–U+E007F). With VT, FF, CR, FS/GS/RS (C0) and NEL (C1) that covers every
 * line break a line-splitting tool honours besides LF (Python's str.splitlines, JavaScript's line
 * terminators, Unicode line breaking): a row of escaped text stays one row, behind its gutter.
 */
const UNSAFE_RE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069\u{e0000}-\u{e007f}]/gu;

/**
 * Makes text safe to write to a terminal: every unsafe character becomes a visible escape,
 * `\xNN` below U+0100 and `\u{NNNN}` above. TAB and LF pass through so multi-line text keeps its
 * shape. Backslashes are not escaped, so the result is for display, not for round-tripping.
 */
export function terminalSafe(s: string): string {
  return s.replace(UNSAFE_RE, escapeChar);
}

/**
 * Like {@link terminalSafe} for one-line fields (ids, commands, names): TAB and LF are escaped
 * too, so a field cannot fake extra lines or columns.
 */
export function terminalSafeLine(s: string): string {
  return terminalSafe(s).replace(/[\t\n]/g, escapeChar);
}

/**
 * JSON.stringify whose output is also terminal-safe and still valid JSON: JSON.stringify escapes
 * C0 but leaves DEL, C1, bidi and tag characters raw, so those become `\uXXXX` escapes (astral tag
 * characters as their escaped surrogate pair).
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return terminalSafeJsonText(JSON.stringify(value, null, indent));
}

/** JSON text (as JSON.stringify writes it) with the characters it leaves raw escaped; see terminalSafeJson. */
export function terminalSafeJsonText(json: string): string {
  return json.replace(UNSAFE_RE, (c) => Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''));
}

function escapeChar(c: string): string {
  const cp = c.codePointAt(0)!;
  return cp < 0x100 ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u{${cp.toString(16)}}`;
}
