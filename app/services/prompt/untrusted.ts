// The requester's words as the prompt shows them: quoted data, never instructions. A renderer (or
// an agent, for a queued extract) writes the reason; the human reads it in a box of its own. Here
// it is made plainly visible — every control, bidi, invisible or line-breaking code point becomes a
// visible escape, so nothing hides, reorders or moves text — and bounded, with the cut said.
import { isInvisible } from '../../../shared/parser/invisible';

/** Characters of a requester's reason the prompt shows (the audit log keeps what auditText keeps). */
export const MAX_SHOWN_REASON = 300;

export interface UntrustedText {
  /** Escaped and cut to `MAX_SHOWN_REASON` characters. */
  readonly text: string;
  /** Characters given (before escaping and cutting). */
  readonly chars: number;
  readonly truncated: boolean;
}

/** Whether a code point must show as an escape: C0, DEL, C1, line/paragraph separators, invisible (bidi, tags, zero-width, selectors), surrogates, non-characters. */
function mustEscape(cp: number): boolean {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp === 0x2028 || cp === 0x2029 || isInvisible(cp) || (cp >= 0xd800 && cp <= 0xdfff)
    || (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
}

/** `s` with every character {@link mustEscape} names as `\xNN` or `\u{N}`, cut to `max` characters. */
export function untrustedText(s: string, max = MAX_SHOWN_REASON): UntrustedText {
  let text = '';
  let shown = 0;
  let chars = 0;
  let truncated = false;
  for (const ch of s) {
    chars++;
    if (truncated) continue;
    if (shown >= max) {
      truncated = true;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    text += mustEscape(cp) ? (cp < 0x100 ? `\\x${cp.toString(16).padStart(2, '0')}` : `\\u{${cp.toString(16)}}`) : ch;
    shown++;
  }
  return { text, chars, truncated };
}
