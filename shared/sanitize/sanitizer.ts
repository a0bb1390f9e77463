import { resolveLimits, type ParserLimits } from '../parser/limits';
import { INTERLEAVED_MEANING, SGR_MEANINGS } from '../parser/meaning';
import { Parser } from '../parser/parser';
import { recordSpan, type ParserSink, type SpanLog } from '../parser/sink';
import { SpanClass, SpanFlag, StretchFlag } from '../parser/span-class';
import { StateMachine } from '../parser/state-machine';
import type { Digest } from './digest';
import { LineBuffer, MAX_CURSOR_COLUMN, MAX_LINE_CELLS } from './line-buffer';
import { CSI_FINALS, Motion, motionOf } from './motion';
import { OffsetMap, SegmentKind, type SegmentSink } from './offset-map';
import { ReportBuilder, type CrMode, type RemovalReport } from './report';

/** U+FFFD REPLACEMENT CHARACTER, which stands in for each maximal ill-formed UTF-8 subpart. */
const REPLACEMENT = Uint8Array.of(0xef, 0xbf, 0xbd);
const LF = 0x0a;
const SPACE = Uint8Array.of(0x20);
/** Most tab stops one CHT or CBT moves over in overwrite mode. */
const MAX_TAB_COUNT = 64;

/** Span classes that can change the text beyond being counted (see Sanitizer.effect). */
const EFFECT_CLASSES = (1 << SpanClass.C0) | (1 << SpanClass.C1) | (1 << SpanClass.Esc) | (1 << SpanClass.InvalidUtf8) | (1 << SpanClass.Withheld);

/** Why a line break or space is pending (newline mode): decides which counter it lands in. */
const enum Pending { None = 0, Cr = 1, Move = 2 }
/**
 * Runs shorter than this are copied four bytes at a time (see Sanitizer.copyWords): cheaper than
 * creating (and collecting) a subarray view for `set`, which costs as much as copying ~300 bytes.
 */
const SHORT_RUN = 256;

/**
 * What a caller hears from a {@link Sanitizer} besides its text and report, as it happens. Each
 * hook is optional and called as a plain function; one not given costs nothing.
 */
export interface SanitizerHooks {
  /**
   * Each removed span, after the report counted it: its class, stream offset, raw length, meaning,
   * {@link SpanFlag} bits and code (see ParserSink.span). For a viewer's or an index's own records;
   * a caller that takes every span of a large input is faster with {@link SanitizerOptions.spanLog}.
   */
  onSpan?(cls: SpanClass, offset: number, length: number, meaning: string, flags: number, code: number): void;
  /**
   * Each offset-map segment as it is made: text bytes `[textPos, textPos + textLen)` came from raw
   * bytes `[rawPos, rawPos + rawLen)` (text offsets count from this Sanitizer's first output byte),
   * in text order. Without {@link SanitizerOptions.mapOffsets} no map is kept: the segments are
   * the caller's (an index streams them to disk).
   */
  onSegment?(textPos: number, textLen: number, rawPos: number, rawLen: number, kind: SegmentKind): void;
  /** Each ambiguous stretch (see ParserSink.ambiguous), after the report counted it. */
  onAmbiguous?(offset: number, length: number, flags: number): void;
  /**
   * Each run of text as the parser prints it, before the line rules: `bytes[start..end)` are the raw
   * bytes at stream `offset` (valid only during the call). A character printed at an offset means
   * every byte before it is decided (the parser prints none while a sequence or a disagreement
   * between the terminal readings is open), except that LF and TAB are printed inside an open
   * sequence too.
   */
  onText?(bytes: Uint8Array, start: number, end: number, offset: number): void;
}

