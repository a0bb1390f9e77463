// The columns a run writes (format.ts): span records, the offset map and display line starts, each
// streamed into a ColumnWriter (a stored file, or memory that a replay keeps or only counts).
import { SpanClass, SpanFlag } from '../../../shared/parser';
import { SegmentKind, type SpanLog } from '../../../shared/sanitize';
import type { ColumnWriter } from './columns';
import { LINE_RECORD, MAP_RECORD, MAX_MEANINGS, SPAN_RECORD, Term } from './format';

const LF = 0x0a;

/** The raw bytes around the span a run was just told of: a span's terminator is read from them. */
export interface RawBytes {
  /** The byte at raw offset `abs`, or -1 when it is not at hand. */
  byteAt(abs: number): number;
}

/**
 * The numbers of meanings in an index's table: in order of first appearance, or (a replay) the
 * index's own table, where a meaning it does not hold is a sign the raw file changed.
 */
export class MeaningTable {
  readonly meanings: string[];
  private readonly ids: Map<string, number>;

  constructor(initial: readonly string[] = []) {
    this.meanings = [...initial];
    this.ids = new Map(initial.map((m, i) => [m, i]));
  }

  id(meaning: string): number {
    let id = this.ids.get(meaning);
    if (id === undefined) {
      if (this.meanings.length >= MAX_MEANINGS) throw new Error('too many distinct span meanings for the index format');
      id = this.meanings.length;
      this.meanings.push(meaning);
      this.ids.set(meaning, id);
    }
    return id;
  }
}

/** Span records (SPAN_RECORD bytes each, format.ts), one per span the Sanitizer reports. */
export class SpanColumn {
  spans = 0;
  /** Span ends never decreased so far (the queries' binary searches rely on it). */
  endsOrdered = true;
  private lastEnd = 0;
  private lastMeaning = '';
  private lastId = -1;

  /**
   * `base`: raw offset of the run's first byte (its Sanitizer counts from 0). `countOnly`: write
   * nothing, count the records' bytes (a replay that keeps no spans: its marks are still checked).
   * `onStart`: told where each span begins (a minimap counting spans one by one).
   */
  constructor(
    private readonly out: ColumnWriter,
    private readonly base: number,
    private readonly raw: RawBytes,
    readonly table: MeaningTable,
    private readonly countOnly = false,
    private readonly onStart?: (cls: number, offset: number) => void,
  ) {}

  /** Each span, as the Sanitizer's onSpan hook has it. */
  readonly add = (cls: SpanClass, offset: number, length: number, meaning: string, flags: number, code: number): void => {
    offset += this.base;
    let id = this.lastId;
    if (meaning !== this.lastMeaning) {
      id = this.lastId = this.table.id(meaning);
      this.lastMeaning = meaning;
    }
    const out = this.out;
    this.spans++;
    if (this.countOnly) {
      out.reserve(SPAN_RECORD);
      return;
    }
    const term = cls >= SpanClass.Esc && cls <= SpanClass.Sos ? this.terminator(cls, offset + length, flags, code) : Term.None;
    const at = out.reserve(SPAN_RECORD);
    const f = at >> 3;
    out.f64[f] = offset;
    out.f64[f + 1] = length;
    out.i32[(at + 16) >> 2] = code > 0x7fffffff ? 0x7fffffff : code;
    out.u16[(at + 20) >> 1] = id | (term << 12);
    out.u8[at + 22] = cls;
    out.u8[at + 23] = flags;
    this.onStart?.(cls, offset);
    if (offset + length < this.lastEnd) this.endsOrdered = false;
    else this.lastEnd = offset + length;
  };

