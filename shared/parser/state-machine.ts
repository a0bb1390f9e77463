import { resolveLimits, type ParserLimits } from './limits';
import { Lockstep, Seen } from './lockstep';
import { c0Meaning, c1Meaning, csiMeaning, escMeaning, hasParam, SGR_MEANINGS, strayMeaning } from './meaning';
import { CsiParams, tmuxMayDrop } from './params';
import { Printer } from './printer';
import type { ParserSink } from './sink';
import { SpanClass, SpanFlag, StretchFlag } from './span-class';
import { Action, State, Unit } from './states';
import { OscPhase, StringState } from './strings';
import { ESC_IN_DCS, lookups, TRANSITIONS } from './tables';
import { classifyMultibyte, lastCodePoint, Utf8Kind } from './utf8';

/** A byte array whose value at index i is i, so single LF/TAB bytes can be printed by reference. */
const ASCII = Uint8Array.from({ length: 128 }, (_, i) => i);

/**
 * Span class of the sequence an introducer opens, indexed by its low five bits: the C1 form
 * (0x90 DCS, 0x98 SOS, 0x9B CSI, 0x9D OSC, 0x9E PM, 0x9F APC) and the ESC form (ESC P, X, [, ], ^, _)
 * share them, since ESC Fe is the 7-bit spelling of C1 control 0x80 + (Fe - 0x40).
 */
const INTRODUCED: SpanClass[] = [];
INTRODUCED[0x10] = SpanClass.Dcs;
INTRODUCED[0x18] = SpanClass.Sos;
INTRODUCED[0x1b] = SpanClass.Csi;
INTRODUCED[0x1d] = SpanClass.Osc;
INTRODUCED[0x1e] = SpanClass.Pm;
INTRODUCED[0x1f] = SpanClass.Apc;

/** The table's unit code of a multibyte unit of kind `kind` (its code point in {@link lastCodePoint}). */
export function unitCode(kind: Utf8Kind): number {
  switch (kind) {
    case Utf8Kind.Text: return Unit.Text;
    case Utf8Kind.Invisible: return lastCodePoint === 0xfeff ? Unit.Bom : Unit.Invisible;
    case Utf8Kind.C1: return lastCodePoint;
    default: return Unit.Invalid;
  }
}

/**
 * Streaming, byte-level ECMA-48 / DEC VT500 state machine with UTF-8 awareness, taking every unit
 * (an ASCII byte, or a multibyte unit {@link classifyMultibyte} finds) through the transition
 * table one at a time: the definition of what the parser reports, and the reference its fast
 * paths (parser.ts) are held to by differential fuzz. Beside its own 8-bit reading it tracks the
 * terminal readings (lockstep.ts) while they disagree, and withholds text not all of them show.
 *
 * Feed chunks of any size, then call {@link end}. It reports plain text runs and one span per
 * control, sequence, invalid UTF-8 subpart and invisible code point to its {@link ParserSink}.
 * State (an open sequence, a split UTF-8 character, an ESC that may start ST) survives chunk
 * boundaries, so any chunking yields the same events apart from how text runs are split. Work
 * per byte is constant: it is linear in its input and never throws on any byte sequence.
 */
export class StateMachine {
  protected state: State = State.Ground;
  /** Stream offset of the current chunk's first byte. */
  protected base = 0;
  protected ended = false;

  // The open sequence (meaningful while state is not Ground).
  protected seqStart = 0;
  protected seqClass: SpanClass = SpanClass.Esc;
  protected seqFlags = 0;
  /** Bytes counted against a header limit: an ESC's intermediates, a CSI or DCS header's bytes. */
  protected headerBytes = 0;
  protected priv = 0;
  protected inter = 0;
  protected final = 0;
  protected readonly params = new CsiParams();
  protected readonly str = new StringState();

  protected readonly readings = new Lockstep();
  protected readonly text: Printer;

  // A UTF-8 unit cut by a chunk boundary (at most 3 bytes wait here).
  private readonly pending = new Uint8Array(4);
  protected pendingLen = 0;
  private pendingAt = 0;

  protected readonly limits: ParserLimits;
  /** The sink takes plain SGR through {@link ParserSink.sgr}. */
  private readonly sgrSink: boolean;

  /**
   * Reports to `sink`; `limits` overrides the defaults field by field.
   * @throws RangeError for a limit that is not a whole number >= 0.
   */
  constructor(protected readonly sink: ParserSink, limits: Partial<ParserLimits> = {}) {
    this.limits = resolveLimits(limits);
    this.text = new Printer(sink);
    this.sgrSink = typeof sink.sgr === 'function';
  }