/** Options of a {@link Sanitizer}. */
export interface SanitizerOptions {
  /**
   * The CR/BS rule. `newline` (default) shows history: CR becomes a line break (CR LF is one
   * break; a CR at the start of a line, a repeated CR and a CR at the end of input are dropped)
   * and BS is removed, so both a line and whatever was meant to overwrite it stay readable.
   * `overwrite` shows what a terminal would: CR returns to column 0, BS moves one column left,
   * and later characters overwrite earlier ones on the same line.
   */
  cr?: CrMode;
  /** Parser limits; see {@link ParserLimits}. */
  limits?: Partial<ParserLimits>;
  /** Hash of the raw input for the report (e.g. sha256 from the platform). */
  digest?: Digest;
  /** Keep an {@link OffsetMap} from text offsets to raw offsets (costs memory per text run). */
  mapOffsets?: boolean;
  /** What the caller hears as the input is sanitized; see {@link SanitizerHooks}. */
  hooks?: SanitizerHooks;
  /**
   * Every span recorded into these arrays as well, after the report counted it: the bulk channel,
   * for a caller that takes every span of a large input (a hex dump's annotations, an index's
   * minimap) without a call and a meaning string per span (see {@link SpanLog}, {@link spanMeaning}).
   */
  spanLog?: SpanLog;
  /**
   * Return views of one reused output buffer from {@link Sanitizer.write} instead of fresh arrays:
   * faster for a caller that consumes each result before the next call (the CLI's stdout loop).
   */
  reuseOutputBuffer?: boolean;
  /**
   * Continue a stream another Sanitizer began: the last text byte it emitted (0: none). A viewer
   * re-sanitizes one page of a large artifact from a checkpoint with this. The text, spans and
   * offset map then equal the other Sanitizer's from that point on (offsets counted from this
   * input's start), provided its parser was at rest there ({@link Sanitizer.parserAtRest}), no
   * line break or space was pending (the last thing it did was to emit text) and, in overwrite
   * mode, that text ended with LF. A line break or a space decided later depends on this byte.
   */
  precedingText?: number;
  /** @internal Tests only: run the parser's state machine alone (StateMachine: no fast path). */
  stateMachineOnly?: boolean;
}

/**
 * Streaming sanitizer: raw terminal bytes in, safe UTF-8 text out. The text holds no ESC, no C0
 * control but LF and TAB, no DEL, no C1 (raw or encoded), no invisible tag or bidi code point,
 * and nothing from inside a removed sequence or string; OSC 8 hyperlinks keep their label only.
 * Invalid UTF-8 becomes U+FFFD. A {@link RemovalReport} counts what was removed.
 */
export class Sanitizer implements ParserSink {
  readonly map: OffsetMap | null;
  private readonly parser: StateMachine;
  private readonly report = new ReportBuilder();
  /** Where segments go: the map, the onSegment hook, both, or nowhere (null). */
  private readonly segments: SegmentSink | null;
  private readonly onSpan: NonNullable<SanitizerHooks['onSpan']> | null;
  private readonly onAmbiguous: NonNullable<SanitizerHooks['onAmbiguous']> | null;
  private readonly onText: NonNullable<SanitizerHooks['onText']> | null;
  private readonly spanLog: SpanLog | null;
  /** Plain SGR the parser reported through {@link sgr}, as [count, bytes] without conceal, then with it. */
  private readonly sgrCounts = new Float64Array(4);
  /** The span log's kinds for the two SGR meanings. */
  private readonly sgrKinds: readonly [number, number];
  private readonly limits: ParserLimits;
  private readonly mode: CrMode;
  private readonly line: LineBuffer | null;
  private out = new Uint8Array(0);
  private outLen = 0;
  /** Views for {@link copyWords}: of the last input array seen, and of {@link out}. */
  private inBytes: Uint8Array | null = null;
  private inView: DataView = new DataView(new ArrayBuffer(0));
  private outViewOf: Uint8Array | null = null;
  private outView: DataView = new DataView(new ArrayBuffer(0));
  /** The last text byte handed out by an earlier write (0 before any): pending spaces look at it across writes. */
  private lastOut = 0;
  /** Text bytes emitted before the current output buffer. */
  private textBase = 0;
  private kept = 0;
  private atLineStart = true;
  /** A line break waits for the next text (newline mode): from a CR or a line-moving control. */
  private pendingBreak = Pending.None;
  /** Raw offset of the control the pending break came from. */
  private pendingAt = -1;
  /** A space waits for the next text: a forward move on the line (newline mode). */
  private pendingSpaceAt = -1;
  /** A break or a space is pending (one test on the hot path). */
  private anyPending = false;
  /** Overwrite mode: a line-moving control or withheld stretch ends the line before the next character. */
  private lineMoved = false;
  /** Raw offset of the control that moved off the line (overwrite mode). */
  private lineMovedAt = 0;
  /** Overwrite mode: the text emitted so far is empty or ends with LF. */
  private owAtLineStart = true;
  private ended = false;
  private finalReport: RemovalReport | null = null;
  /** Digest of the raw input, known once the input has ended. */
  private sha256: string | null = null;
  /** Scratch for one drawn character's UTF-8. */
  private readonly glyph = new Uint8Array(4);

