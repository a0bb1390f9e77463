// What may leave the renderer for the clipboard or a file: text with no ESC, no C0 but LF and TAB,
// no DEL, no C1, no invisible or reordering character. Main checks again; we check first so a
// bug shows here instead of as a refusal.

// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]|[\u{e0000}-\u{e0fff}\u{1d173}-\u{1d17a}]/u;

/** True when `text` is safe to paste anywhere. */
export function isInert(text: string): boolean {
  return !FORBIDDEN.test(text);
}

/** Throws when `text` is not inert. */
export function assertInert(text: string): string {
  if (!isInert(text)) throw new Error('refusing to copy or export text that is not inert');
  return text;
}