  /** Stream offset just past the last byte fed. */
  get offset(): number {
    return this.base;
  }

  /**
   * True (read between feeds, never from a sink call) when a fresh parser fed the rest of the
   * stream from here would report exactly the spans this one still will, offsets shifted by
   * {@link offset}: every reading in ground with no ambiguous stretch or withheld run open, no
   * sequence, split UTF-8 character or held joiner pending, and no character printed right before
   * that a following selector or joiner could attach to.
   */
  get atRest(): boolean {
    if (this.ended) return true;
    if (this.state !== State.Ground || this.readings.diverged || this.pendingLen > 0 || this.str.escPending || this.readings.heldEnd >= 0) return false;
    return this.text.atRest(this.base);
  }

  /** Feeds the next chunk of the stream. The chunk may be reused by the caller after return. */
  feed(chunk: Uint8Array): void {
    if (this.ended) throw new Error('Parser.feed called after end()');
    const n = chunk.length;
    const i = this.pendingLen > 0 ? this.completePending(chunk) : 0;
    this.parse(chunk, i, n);
    this.base += n;
  }

  /** The chunk from `i` on: every unit through the table, one at a time. */
  protected parse(buf: Uint8Array, i: number, n: number): void {
    while (i < n) i = this.nextUnit(buf, i, n);
  }

  /**
   * Ends the stream: a split UTF-8 character becomes invalid, and an open sequence or string is
   * reported as a span flagged {@link SpanFlag.Unterminated} reaching to the end of input.
   */
  end(): void {
    if (this.ended) return;
    // A cut character: its lead and each continuation byte up to the next 0x80–0x9F one are
    // invalid; such a byte is a stray C1 of its own (see Utf8Kind.Invalid).
    while (this.pendingLen > 0) {
      const total = this.pendingLen;
      const r = classifyMultibyte(this.pending, 0, total);
      let kind = r & 7;
      let len = r >> 3;
      if (kind === Utf8Kind.Incomplete) {
        kind = Utf8Kind.Invalid;
        len = 1;
        while (len < total && this.pending[len] > 0x9f) len++;
      }
      this.pendingLen = 0;
      this.unit(kind, this.pending, 0, len, this.pendingAt);
      this.unstash(len, total);
    }
    // Text withheld inside the sequence left open is reported before it, as mid-stream, where a
    // held run ends before the unit that completes the sequence: an index reads a span reported
    // before the one that holds it as inside it (as a C0 control executed within a CSI).
    this.readings.flushHeld(this.text.out);
    if (this.str.escPending) {
      this.str.escPending = false;
      this.finish(this.base, SpanFlag.Unterminated, this.str.escAt);
    } else if (this.state !== State.Ground) {
      this.finish(this.base, SpanFlag.Unterminated, this.base);
    }
    if (this.readings.diverged) this.converge(this.base, StretchFlag.ToEnd);
    this.text.end();
    this.state = State.Ground;
    this.ended = true;
  }

  /**
   * The unit at `buf[i]` (an ASCII byte or a multibyte unit) through {@link unit}: returns the
   * index after it, or `n` when a character cut by the chunk's end was stashed for the next.
   */
  protected nextUnit(buf: Uint8Array, i: number, n: number): number {
    if (buf[i] < 0x80) {
      this.unit(-1, buf, i, 1, this.base + i);
      return i + 1;
    }
    const r = classifyMultibyte(buf, i, n);
    const kind = r & 7;
    if (kind === Utf8Kind.Incomplete) return this.stash(buf, i, n);
    const len = r >> 3;
    this.unit(kind, buf, i, len, this.base + i);
    return i + len;
  }

  /** Keeps a UTF-8 prefix cut by the chunk's end until the next chunk completes or breaks it. */
  protected stash(buf: Uint8Array, i: number, n: number): number {
    this.pending.set(buf.subarray(i, n));
    this.pendingLen = n - i;
    this.pendingAt = this.base + i;
    return n;
  }

  /** Keeps the stash bytes after the first `used` of `total` for the next unit. */
  private unstash(used: number, total: number): void {
    if (used >= total) return;
    this.pending.copyWithin(0, used, total);
    this.pendingLen = total - used;
    this.pendingAt += used;
  }