  /** Creates a sanitizer; see {@link SanitizerOptions}. */
  constructor(private readonly options: SanitizerOptions = {}) {
    this.limits = resolveLimits(options.limits);
    const hooks = options.hooks ?? {};
    this.onSpan = hooks.onSpan ?? null;
    this.onAmbiguous = hooks.onAmbiguous ?? null;
    this.onText = hooks.onText ?? null;
    this.spanLog = options.spanLog ?? null;
    // Plain SGR are logged under the numbers their meanings will have in the report.
    const sgrKind = (k: number): number => (this.spanLog === null ? 0 : SpanClass.Csi | (this.report.reserveMeaning(SpanClass.Csi, SGR_MEANINGS[k]) << 10));
    this.sgrKinds = [sgrKind(0), sgrKind(1)];
    this.parser = options.stateMachineOnly ? new StateMachine(this, this.limits) : new Parser(this, this.limits);
    this.mode = options.cr ?? 'newline';
    this.line = this.mode === 'overwrite' ? new LineBuffer() : null;
    const map = (this.map = options.mapOffsets ? new OffsetMap() : null);
    const onSegment = hooks.onSegment;
    this.segments = onSegment === undefined ? map : map === null ? { add: onSegment } : {
      add(textPos: number, textLen: number, rawPos: number, rawLen: number, kind: SegmentKind): void {
        map.add(textPos, textLen, rawPos, rawLen, kind);
        onSegment(textPos, textLen, rawPos, rawLen, kind);
      },
    };
    const before = options.precedingText ?? 0;
    if (!Number.isInteger(before) || before < 0 || before > 0xff) throw new RangeError('precedingText must be a byte (0-255)');
    // Overwrite mode keeps the current line's cells, which a byte cannot restore: only a line start continues.
    if (this.line && before !== 0 && before !== LF) throw new RangeError('in overwrite mode precedingText must be 0 or LF');
    this.lastOut = before;
    this.atLineStart = before === 0 || before === LF;
  }

  /**
   * Sanitizes the next chunk and returns the text it completes: a fresh array the caller owns, or
   * with {@link SanitizerOptions.reuseOutputBuffer} a view valid until the next `write` or `end`.
   */
  write(chunk: Uint8Array): Uint8Array {
    if (this.ended) throw new Error('Sanitizer.write called after end()');
    this.options.digest?.update(chunk);
    this.begin(chunk.length + 8);
    this.parser.feed(chunk);
    return this.take();
  }

  /** Ends the input and returns the remaining text (a view, as for {@link write}). */
  end(): Uint8Array {
    if (this.ended) return new Uint8Array(0);
    this.begin(16);
    this.parser.end();
    if (this.line && !this.line.empty) this.flushLine();
    this.dropPending();
    if (this.lineMoved) {
      this.lineMoved = false;
      this.report.lineControl.move_dropped++;
    }
    this.ended = true;
    this.sha256 = this.options.digest?.digest() ?? null;
    return this.take();
  }

