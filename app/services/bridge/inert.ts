/**
 * Characters that make text unsafe to put on the clipboard or into an exported file: ESC and every
 * other C0 control but TAB and LF, DEL, C1 (U+0080–U+009F), bidi controls (U+061C, U+200E/F,
 * U+202A–U+202E, U+2066–U+2069), zero-width and invisible formatting (U+200B–U+200D, U+2060–U+2064,
 * U+FEFF), variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF) and tag characters
 * (U+E0000–U+E007F), and lone surrogates. Copy and export refuse such text rather than clean it:
 * the renderer builds hex/caret/C-array text from the bytes, so anything else is a bug or an attack,
 * and pasting raw control bytes into a terminal must not be possible from this app.
 */
// The class lists variation selectors and joiners on purpose (they are what it looks for).
// eslint-disable-next-line no-misleading-character-class
const NOT_INERT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufe00-\ufe0f\ufeff\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}\ud800-\udfff]/u;

/** Index of the first character that is not inert, or -1 when the text is safe to copy/export. */
export function firstNotInert(text: string): number {
  const m = NOT_INERT.exec(text);
  return m ? m.index : -1;
}