  /**
   * Finishes the stashed unit with the first bytes of `chunk`; returns how many of them it used.
   * A unit may end inside the stash (an ill-formed subpart cut before a 0x80–0x9F byte): the rest
   * of the stash is then classified again.
   */
  private completePending(chunk: Uint8Array): number {
    for (;;) {
      const had = this.pendingLen;
      const take = Math.min(chunk.length, 4 - had);
      this.pending.set(chunk.subarray(0, take), had);
      const total = had + take;
      const r = classifyMultibyte(this.pending, 0, total);
      const kind = r & 7;
      if (kind === Utf8Kind.Incomplete) {
        this.pendingLen = total;
        return chunk.length;
      }
      const len = r >> 3;
      this.pendingLen = 0;
      this.unit(kind, this.pending, 0, len, this.pendingAt);
      if (len >= had) return len - had;
      this.unstash(len, had);
    }
  }

  /**
   * One unit (an ASCII byte when `kind` is -1, else a multibyte unit of that {@link Utf8Kind}):
   * through every reading while they disagree, else through this one.
   */
  protected unit(kind: number, buf: Uint8Array, at: number, len: number, off: number): void {
    const code = kind < 0 ? buf[at] : unitCode(kind);
    if (this.readings.diverged) this.lockUnit(code, buf, at, len, off);
    else this.one(code, buf, at, len, off);
  }

  /** One unit through this reading's table, with the OSC header and invisible code points on the way. */
  private one(code: number, buf: Uint8Array, at: number, len: number, off: number): void {
    const str = this.str;
    if (this.state === State.OscString && str.phase !== OscPhase.Payload && !str.escPending) {
      // A non-ASCII unit ends the header, as any byte but a digit or `;` does in StringState.header.
      if (code >= 0x80) str.phase = OscPhase.Payload;
      else if (str.header(buf, at, at + 1, off - at) > at) return;
    }
    if ((code === Unit.Invisible || code === Unit.Bom) && this.state === State.Ground && !str.escPending) {
      this.invisible(buf, at, len, off);
      return;
    }
    this.step(code, buf, at, len, off);
  }

  /** An invisible code point ({@link lastCodePoint}) in ground: kept or removed (Printer.invisible). */
  private invisible(buf: Uint8Array, at: number, len: number, off: number): void {
    const text = this.text;
    text.invisible(buf, at, len, off, lastCodePoint, text.prevEnd === off ? text.prevCp : -1, this.readings.holding);
  }

  /** This reading's state as the terminal readings see it (see ESC_IN_DCS). */
  protected effective(): number {
    return this.str.escPending && this.str.escInDcs ? ESC_IN_DCS : this.state;
  }

  /** One unit through this reading and every terminal reading (see {@link Lockstep}). */
  private lockUnit(code: number, buf: Uint8Array, at: number, len: number, off: number): void {
    const readings = this.readings;
    const mine = TRANSITIONS[(this.state << 8) | code] >> 4;
    const minePrints = !this.str.escPending && (mine === Action.Print || (mine === Action.Execute && (code === 0x0a || code === 0x09)));
    const s = this.effective();
    const seen = readings.step(code, buf, at, len, lookups().own[(s << 8) | code], minePrints);
    if (seen === Seen.AgreeBefore) {
      this.converge(off, 0);
      this.one(code, buf, at, len, off);
      return;
    }
    readings.holding = seen !== Seen.All;
    // Keep events in input order: a held run ends before any unit this reading does not print.
    if (!minePrints) readings.flushHeld(this.text.out);
    this.one(code, buf, at, len, off);
    readings.holding = false;
    if (readings.settled(this.effective())) this.converge(off + len, 0);
  }

  /** The readings agree again at `end` (or the input ended): see {@link Lockstep.converge}. */
  private converge(end: number, flags: number): void {
    const text = this.text;
    if (this.readings.converge(end, flags, text.out) && text.out === this.sink) text.zwjRemoved(true);
  }

