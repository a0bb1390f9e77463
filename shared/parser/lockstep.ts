import { WITHHELD_MEANING } from './meaning';
import { HOME, lookups, MOVE, NEXT, PRINT, Reading, READING_COUNT, TMUX_GROUND, tmuxCharLength } from './tables';
import type { ParserSink } from './sink';
import { SpanClass, StretchFlag } from './span-class';
import { State, Unit } from './states';
import { lastCodePoint } from './utf8';
import { ZWJ } from './invisible';

/** What {@link Lockstep.step} found: every reading shows the unit, and they agree with this one again before it. */
export const enum Seen { Some = 0, All = 1, AgreeBefore = 2 }

/**
 * The terminal readings (readings.ts) beside the parser's own 8-bit reading, tracked only while
 * one of them disagrees with it: each reading's state, tmux's UTF-8 decoder, the stretch where
 * they disagree, and the text this reading shows that another does not (withheld, one span per
 * run). The parser drives it unit by unit (StateMachine.lockUnit).
 */
export class Lockstep {
  /** The readings disagree with the parser: units go through {@link step}. */
  diverged = false;
  private readonly shadows = new Uint8Array(READING_COUNT);
  /** How many more bytes tmux's UTF-8 decoder will swallow. */
  tmuxPending = 0;
  /** tmux decoded a ZWJ in ground while the readings disagreed: its next non-ASCII character goes elsewhere (ZwjGuard). */
  tmuxZwj = false;
  private stretchStart = 0;
  private stretchFlags = 0;
  /** The current unit is text to this reading only: it is withheld, not printed. */
  holding = false;
  private heldStart = 0;
  /** End of the withheld run not reported yet (-1: none). */
  heldEnd = -1;

  /**
   * Whether unit `code` at `buf[at..at+len)` would make a terminal reading disagree with the parser
   * in effective state `s`: the table says so, or it is a raw 0x80–0x9F byte (invalid UTF-8 to the
   * readings, C1 here), or invalid UTF-8 in ground whose lead byte makes tmux's decoder swallow
   * what follows.
   */
  static disagrees(s: number, code: number, buf: Uint8Array, at: number, len: number): boolean {
    if (len === 1 && code >= 0x80 && code <= 0x9f) return lookups().agreeStray[(s << 5) | (code - 0x80)] === 0;
    if (code === Unit.Invalid && s === State.Ground) return len < tmuxCharLength(buf[at]);
    return lookups().agree[(s << 8) | code] === 0;
  }

  /** The readings start to disagree before the unit at `off`: each goes where it stood in agreement with effective state `s`. */
  diverge(s: number, off: number): void {
    for (let r = 0; r < READING_COUNT; r++) this.shadows[r] = HOME[r][s];
    this.tmuxPending = 0;
    this.tmuxZwj = false;
    this.diverged = true;
    this.stretchStart = off;
    this.stretchFlags = 0;
  }

  /**
   * Unit `code` at `buf[at..at+len)` through every reading. `own` is the parser's own step for it
   * (readings.ts ownStep), `minePrints` whether the parser prints it. Notes in the stretch what a
   * reading showed or moved that the parser did not.
   */
  step(code: number, buf: Uint8Array, at: number, len: number, own: number, minePrints: boolean): Seen {
    // A raw 0x80–0x9F byte is a C1 control to this reading only.
    const ucode = len === 1 && code >= 0x80 && code <= 0x9f ? Unit.Invalid : code;
    const next = own & NEXT;
    let all = true;
    let any = false;
    let moves = false;
    let home = true;
    const tables = lookups().readings;
    for (let r = 0; r < READING_COUNT; r++) {
      const e = tables[r][(this.shadows[r] << 8) | ucode];
      let shows = (e & PRINT) !== 0;
      if (r === Reading.Tmux) shows = this.tmuxDecode(ucode, buf, at, len, shows);
      if (shows) any = true;
      else all = false;
      if ((e & MOVE) !== 0) moves = true;
      this.shadows[r] = e & NEXT;
      if ((e & NEXT) !== HOME[r][next]) home = false;
    }
    // Every reading shows this unit and ends where this one does: they agree from here on.
    if (minePrints && all && home && this.tmuxPending === 0) return Seen.AgreeBefore;
    if (any && !minePrints) this.stretchFlags |= StretchFlag.ShownText;
    // A reading that fed a line, or executed CR, BS, VT, FF or a sequence there where this one did
    // not, may have moved its cursor.
    if (moves && (own & MOVE) === 0) this.stretchFlags |= StretchFlag.TouchedLine;
    return all ? Seen.All : Seen.Some;
  }

