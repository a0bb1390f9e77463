import { Charsets } from './charsets';
import {
  isIdeograph, isIdeographicSelector, isJoiningLetter, isPictographic, takesPresentationSelector, VS15, VS16, ZWJ, ZWNJ,
} from './invisible';
import { JoinerGate } from './joiner-gate';
import { CHARSET_MEANING, invisibleMeaning } from './meaning';
import type { ParserSink } from './sink';
import { SpanClass, StretchFlag } from './span-class';
import { lastCodePoint } from './utf8';
import { ZwjGuard } from './zwj-guard';

/** Copies of a character one REP makes at most: a classic terminal line (see {@link Printer.repeat}). */
const MAX_REPEAT = 80;

/**
 * Where the parser's events go, and the rules text follows on its way to the sink: invisible code
 * points kept only where real text needs them (a joiner held by the {@link JoinerGate} until the
 * next character, the {@link ZwjGuard} after a removed ZWJ), REP's copies, and characters drawn
 * by a character set (charsets.ts). Remembers the last character printed, which a selector,
 * joiner or REP right after it looks at.
 */
export class Printer {
  /** Where events go now: the sink, the joiner gate while a joiner waits, or the ZWJ guard. */
  out: ParserSink;
  private gate: JoinerGate | null = null;
  private guard: ZwjGuard | null = null;
  /** Stream offset just past the last character printed (-1: none), and its code point. */
  prevEnd = -1;
  prevCp = 0;
  /** Character sets, made at the first designation or shift; `drawing` while one redraws ASCII. */
  charsets: Charsets | null = null;
  drawing = false;

  constructor(readonly sink: ParserSink) {
    this.out = sink;
  }

  /** Text `buf[at..end)` at stream offset `off` whose last character is `cp`. */
  print(buf: Uint8Array, at: number, end: number, off: number, cp: number): void {
    this.out.print(buf, at, end, off);
    this.prevEnd = off + (end - at);
    this.prevCp = cp;
  }

  /**
   * Whether a fresh parser would print what follows stream offset `end` alike: no joiner held, no
   * guard after a ZWJ, no character set in use, and no character right before `end` that a
   * following selector or joiner could attach to.
   */
  atRest(end: number): boolean {
    if (this.out !== this.sink || (this.charsets !== null && !this.charsets.pristine)) return false;
    if (this.prevEnd !== end) return true;
    const p = this.prevCp;
    return !(p === VS16 || takesPresentationSelector(p) || isIdeograph(p) || isPictographic(p) || isJoiningLetter(p));
  }

  /** The input ended: a held joiner is removed. */
  end(): void {
    if (this.out === this.gate) this.gate.release(false);
    this.out = this.sink;
  }

  /**
   * An invisible code point `cp` in ground. Kept as text only where real text needs it (see the
   * README's "Invisible code points"): one VS15/VS16 right after a character that takes it, one
   * ideographic variation selector right after a CJK ideograph, and a ZWJ/ZWNJ right after an
   * emoji or a letter of a joining script, held until the next character shows whether it may
   * follow. `prev` is the code point printed right before (-1 if none); `holding`: the unit is
   * withheld (not every terminal reading shows it), so it is removed.
   */
  invisible(buf: Uint8Array, at: number, len: number, off: number, cp: number, prev: number, holding: boolean): void {
    if (prev >= 0 && !holding) {
      let keep = false;
      if (cp === VS16 || cp === VS15) keep = takesPresentationSelector(prev);
      else if (isIdeographicSelector(cp)) keep = isIdeograph(prev);
      else if (cp === ZWJ || cp === ZWNJ) {
        const gate = this.gate;
        if (gate !== null && this.out === gate && gate.until === off) {
          // A run of joiners keeps at most the first: the rest go, and the first still waits.
          this.sink.span(SpanClass.Invisible, off, len, invisibleMeaning(cp), 0, cp);
          gate.until = off + len;
          this.prevEnd = off + len;
          return;
        }
        const emoji = cp === ZWJ && (isPictographic(prev) || prev === VS16);
        if (emoji || isJoiningLetter(prev)) {
          const gate = (this.gate ??= new JoinerGate(this, this.sink));
          gate.bytes.set(buf.subarray(at, at + 3));
          gate.offset = off;
          gate.until = off + len;
          gate.cp = cp;
          gate.emoji = emoji;
          this.out = gate;
          this.prevEnd = off + len;
          this.prevCp = cp;
          return;
        }
      }
      if (keep) {
        this.print(buf, at, at + len, off, cp);
        return;
      }
    }
    this.out.span(SpanClass.Invisible, off, len, invisibleMeaning(cp), 0, cp);
    if (cp === ZWJ) this.zwjRemoved(prev < 0 || prev === 0x0a);
  }