  /**
   * Applies one table transition for the unit `buf[at..at+len)` at stream offset `off`, or, when
   * the unit makes a terminal reading disagree with this one, takes it through {@link lockUnit}.
   */
  protected step(code: number, buf: Uint8Array, at: number, len: number, off: number): void {
    if (!this.readings.diverged && Lockstep.disagrees(this.effective(), code, buf, at, len)) {
      this.readings.diverge(this.effective(), off);
      this.lockUnit(code, buf, at, len, off);
      return;
    }
    const str = this.str;
    if (str.escPending) {
      str.escPending = false;
      if (code === 0x5c) {
        this.finish(off + len, 0, str.escAt);
        this.state = State.Ground;
        return;
      }
      // The ESC interrupted the string: the string ends before it, and the ESC opens a sequence.
      this.finish(str.escAt, SpanFlag.Malformed, str.escAt);
      this.open(SpanClass.Esc, str.escAt, 0);
    }
    const before = this.state;
    const entry = TRANSITIONS[(before << 8) | code];
    const next = (entry & 0xf) as State;
    switch ((entry >> 4) as Action) {
      case Action.Ignore:
        // Sent to an ignore state, or a non-ASCII unit inside an ESC, CSI or DCS header.
        if ((next !== before && (next === State.CsiIgnore || next === State.DcsIgnore)) || code >= 0x80) this.seqFlags |= SpanFlag.Malformed;
        break;
      case Action.Print:
        if (this.readings.holding) this.readings.hold(off, len, this.text.out);
        else if (this.text.drawing) this.text.draw(code, buf, at, len, off);
        else this.text.print(buf, at, at + len, off, code < 0x80 ? code : lastCodePoint);
        break;
      case Action.Execute:
        this.execute(code, buf, at, len, off);
        break;
      case Action.EscStart:
        if (this.inString()) {
          str.escPending = true;
          str.escInDcs = before === State.DcsPassthrough;
          str.escAt = off;
        } else {
          if (before !== State.Ground) this.finish(off, SpanFlag.Malformed, off);
          this.open(SpanClass.Esc, off, 0);
        }
        break;
      case Action.C1Start:
        this.c1(Action.C1Start, code, off, len);
        break;
      case Action.Collect:
        this.collect(code);
        break;
      case Action.Param:
        this.countHeaderBytes(1);
        this.params.add(code);
        break;
      case Action.EscDispatch:
      case Action.CsiDispatch:
        this.final = code;
        this.finish(off + len, 0, off + len);
        break;
      case Action.Enter:
        this.enter(code, off + len);
        break;
      case Action.Hook:
        this.final = code;
        str.payloadStart = off + len;
        break;
      case Action.Put:
        break;
      case Action.StringEnd:
        if (code === 0x07) this.finish(off + len, 0, off);
        else this.c1(Action.StringEnd, code, off, len);
        break;
      case Action.Abort:
        if (before !== State.Ground) this.finish(off, SpanFlag.Malformed, off);
        this.controlSpan(SpanClass.C0, code, off, len);
        break;
      case Action.C1Execute:
        this.c1(Action.C1Execute, code, off, len);
        break;
    }
    this.state = next;
  }

  /**
   * A C1 control (`len` 2: encoded; 1: a stray raw byte, C1 to this 8-bit reading only) that opens
   * a sequence, ends a string, or executes.
   */
  private c1(action: Action, code: number, off: number, len: number): void {
    const stray = len === 1;
    if (action === Action.StringEnd && this.inString()) {
      this.finish(off + len, stray ? SpanFlag.Stray : 0, off);
    } else {
      if (this.state !== State.Ground) this.finish(off, SpanFlag.Malformed, off);
      if (action === Action.C1Start) {
        this.open(INTRODUCED[code & 0x1f], off, SpanFlag.EightBit | (stray ? SpanFlag.Stray : SpanFlag.Utf8Encoded));
        this.str.payloadStart = off + len;
      } else if (stray) {
        // Opens nothing: invalid UTF-8, labelled with what an 8-bit terminal does.
        this.text.out.span(SpanClass.InvalidUtf8, off, 1, strayMeaning(code), SpanFlag.Stray, code);
      } else {
        this.controlSpan(SpanClass.C1, code, off, len);
      }
    }
  }

  private inString(): boolean {
    return this.state >= State.DcsPassthrough || this.state === State.DcsEntry
      || this.state === State.DcsParam || this.state === State.DcsIntermediate;
  }

  /** A control executed where it stands: LF and TAB stay text, everything else is a span. */
  private execute(code: number, buf: Uint8Array, at: number, len: number, off: number): void {
    if (code === 0x0a || code === 0x09) {
      if (this.readings.holding) this.readings.hold(off, 1, this.text.out);
      else this.text.print(ASCII, code, code + 1, off, code);
    } else if (code < 0x80) {
      this.controlSpan(SpanClass.C0, code, off, 1);
    } else if (code === Unit.Invisible || code === Unit.Bom) {
      this.invisible(buf, at, len, off);
    } else {
      this.text.out.span(SpanClass.InvalidUtf8, off, len, 'invalid UTF-8', 0, buf[at]);
    }
  }