  /** The removal report; complete after {@link end}. `truncated` is for callers that cap input. */
  getReport(truncated = false): RemovalReport {
    if (this.finalReport && this.finalReport.truncated === truncated) return this.finalReport;
    const sgr = this.sgrCounts;
    if (sgr[0] > 0 || sgr[2] > 0) {
      this.report.addMany(SpanClass.Csi, sgr[0], sgr[1], SGR_MEANINGS[0]);
      this.report.addMany(SpanClass.Csi, sgr[2], sgr[3], SGR_MEANINGS[1]);
      sgr.fill(0);
    }
    const report = this.report.build({
      inputBytes: this.parser.offset,
      keptBytes: this.kept,
      textBytes: this.textBase + this.outLen,
      sha256: this.sha256,
      truncated,
      cr: this.mode,
      limits: this.limits,
    });
    if (this.ended) this.finalReport = report;
    return report;
  }

  /** The meaning of number `id` in a {@link SpanLog}'s kinds (its class is the kind's). */
  spanMeaning(id: number): string {
    return this.report.meaningOf(id);
  }

  /** How many meanings a {@link SpanLog}'s kinds number so far: their numbers are below this. */
  get spanMeaningCount(): number {
    return this.report.meaningCount;
  }

  /**
   * While true, text the parser prints is withheld and counted (a Withheld span, {@link INTERLEAVED_MEANING})
   * instead of emitted: set between writes by a caller that knows another writer to the same
   * terminal has a sequence open (capture's shared-terminal rule for stdout and stderr).
   */
  withholdText = false;
  /** Spans of a sequence, string, C1 control, invisible or withheld character, SO or SI so far (not other C0 controls). */
  private sequenceSpanCount = 0;

  /**
   * How many of the spans so far a terminal read as, or inside, a sequence or a character set
   * shift: every span but C0 controls other than SO and SI (a CR or BEL opens nothing).
   */
  get sequenceSpans(): number {
    return this.sequenceSpanCount + this.sgrCounts[0] + this.sgrCounts[2];
  }

  /** Its Parser's {@link Parser.atRest}: a fresh Parser could take over from here (read between writes). */
  get parserAtRest(): boolean {
    return this.parser.atRest;
  }

  /** @internal Parser callback: text. */
  print(bytes: Uint8Array, start: number, end: number, offset: number): void {
    if (this.withholdText) {
      this.withholdInterleaved(offset, end - start);
      return;
    }
    if (this.onText !== null) this.onText(bytes, start, end, offset);
    if (this.line) {
      this.printOverwrite(bytes, start, end, offset);
      return;
    }
    if (this.anyPending) this.resolvePending(bytes[start]);
    const len = end - start;
    this.ensure(len);
    const out = this.out;
    let pos = this.outLen;
    this.segments?.add(this.textBase + pos, len, offset, len, SegmentKind.Verbatim);
    if (len < 8) {
      for (let k = start; k < end; k++) out[pos++] = bytes[k];
    } else if (len < SHORT_RUN) {
      pos = this.copyWords(bytes, start, end, pos);
    } else {
      out.set(bytes.subarray(start, end), pos);
      pos += len;
    }
    this.outLen = pos;
    this.kept += len;
    this.atLineStart = bytes[end - 1] === LF;
  }

  /**
   * Copies `bytes[start..end)` (at least 4 bytes) to the output at `pos` four bytes at a time
   * through unaligned DataView reads and writes; returns the position after it. Views are made
   * once per input array (the parser's chunk) and per output buffer.
   */
  private copyWords(bytes: Uint8Array, start: number, end: number, pos: number): number {
    if (bytes !== this.inBytes) {
      this.inBytes = bytes;
      this.inView = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    }
    if (this.outViewOf !== this.out) {
      this.outViewOf = this.out;
      this.outView = new DataView(this.out.buffer, this.out.byteOffset, this.out.length);
    }
    const from = this.inView;
    const to = this.outView;
    const last = end - 4;
    let k = start;
    for (; k < last; k += 4, pos += 4) to.setUint32(pos, from.getUint32(k, true), true);
    // The last four bytes, overlapping what was copied already when the length is not a multiple of 4.
    to.setUint32(pos + (last - k), from.getUint32(last, true), true);
    return pos + (end - k);
  }

