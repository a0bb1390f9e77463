// The text of a followed capture as display lines, growing: each piece main sends is split once
// (never the whole text again), the unfinished last line kept apart until its line feed comes. A
// line longer than MAX_LINE_CHARS is cut (the rest continues on the next row), so a command that
// never prints a newline costs as much as one that does. Past MAX_LINES the oldest lines are let
// go: the sealed record shows all of them.

/** Characters a display line holds before it is cut. */
export const MAX_LINE_CHARS = 4096;
/** Lines kept (the oldest go first). */
export const MAX_LINES = 200_000;

export interface FollowText {
  /** Complete display lines, oldest first. */
  readonly lines: string[];
  /** Lines let go from the start (line numbers go on from there). */
  dropped: number;
  /** The unfinished last line (no line feed yet). */
  tail: string;
}

export function emptyFollowText(): FollowText {
  return { lines: [], dropped: 0, tail: '' };
}

/** Appends `text` to `t` in place; returns how many lines it completed. */
export function appendFollowText(t: FollowText, text: string): number {
  const before = t.lines.length + t.dropped;
  let at = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
    addToTail(t, text, at, nl);
    t.lines.push(t.tail);
    t.tail = '';
    at = nl + 1;
  }
  addToTail(t, text, at, text.length);
  if (t.lines.length > MAX_LINES) {
    const drop = t.lines.length - MAX_LINES;
    t.lines.splice(0, drop);
    t.dropped += drop;
  }
  return t.lines.length + t.dropped - before;
}

/** Adds `text[from, to)` to the unfinished line, completing a display line each MAX_LINE_CHARS (each character copied once). */
function addToTail(t: FollowText, text: string, from: number, to: number): void {
  let at = from;
  while (t.tail.length + (to - at) > MAX_LINE_CHARS) {
    let cut = at + MAX_LINE_CHARS - t.tail.length;
    // Never between the halves of one character.
    const c = text.charCodeAt(cut);
    if (c >= 0xdc00 && c <= 0xdfff && cut > at) cut--;
    t.lines.push(t.tail + text.slice(at, cut));
    t.tail = '';
    at = cut;
  }
  t.tail += text.slice(at, to);
}
