// Copy and export refuse text that is not inert rather than clean it: the renderer builds hex,
// caret and C-array text from the bytes and copies sanitized text, so anything else is a bug or an
// attack, and pasting raw control bytes into a terminal must not be possible from this app. The
// one definition of "inert" is shared/sanitize/inert.ts (the renderer checks with it first).
export { firstNotInert } from '../../../shared/sanitize/inert';