  /** @internal Parser callback: a removed span. */
  span(cls: SpanClass, offset: number, length: number, meaning: string, flags: number, code: number, param = -1): void {
    this.report.add(cls, length, meaning, flags, code);
    if (cls !== SpanClass.C0 || code === 0x0e || code === 0x0f) this.sequenceSpanCount++;
    if (this.onSpan !== null) this.onSpan(cls, offset, length, meaning, flags, code);
    if (this.spanLog !== null) recordSpan(this.spanLog, offset, length, cls | (flags << 4) | (this.report.lastMeaningId << 10));
    // Most spans are SGR (the final byte alone rules them out) or strings and invisible code points
    // (only counted): the rest stays out of this hot path. A flag matters only when it is
    // Unterminated (withheld to the end) or, on a CSI, Malformed (no motion then).
    const unterminated = (flags & SpanFlag.Unterminated) !== 0;
    if (cls === SpanClass.Csi
      ? ((flags & SpanFlag.Malformed) === 0 && code < 0x80 && CSI_FINALS[code] === 1) || unterminated
      : (EFFECT_CLASSES & (1 << cls)) !== 0 || unterminated) {
      this.effect(cls, offset, length, meaning, flags, code, param);
    }
  }

  /** What a span does to the text beyond being counted: U+FFFD, CR/BS, cursor moves, withheld lines. */
  private effect(cls: SpanClass, offset: number, length: number, meaning: string, flags: number, code: number, param: number): void {
    switch (cls) {
      case SpanClass.InvalidUtf8:
        this.replace(offset, length);
        break;
      case SpanClass.C0:
        if (code === 0x0d) this.carriageReturn(offset);
        else if (code === 0x08) this.backspace();
        else if (code === 0x0b || code === 0x0c) this.move(Motion.Line, offset, meaning, param);
        break;
      case SpanClass.Csi:
      case SpanClass.C1:
      case SpanClass.Esc:
        if ((flags & SpanFlag.Malformed) === 0) this.motion(cls, offset, meaning, code, param);
        break;
      case SpanClass.Withheld:
        // Overwrite mode: the 8-bit reading wrote over cells the UTF-8 reading still shows.
        if (this.line && this.line.column < this.line.cellCount) this.report.lineControl.cells_withheld += this.line.discard();
        break;
      default:
    }
    if ((flags & SpanFlag.Unterminated) !== 0) this.report.withheldToEnd(offset);
  }

  private motion(cls: SpanClass, offset: number, meaning: string, code: number, param: number): void {
    const motion = motionOf(cls, meaning, code);
    if (motion !== Motion.None) this.move(motion, offset, meaning, param);
  }

  /** @internal Parser callback: a plain SGR (counted here, folded into the report when it is read). */
  sgr(offset: number, length: number, conceal: boolean): void {
    const k = conceal ? 1 : 0;
    this.sgrCounts[2 * k]++;
    this.sgrCounts[2 * k + 1] += length;
    if (this.onSpan !== null) this.onSpan(SpanClass.Csi, offset, length, SGR_MEANINGS[k], 0, 0x6d);
    if (this.spanLog !== null) recordSpan(this.spanLog, offset, length, this.sgrKinds[k]);
  }