  /** How a sequence or string that ends at raw `end` ended (format.ts Term). */
  private terminator(cls: number, end: number, flags: number, code: number): Term {
    const raw = this.raw;
    if (flags & SpanFlag.Unterminated) return Term.Eof;
    const last = raw.byteAt(end - 1);
    if (cls === SpanClass.Esc || cls === SpanClass.Csi) {
      if (code !== 0 && last === code) return Term.Final;
      return interruption(raw.byteAt(end));
    }
    if (last === 0x5c && raw.byteAt(end - 2) === 0x1b) return Term.St;
    if (flags & SpanFlag.Malformed) {
      const why = interruption(raw.byteAt(end));
      if (why !== Term.Interrupted) return why;
    }
    if (cls === SpanClass.Osc && last === 0x07) return Term.Bel;
    if (last === 0x9c) return Term.C1St;
    return interruption(raw.byteAt(end));
  }
}

/** Spans a tally's log holds before they are counted. */
const TALLY_ENTRIES = 1 << 12;

/**
 * Spans only counted, not written (a run whose pages are replayed on demand): the Sanitizer
 * records them into {@link log} (its bulk span channel, no call per span), and each is told to
 * `onStart` where it begins as the log drains.
 */
export class SpanTally {
  readonly log: SpanLog;
  private drained = 0;

  /** `base`: raw offset of the run's first byte (its Sanitizer counts from 0). */
  constructor(private readonly base: number, private readonly onStart?: (cls: number, offset: number) => void) {
    this.log = {
      start: new Float64Array(TALLY_ENTRIES),
      length: new Float64Array(TALLY_ENTRIES),
      kind: new Int32Array(TALLY_ENTRIES),
      n: 0,
      drain: () => this.drain(),
    };
  }

  /** Spans reported so far. */
  get spans(): number {
    return this.drained + this.log.n;
  }

  /** Counts the spans in the log (their starts to `onStart`) and empties it. */
  drain(): void {
    const log = this.log;
    const onStart = this.onStart;
    if (onStart !== undefined) for (let k = 0; k < log.n; k++) onStart(log.kind[k] & 15, log.start[k] + this.base);
    this.drained += log.n;
    log.n = 0;
  }
}

/** Why a sequence stopped before its grammar ended it, from the byte after it. */
function interruption(next: number): Term {
  if (next === 0x18) return Term.Can;
  if (next === 0x1a) return Term.Sub;
  if (next === 0x1b) return Term.Esc;
  if ((next >= 0x80 && next <= 0x9f) || next === 0xc2) return Term.C1;
  return Term.Interrupted;
}

/** Streams the offset map's segments (MAP_RECORD bytes each) with the OffsetMap's own coalescing rule. */
export class MapColumn {
  has = false;
  tStart = 0;
  rStart = 0;
  rLen = 0;
  kind = 0;
  textEnd = 0;
  count = 0;
  monotonic = true;
  /** Added to the text offsets written (a replay's: its Sanitizer counts text from 0). */
  tShift = 0;
  /** No span or stretch was reported since the last segment came (see Snap.neutral). */
  quiet = false;
  /**
   * A run whose spans are only counted: the span total when the last segment came, so a span
   * since then is seen at a boundary ({@link isQuiet}) without a callback.
   */
  counter: { readonly spans: number } | null = null;
  spansAtAdd = 0;
  /** Raw start of the last segment that began before the one closed before it (`monotonic` from there on), or -1. */
  brokenAt = -1;

  /** `rawBase`: raw offset of the run's first byte (its Sanitizer counts from 0). */
  constructor(private readonly out: ColumnWriter, private readonly rawBase = 0) {}

  /** Each segment, as the Sanitizer's onSegment hook has it. */
  readonly add = (textPos: number, textLen: number, rawPos: number, rawLen: number, kind: SegmentKind): void => {
    this.quiet = true;
    if (this.counter !== null) this.spansAtAdd = this.counter.spans;
    rawPos += this.rawBase;
    if (this.has && kind === SegmentKind.Verbatim && this.kind === SegmentKind.Verbatim
      && this.rStart + this.rLen === rawPos && this.textEnd === textPos) {
      this.rLen += rawLen;
      this.textEnd += textLen;
      return;
    }
    this.begin(textPos, rawPos, rawLen, kind);
    this.textEnd = textPos + textLen;
  };