  /** The joiner gate or ZWJ guard is done: events go straight to the sink again. */
  ungate(): void {
    this.out = this.sink;
  }

  /**
   * A ZWJ was removed in ground: tmux draws the next non-ASCII character elsewhere, and nowhere in
   * column 0 (see {@link ZwjGuard}); `column0`: the cursor may be there (no character was printed
   * right before the joiner on its line).
   */
  zwjRemoved(column0: boolean): void {
    const guard = (this.guard ??= new ZwjGuard(() => this.ungate(), this.sink));
    guard.column0 = column0;
    this.out = guard;
  }

  /**
   * REP (CSI n b) at `off`, `len` bytes, `count` its parameter: xterm.js, tmux and libvterm repeat
   * a printable ASCII character printed right before it alike, up to {@link MAX_REPEAT} times
   * (past the line's end tmux and libvterm stop, xterm.js wraps): the copies are text, drawn for
   * the REP. Anything else they repeat differently (tmux no non-ASCII, libvterm also after other
   * controls, by columns), and while the readings disagree (`diverged`) they may repeat different
   * characters: a stretch that shows text, so words around it stay apart.
   */
  repeat(off: number, len: number, count: number, diverged: boolean): void {
    const cp = this.prevCp;
    if (this.prevEnd === off && cp >= 0x20 && cp < 0x7f && !this.drawing && !diverged) {
      const n = count <= 0 ? 1 : count;
      for (let k = Math.min(n, MAX_REPEAT); k > 0; k--) this.out.drawn(cp, off, len);
      if (n <= MAX_REPEAT) return;
    }
    this.out.ambiguous?.(off, len, StretchFlag.ShownText);
  }

  /**
   * A unit the parser prints while a character set is in use: the glyph every reading draws
   * (charsets.ts), the unit itself where that is what they draw, or withheld where they disagree.
   */
  draw(code: number, buf: Uint8Array, at: number, len: number, off: number): void {
    const charsets = this.charsets as Charsets;
    const glyph = code < 0x80 ? charsets.glyph(code) : charsets.other() ? code : -1;
    this.drawing = charsets.active;
    if (glyph === code) {
      this.out.print(buf, at, at + len, off);
      this.prevCp = code < 0x80 ? code : lastCodePoint;
    } else if (glyph < 0) {
      this.out.span(SpanClass.Withheld, off, len, CHARSET_MEANING, 0, 0);
      this.out.ambiguous?.(off, len, StretchFlag.WithheldText);
      this.prevCp = 0;
    } else {
      this.out.drawn(glyph, off, len);
      this.prevCp = glyph;
    }
    this.prevEnd = off + len;
  }

  /**
   * A well-formed ESC sequence with `headerBytes` intermediates (the first `inter`) and `final`:
   * it may designate or shift a character set, reset or save/restore them.
   */
  escape(headerBytes: number, inter: number, final: number): void {
    if (headerBytes === 1 && inter >= 0x25 && inter <= 0x2f) {
      (this.charsets ??= new Charsets()).escape(inter, final);
    } else if (headerBytes === 0) {
      if (final === 0x6e || final === 0x6f || final === 0x7c || final === 0x7d || final === 0x7e || final === 0x4e || final === 0x4f) {
        this.charsets ??= new Charsets();
      }
      this.charsets?.escapeFinal(final);
    }
    if (this.charsets !== null) this.drawing = this.charsets.active;
  }

  /**
   * A well-formed CSI that may save, restore or reset the character sets, with its first `count`
   * parameters `params` (see Charsets.csi).
   */
  csi(priv: number, inter: number, final: number, params: Int32Array, count: number, tmuxUnsure: boolean): void {
    const charsets = this.charsets;
    if (charsets === null || (final !== 0x73 && final !== 0x75 && final !== 0x70 && final !== 0x68 && final !== 0x6c)) return;
    charsets.csi(priv, inter, final, params, count, tmuxUnsure);
    this.drawing = charsets.active;
  }

  /** SO (`g` 1) or SI (0): a locking shift to G1 or G0. */
  shift(g: number): void {
    const charsets = (this.charsets ??= new Charsets());
    charsets.shift(g);
    this.drawing = charsets.active;
  }
}