  /** @internal Parser callback: a stretch where the readings disagreed ended. */
  ambiguous(offset: number, length: number, flags: number): void {
    this.report.ambiguous(offset, length, flags);
    if (this.onAmbiguous !== null) this.onAmbiguous(offset, length, flags);
    // A break or space made for the stretch maps to its last byte (text before it came earlier).
    const last = offset + Math.max(length - 1, 0);
    if (flags & StretchFlag.TouchedLine) {
      // The UTF-8 reading may have moved to another line, or erased or overwritten cells of this
      // one that the 8-bit reading kept: neither version of the line is safe to show.
      if (this.line) {
        this.report.lineControl.cells_withheld += this.line.discard();
        this.moveLine(last);
      } else {
        this.pendBreak(last);
      }
    } else if (flags & (StretchFlag.WithheldText | StretchFlag.ShownText)) {
      // Text one reading shows stood here: keep the words around it apart.
      if (this.line) this.line.moveTo(this.line.column + 1, last);
      else this.pendSpace(last);
    }
  }

  /** A control that moves the cursor (see {@link motionOf}). */
  private move(motion: Motion, offset: number, meaning: string, param: number): void {
    const line = this.line;
    if (line === null) {
      if (motion === Motion.Line) this.pendBreak(offset);
      else if (motion === Motion.Column) this.pendSpace(offset);
      return;
    }
    const n = param <= 0 ? 1 : Math.min(param, MAX_CURSOR_COLUMN);
    switch (motion) {
      case Motion.Line:
        this.moveLine(offset);
        return;
      case Motion.Column:
        switch (meaning) {
          case 'CUF cursor forward': case 'HPR column relative': line.moveTo(line.column + n, offset); break;
          case 'CUB cursor back': line.moveTo(line.column - n, offset); break;
          case 'CHA cursor column': case 'HPA column absolute': line.moveTo(param <= 0 ? 0 : Math.min(param, MAX_LINE_CELLS) - 1, offset); break;
          case 'CHT tab forward': for (let k = 0; k < Math.min(n, MAX_TAB_COUNT); k++) line.tab(offset); break;
          case 'CBT tab backward': line.backTab(Math.min(n, MAX_TAB_COUNT)); break;
          case 'DECFI forward index': line.moveTo(line.column + 1, offset); break;
          case 'DECBI back index': line.moveTo(line.column - 1, offset); break;
          default: line.tab(offset); // HTJ
        }
        this.report.lineControl.move_applied++;
        return;
      case Motion.Edit:
        switch (meaning) {
          case 'ECH erase characters': line.eraseChars(n, offset); break;
          case 'DCH delete characters': line.deleteChars(n); break;
          case 'ICH insert characters': line.insertChars(n, offset); break;
          default: line.eraseInLine(Math.max(param, 0), offset);
        }
        this.report.lineControl.erase_applied++;
        this.report.lineControl.cells_withheld += line.takeDropped();
        return;
      default:
    }
  }

  /** Overwrite mode: the cursor left the line; the next character starts a new one. */
  private moveLine(offset: number): void {
    if (this.lineMoved) this.report.lineControl.move_dropped++;
    this.lineMoved = true;
    this.lineMovedAt = offset;
  }

  private carriageReturn(offset: number): void {
    if (this.line) {
      this.line.carriageReturn();
      this.report.lineControl.cr_applied++;
    } else if (this.pendingBreak !== Pending.None) {
      this.report.lineControl.cr_dropped++;
    } else {
      this.pendingBreak = Pending.Cr;
      this.pendingAt = offset;
      this.anyPending = true;
    }
  }

  /** Newline mode: a line-moving control breaks the line before the next text. */
  private pendBreak(offset: number): void {
    if (this.pendingBreak !== Pending.None) {
      this.report.lineControl.move_dropped++;
      return;
    }
    this.pendingBreak = Pending.Move;
    this.pendingAt = offset;
    this.anyPending = true;
  }

  /** Newline mode: a move along the line puts one space before the next text. */
  private pendSpace(offset: number): void {
    if (this.pendingSpaceAt >= 0 || this.pendingBreak !== Pending.None) {
      this.report.lineControl.move_dropped++;
      return;
    }
    this.pendingSpaceAt = offset;
    this.anyPending = true;
  }