  /** Closes the open segment (if any) and opens this one: what `add` does for a segment it cannot merge. */
  private begin(textPos: number, rawPos: number, rawLen: number, kind: SegmentKind): void {
    if (this.has) {
      if (rawPos < this.rStart) {
        this.monotonic = false;
        this.brokenAt = rawPos;
      }
      this.push();
    }
    this.has = true;
    this.tStart = textPos;
    this.rStart = rawPos;
    this.rLen = rawLen;
    this.kind = kind;
  }

  /** Nothing but text came since the last segment (Snap.neutral's `quiet`). */
  get isQuiet(): boolean {
    return this.quiet && (this.counter === null || this.counter.spans === this.spansAtAdd);
  }

  /** Segments written plus the one still open. */
  get segments(): number {
    return this.count + (this.has ? 1 : 0);
  }

  /** The open segment ends at raw `rawEnd` and text `textEnd`: a verbatim run there would extend it. */
  mergeableAt(rawEnd: number, textEnd: number): boolean {
    return this.has && this.kind === SegmentKind.Verbatim && this.rStart + this.rLen === rawEnd && this.textEnd === textEnd;
  }

  finish(): void {
    if (this.has) this.push();
    this.has = false;
  }

  private push(): void {
    const at = this.out.reserve(MAP_RECORD) >> 3;
    const f = this.out.f64;
    f[at] = this.tStart + this.tShift;
    f[at + 1] = this.rStart;
    f[at + 2] = this.kind === SegmentKind.Replaced ? -this.rLen : this.rLen;
    this.count++;
  }
}

/** Display line starts (LINE_RECORD bytes each): after every LF, and a cut (at a character start) every `max` bytes. */
export class LineColumn {
  pos = 0;
  lineStart = 0;
  pending = 0;
  seekCut = false;
  count = 0;
  /** Added to the text offsets written (a replay's). */
  shift = 0;

  constructor(private readonly out: ColumnWriter, private readonly max: number) {}

  scan(t: Uint8Array): void {
    const n = t.length;
    const buf = Buffer.from(t.buffer, t.byteOffset, n);
    const base = this.pos;
    let i = 0;
    while (i < n) {
      if (this.pending >= 0) {
        this.push(this.pending);
        this.lineStart = this.pending;
        this.pending = -1;
      }
      if (this.seekCut) {
        while (i < n && (t[i] & 0xc0) === 0x80) i++;
        if (i === n) break;
        this.seekCut = false;
        if (t[i] === LF) {
          i++;
          this.pending = base + i;
        } else {
          this.pending = base + i;
        }
        continue;
      }
      const cutAt = this.lineStart + this.max - base;
      const lf = buf.indexOf(LF, i);
      const stop = lf < 0 ? n : lf;
      if (cutAt <= stop) {
        i = Math.max(cutAt, i);
        this.seekCut = true;
        continue;
      }
      if (lf < 0) break;
      i = lf + 1;
      this.pending = base + i;
    }
    this.pos = base + n;
  }

  /**
   * What decides the line starts of the text still to come: a line start waiting (-1), else the
   * bytes since the current line began (the next cut is `max` bytes after its start).
   */
  get key(): number {
    return this.pending >= 0 ? -1 : this.pos - this.lineStart;
  }

  /** `nonEmpty`: the artifact had bytes, so it shows at least one (maybe empty) line. */
  finish(nonEmpty: boolean): void {
    if (this.count === 0 && nonEmpty) this.push(0);
  }

  private push(textOffset: number): void {
    // reserve first: a flush may put a new buffer (and views) in place.
    const at = this.out.reserve(LINE_RECORD) >> 3;
    this.out.f64[at] = textOffset + this.shift;
    this.count++;
  }
}
