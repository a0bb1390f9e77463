import { WITHHELD_MEANING } from './meaning';
import type { ParserSink } from './sink';
import { SpanClass, StretchFlag } from './span-class';
import { ZWJ } from './invisible';

/**
 * After a ZWJ the parser removed: tmux (screen_write_cell) draws the next non-ASCII character (or
 * line-drawing glyph) onto the cell left of the cursor instead of a cell of its own, and drops it
 * when the cursor is in column 0; printable ASCII takes tmux's fast path and leaves the joiner
 * waiting. So that character is withheld when the cursor may be in column 0: no character was
 * printed since the last line break or CR, cursor move, or (for the joiner itself) before it.
 * Events pass through otherwise; a character tmux draws without a cell (an invisible one) takes
 * the joiner's place.
 */
export class ZwjGuard implements ParserSink {
  /** The cursor may be in column 0 (nothing printed on the line since it got there). */
  column0 = true;

  constructor(private readonly release: () => void, private readonly sink: ParserSink) {}

  print(bytes: Uint8Array, start: number, end: number, offset: number): void {
    let k = start;
    for (; k < end; k++) {
      const b = bytes[k];
      if (b >= 0x80) break;
      this.column0 = b === 0x0a;
    }
    if (k === end) {
      this.sink.print(bytes, start, end, offset);
      return;
    }
    this.release();
    if (!this.column0) {
      this.sink.print(bytes, start, end, offset);
      return;
    }
    const at = offset + (k - start);
    if (k > start) this.sink.print(bytes, start, k, offset);
    const b = bytes[k];
    const len = b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
    this.withhold(at, len);
    if (k + len < end) this.sink.print(bytes, k + len, end, at + len);
  }

  /** A drawn glyph (line drawing) takes tmux's cell path as well. */
  drawn(cp: number, offset: number, length: number): void {
    this.release();
    if (this.column0) this.withhold(offset, length);
    else this.sink.drawn(cp, offset, length);
  }

  span(cls: SpanClass, offset: number, length: number, meaning: string, flags: number, code: number, param?: number): void {
    if (cls === SpanClass.Invisible) {
      if (code !== ZWJ) this.release();
    } else if (cls === SpanClass.C0 ? code === 0x0d || code === 0x0b || code === 0x0c || code === 0x08 : cls === SpanClass.Csi ? code !== 0x6d : cls === SpanClass.Esc || cls === SpanClass.C1) {
      // A CR, VT, FF, BS, cursor move, restore or reset: the cursor may be anywhere now.
      this.column0 = true;
    }
    this.sink.span(cls, offset, length, meaning, flags, code, param);
  }

  ambiguous(offset: number, length: number, flags: number): void {
    this.sink.ambiguous?.(offset, length, flags);
  }

  private withhold(at: number, len: number): void {
    this.sink.span(SpanClass.Withheld, at, len, WITHHELD_MEANING, 0, 0);
    this.sink.ambiguous?.(at, len, StretchFlag.WithheldText);
  }
}