  private backspace(): void {
    if (this.line?.backspace()) this.report.lineControl.bs_applied++;
    else this.report.lineControl.bs_dropped++;
  }

  /**
   * Newline mode: a pending break becomes LF unless LF follows or the line is empty; a pending
   * space becomes a space unless a break, the line start or white space is there already.
   */
  private resolvePending(next: number): void {
    const lc = this.report.lineControl;
    this.anyPending = false;
    if (this.pendingBreak !== Pending.None) {
      const cr = this.pendingBreak === Pending.Cr;
      if (next === LF || this.atLineStart) {
        if (cr) lc.cr_dropped++;
        else lc.move_dropped++;
      } else {
        this.ensure(1);
        this.segments?.add(this.textBase + this.outLen, 1, this.pendingAt, 1, SegmentKind.Replaced);
        this.out[this.outLen++] = LF;
        this.atLineStart = true;
        if (cr) lc.cr_to_newline++;
        else lc.move_to_newline++;
      }
      this.pendingBreak = Pending.None;
      if (this.pendingSpaceAt >= 0) {
        lc.move_dropped++;
        this.pendingSpaceAt = -1;
      }
      return;
    }
    if (next === LF || next === 0x20 || next === 0x09 || this.atLineStart || (this.outLen > 0 ? this.out[this.outLen - 1] : this.lastOut) === 0x20) {
      lc.move_dropped++;
    } else {
      this.ensure(1);
      this.segments?.add(this.textBase + this.outLen, 1, this.pendingSpaceAt, 1, SegmentKind.Replaced);
      this.out[this.outLen++] = SPACE[0];
      lc.move_to_space++;
    }
    this.pendingSpaceAt = -1;
  }

  /** End of input: pending breaks and spaces are dropped. */
  private dropPending(): void {
    const lc = this.report.lineControl;
    if (this.pendingBreak === Pending.Cr) lc.cr_dropped++;
    else if (this.pendingBreak === Pending.Move) lc.move_dropped++;
    if (this.pendingSpaceAt >= 0) lc.move_dropped++;
    this.pendingBreak = Pending.None;
    this.pendingSpaceAt = -1;
    this.anyPending = false;
  }

  /** Emits U+FFFD for the invalid UTF-8 subpart of `length` bytes at raw `offset`. */
  private replace(offset: number, length: number): void {
    this.emitMade(REPLACEMENT, 3, offset, length);
  }

  /** @internal Parser callback: `length` raw bytes at `offset` drawn as code point `cp` (a character set). */
  drawn(cp: number, offset: number, length: number): void {
    if (this.withholdText) {
      this.withholdInterleaved(offset, length);
      return;
    }
    const n = utf8Encode(cp, this.glyph);
    this.report.drawn(n);
    this.emitMade(this.glyph, n, offset, length);
  }

  /** Text printed while {@link withholdText} is set: withheld, counted, and kept apart from the words around it. */
  private withholdInterleaved(offset: number, length: number): void {
    this.span(SpanClass.Withheld, offset, length, INTERLEAVED_MEANING, 0, 0);
    this.ambiguous(offset, length, StretchFlag.WithheldText);
  }

  /** Emits text the sanitizer made (`bytes[0..n)`, one character) for `length` raw bytes at `offset`. */
  private emitMade(bytes: Uint8Array, n: number, offset: number, length: number): void {
    if (this.line) {
      if (this.lineMoved) this.newLine();
      if (this.line.put(bytes, 0, n, offset, true)) this.flushLine();
      return;
    }
    if (this.anyPending) this.resolvePending(bytes[0]);
    this.ensure(n);
    this.segments?.add(this.textBase + this.outLen, n, offset, length, SegmentKind.Replaced);
    this.out.set(bytes.subarray(0, n), this.outLen);
    this.outLen += n;
    this.atLineStart = false;
  }