  private controlSpan(cls: SpanClass, code: number, off: number, len: number): void {
    const flags = len > 1 ? SpanFlag.Utf8Encoded : 0;
    this.text.out.span(cls, off, len, code < 0x80 ? c0Meaning(code) : c1Meaning(code), flags, code);
    // SO, SI: a locking shift to G1 or G0.
    if (code === 0x0e || code === 0x0f) this.text.shift(code === 0x0e ? 1 : 0);
  }

  protected open(cls: SpanClass, off: number, flags: number): void {
    this.seqStart = off;
    this.seqClass = cls;
    this.seqFlags = flags;
    this.headerBytes = 0;
    this.priv = 0;
    this.inter = 0;
    this.final = 0;
    this.params.reset();
    this.str.reset();
  }

  /** ESC followed by `[`, `]`, `P`, `X`, `^` or `_`: the ESC span becomes a CSI or a string. */
  protected enter(code: number, payloadStart: number): void {
    this.seqClass = INTRODUCED[code & 0x1f];
    this.str.payloadStart = payloadStart;
  }

  private collect(code: number): void {
    if (this.state === State.Escape || this.state === State.EscapeIntermediate) {
      if (this.inter === 0) this.inter = code;
      if (++this.headerBytes > this.limits.maxEscIntermediates) this.seqFlags |= SpanFlag.Oversized;
      return;
    }
    if (code >= 0x3c) this.priv = code;
    else if (this.inter === 0) this.inter = code;
    this.countHeaderBytes(1);
  }

  /** `bytes` more of a CSI or DCS header, which is oversized past its limit. */
  protected countHeaderBytes(bytes: number): void {
    this.headerBytes += bytes;
    if (this.headerBytes > this.limits.maxCsiParamBytes) this.seqFlags |= SpanFlag.Oversized;
  }

  /**
   * Reports the open sequence as one span ending at `end`. For strings, `terminatorAt` is where
   * the payload stopped (the terminator's offset, or `end` when there was none).
   */
  protected finish(end: number, flags: number, terminatorAt: number): void {
    const cls = this.seqClass;
    const start = this.seqStart;
    const final = this.final;
    flags |= this.seqFlags;
    if (cls === SpanClass.Csi && final !== 0) {
      this.csi(start, end - start, flags, this.priv, this.inter, final, this.params.count);
      return;
    }
    let meaning: string;
    let code = final;
    if (cls === SpanClass.Esc) {
      meaning = final !== 0 ? escMeaning(this.inter, final) : c0Meaning(0x1b);
    } else if (cls === SpanClass.Csi) {
      meaning = 'CSI sequence (incomplete)';
    } else {
      meaning = this.str.meaning(cls, this.priv, this.inter, final, terminatorAt);
      if (cls === SpanClass.Osc) code = this.str.command;
      if (this.str.oversized(terminatorAt, this.limits.maxStringBytes)) flags |= SpanFlag.Oversized;
    }
    this.text.out.span(cls, start, end - start, meaning, flags, code, cls === SpanClass.Csi ? this.params.first : -1);
    if (cls === SpanClass.Esc && final !== 0 && (flags & SpanFlag.Malformed) === 0) this.text.escape(this.headerBytes, this.inter, final);
  }

  /**
   * A CSI of `len` bytes at `off` with final byte `final` and its first `count` {@link params}:
   * reported, then what it does to the text (character sets, REP) unless it is malformed.
   */
  protected csi(off: number, len: number, flags: number, priv: number, inter: number, final: number, count: number): void {
    const first = count > 0 ? this.params.values[0] : -1;
    if (final === 0x6d && (priv | inter | flags) === 0) {
      this.sgr(off, len, hasParam(this.params.values, count, 8), first);
      return;
    }
    this.text.out.span(SpanClass.Csi, off, len, csiMeaning(priv, inter, final, this.params.values, count), flags, final, first);
    if ((flags & SpanFlag.Malformed) !== 0) return;
    const tmuxUnsure = tmuxMayDrop(len, count, this.params.values);
    this.text.csi(priv, inter, final, this.params.values, count, tmuxUnsure);
    if (final === 0x62 && (priv | inter) === 0) this.text.repeat(off, len, first, this.readings.diverged || tmuxUnsure);
  }

  /** A plain SGR (`conceal`: with parameter 8): to the sink's `sgr` when it has one, else as a span. */
  protected sgr(off: number, len: number, conceal: boolean, first: number): void {
    if (this.sgrSink && this.text.out === this.sink) (this.sink as Required<ParserSink>).sgr(off, len, conceal);
    else this.text.out.span(SpanClass.Csi, off, len, SGR_MEANINGS[conceal ? 1 : 0], 0, 0x6d, first);
  }
}
