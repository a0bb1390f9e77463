import { isJoiningLetter, isPictographic, ZWJ } from './invisible';
import { invisibleMeaning } from './meaning';
import type { Printer } from './printer';
import type { ParserSink } from './sink';
import { SpanClass } from './span-class';
import { firstCharOf } from './utf8';

/**
 * Holds a ZWJ or ZWNJ that followed a character which may take it until the next event shows
 * whether a character that may follow it comes right after (emoji ZWJ sequences, joiners between
 * letters of Arabic, Indic and other joining scripts); otherwise it is removed as invisible.
 */
export class JoinerGate implements ParserSink {
  readonly bytes = new Uint8Array(3);
  offset = 0;
  /** Where the next character must start: after this joiner and any joiners removed right after it. */
  until = 0;
  cp = 0;
  /** The joiner sits in an emoji sequence (else between letters of a joining script). */
  emoji = false;

  constructor(private readonly printer: Printer, private readonly sink: ParserSink) {}

  print(bytes: Uint8Array, start: number, end: number, offset: number): void {
    const next = offset === this.until ? firstCharOf(bytes, start) : -1;
    this.release(next >= 0 && (this.emoji ? isPictographic(next) : isJoiningLetter(next)));
    this.printer.out.print(bytes, start, end, offset);
  }

  span(cls: SpanClass, offset: number, length: number, meaning: string, flags: number, code: number, param?: number): void {
    this.release(false);
    this.printer.out.span(cls, offset, length, meaning, flags, code, param);
  }

  drawn(cp: number, offset: number, length: number): void {
    this.release(false);
    this.printer.out.drawn(cp, offset, length);
  }

  ambiguous(offset: number, length: number, flags: number): void {
    this.release(false);
    this.printer.out.ambiguous?.(offset, length, flags);
  }

  /**
   * Emits the held joiner as text (`keep`) or as an invisible span, and steps out of the way (a
   * removed ZWJ leaves the ZwjGuard in its place).
   */
  release(keep: boolean): void {
    this.printer.ungate();
    if (keep) {
      this.sink.print(this.bytes, 0, 3, this.offset);
    } else {
      this.sink.span(SpanClass.Invisible, this.offset, 3, invisibleMeaning(this.cp), 0, this.cp);
      if (this.cp === ZWJ) this.printer.zwjRemoved(false);
    }
  }
}