  private printOverwrite(bytes: Uint8Array, start: number, end: number, offset: number): void {
    const line = this.line as LineBuffer;
    let k = start;
    while (k < end) {
      const b = bytes[k];
      const len = b < 0x80 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
      if (b === LF) {
        if (this.lineMoved) {
          this.lineMoved = false;
          this.report.lineControl.move_dropped++;
        }
        this.flushLine();
        this.ensure(1);
        this.segments?.add(this.textBase + this.outLen, 1, offset + (k - start), 1, SegmentKind.Verbatim);
        this.out[this.outLen++] = LF;
        this.owAtLineStart = true;
        this.kept++;
      } else {
        if (this.lineMoved) this.newLine();
        if (b === 0x09) line.tab(offset + (k - start));
        else if (line.put(bytes, k, len, offset + (k - start))) this.flushLine();
      }
      k += len;
    }
  }

  /** Overwrite mode: the line a line-moving control left is emitted, and a new one begins. */
  private newLine(): void {
    this.lineMoved = false;
    if ((this.line as LineBuffer).empty && this.owAtLineStart) {
      this.report.lineControl.move_dropped++;
      return;
    }
    this.flushLine();
    this.ensure(1);
    this.segments?.add(this.textBase + this.outLen, 1, this.lineMovedAt, 1, SegmentKind.Replaced);
    this.out[this.outLen++] = LF;
    this.owAtLineStart = true;
    this.report.lineControl.move_to_newline++;
  }

  private flushLine(): void {
    const line = this.line as LineBuffer;
    this.ensure(line.byteBound);
    const before = this.outLen;
    this.outLen = line.flush(this.out, this.outLen, this.textBase, this.segments);
    if (this.outLen > before) this.owAtLineStart = false;
    this.kept += line.takeKept();
  }

  /** Makes room for one write's output; text is never longer than its input but for U+FFFD and CR. */
  private begin(capacity: number): void {
    if (this.out.length < capacity) this.out = new Uint8Array(capacity);
    this.outLen = 0;
  }

  private ensure(extra: number): void {
    const need = this.outLen + extra;
    if (need <= this.out.length) return;
    const grown = new Uint8Array(Math.max(need, this.out.length * 2));
    grown.set(this.out.subarray(0, this.outLen));
    this.out = grown;
  }

  private take(): Uint8Array {
    const text = this.options.reuseOutputBuffer ? this.out.subarray(0, this.outLen) : this.out.slice(0, this.outLen);
    if (this.outLen > 0) this.lastOut = this.out[this.outLen - 1];
    this.textBase += this.outLen;
    this.outLen = 0;
    return text;
  }
}

/** Writes the UTF-8 of `cp` into `out`; returns its length. */
function utf8Encode(cp: number, out: Uint8Array): number {
  if (cp < 0x80) {
    out[0] = cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = 0xc0 | (cp >> 6);
    out[1] = 0x80 | (cp & 0x3f);
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = 0xe0 | (cp >> 12);
    out[1] = 0x80 | ((cp >> 6) & 0x3f);
    out[2] = 0x80 | (cp & 0x3f);
    return 3;
  }
  out[0] = 0xf0 | (cp >> 18);
  out[1] = 0x80 | ((cp >> 12) & 0x3f);
  out[2] = 0x80 | ((cp >> 6) & 0x3f);
  out[3] = 0x80 | (cp & 0x3f);
  return 4;
}

/** Result of {@link sanitize}. */
export interface SanitizeResult {
  text: Uint8Array;
  report: RemovalReport;
  map: OffsetMap | null;
}

/** Sanitizes a whole byte array at once; see {@link Sanitizer}. */
export function sanitize(bytes: Uint8Array, options: SanitizerOptions = {}): SanitizeResult {
  const s = new Sanitizer(options);
  const head = s.write(bytes);
  const tail = s.end();
  const text = new Uint8Array(head.length + tail.length);
  text.set(head);
  text.set(tail, head.length);
  return { text, report: s.getReport(), map: s.map };
}
