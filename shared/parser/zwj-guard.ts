import { WITHHELD_MEANING } from './meaning';
import type { ParserSink } from './sink';
import { SpanClass, StretchFlag } from './span-class';
import { ZWJ } from './invisible';

/**
 * After a ZWJ the parser removed: tmux (screen_write_cell) draws the next non-ASCII character onto
 * the cell left of the cursor instead of a cell of its own, and not at all when the cursor is in
 * column 0; printable ASCII takes tmux's fast path and leaves the joiner waiting. So that
 * character is withheld, unless it comes right after the joiner, which came right after a
 * character on the line (then tmux shows it joined to that character, as the text has it).
 * Events pass through otherwise; a non-ASCII character tmux draws without a cell (an invisible
 * one) takes the joiner's place.
 */
export class ZwjGuard implements ParserSink {
  /** Where the next character would still be shown (right after the joiner), or -1. */
  safeAt = -1;

  constructor(private readonly release: () => void, private readonly sink: ParserSink) {}

  print(bytes: Uint8Array, start: number, end: number, offset: number): void {
    let k = start;
    while (k < end && bytes[k] < 0x80) k++;
    if (k === end) {
      this.sink.print(bytes, start, end, offset);
      return;
    }
    this.release();
    const at = offset + (k - start);
    if (at === this.safeAt) {
      this.sink.print(bytes, start, end, offset);
      return;
    }
    if (k > start) this.sink.print(bytes, start, k, offset);
    const b = bytes[k];
    const len = b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
    this.sink.span(SpanClass.Withheld, at, len, WITHHELD_MEANING, 0, 0);
    this.sink.ambiguous?.(at, len, StretchFlag.WithheldText);
    if (k + len < end) this.sink.print(bytes, k + len, end, at + len);
  }

  span(cls: SpanClass, offset: number, length: number, meaning: string, flags: number, code: number, param?: number): void {
    if (cls === SpanClass.Invisible) {
      if (code === ZWJ) this.safeAt = -1;
      else this.release();
    }
    this.sink.span(cls, offset, length, meaning, flags, code, param);
  }

  ambiguous(offset: number, length: number, flags: number): void {
    this.sink.ambiguous?.(offset, length, flags);
  }
}