  /** Whether every reading stands where it would in agreement with effective state `s` (tmux's decoder idle). */
  settled(s: number): boolean {
    if (this.tmuxPending > 0) return false;
    for (let r = 0; r < READING_COUNT; r++) if (this.shadows[r] !== HOME[r][s]) return false;
    return true;
  }

  /**
   * Whether a run of printable ASCII may be taken at once: it changes no reading's state, and they
   * do not all show it while the parser does too (then they may agree again: unit by unit).
   * `mineShows`: the parser shows it (in ground; else it is string payload to the parser).
   */
  takesRun(mineShows: boolean): boolean {
    let all = true;
    let any = false;
    const stables = lookups().stable;
    for (let r = 0; r < READING_COUNT; r++) {
      const stable = stables[r][this.shadows[r]];
      if (stable === 0) return false;
      if (stable === 1) any = true;
      else all = false;
    }
    if (mineShows && all) return false;
    if (this.shadows[Reading.Tmux] === TMUX_GROUND) this.tmuxPending = 0;
    if (!mineShows && any) this.stretchFlags |= StretchFlag.ShownText;
    return true;
  }

  /**
   * tmux's UTF-8 decoder (input_top_bit_set, utf8_open/utf8_append): in ground it takes as many
   * bytes >= 0x80 as the lead byte announces, whatever they are, and shows nothing for a sequence
   * that is not a valid character; any other byte in ground, and a C0 control wherever tmux
   * executes it, starts it afresh. A unit that falls into a sequence begun before it is swallowed.
   * Returns whether tmux shows the unit (`shows`: what its table says for a fresh decoder).
   */
  private tmuxDecode(ucode: number, buf: Uint8Array, at: number, len: number, shows: boolean): boolean {
    const state = this.shadows[Reading.Tmux];
    if (ucode < 0x80) {
      // A printable byte in ground, or a C0 control tmux executes (CAN and SUB anywhere).
      if (ucode !== 0x1b && ucode !== 0x7f && (state === TMUX_GROUND || ucode < 0x20)) this.tmuxPending = 0;
      return shows;
    }
    if (state !== TMUX_GROUND) return shows;
    if (this.tmuxPending > 0) {
      this.tmuxPending = Math.max(0, this.tmuxPending - len);
      return false;
    }
    const want = tmuxCharLength(buf[at]);
    if (want > len) {
      this.tmuxPending = want - len;
      return false;
    }
    if (want === 0 || ucode < Unit.Text) return shows;
    // A character: after a ZWJ it goes onto another cell (see ZwjGuard); a ZWJ sets that up.
    const after = this.tmuxZwj;
    this.tmuxZwj = ucode === Unit.Invisible && lastCodePoint === ZWJ;
    return shows && !after;
  }

  /** Text this reading shows and another does not: withheld, reported as one span per run. */
  hold(off: number, len: number, out: ParserSink): void {
    this.stretchFlags |= StretchFlag.WithheldText;
    if (this.heldEnd === off) {
      this.heldEnd += len;
      return;
    }
    this.flushHeld(out);
    this.heldStart = off;
    this.heldEnd = off + len;
  }

  /** Reports the withheld run, if any, to `out`. */
  flushHeld(out: ParserSink): void {
    if (this.heldEnd < 0) return;
    out.span(SpanClass.Withheld, this.heldStart, this.heldEnd - this.heldStart, WITHHELD_MEANING, 0, 0);
    this.heldEnd = -1;
  }

  /**
   * The readings agree again at `end` (or the input ended): reports the stretch to `out`, unless
   * nothing came of it (no reading showed or withheld text or moved in it: a brief difference of
   * states). Returns whether tmux still waits to put a character after a ZWJ it decoded.
   */
  converge(end: number, flags: number, out: ParserSink): boolean {
    this.flushHeld(out);
    this.diverged = false;
    this.tmuxPending = 0;
    flags |= this.stretchFlags;
    if ((flags & ~StretchFlag.ToEnd) !== 0) out.ambiguous?.(this.stretchStart, end - this.stretchStart, flags);
    const zwj = this.tmuxZwj;
    this.tmuxZwj = false;
    return zwj;
  }
}
