// What may leave the renderer for the clipboard or a file: text the sanitizer would keep unchanged
// (shared/sanitize/inert.ts). Main checks again with the same function; we check first so a bug
// shows here instead of as a refusal.
import { isInert } from '../../../shared/sanitize/inert';

export { isInert };

/** Throws when `text` is not inert. */
export function assertInert(text: string): string {
  if (!isInert(text)) throw new Error('refusing to copy or export text that is not inert');
  return text;
}
