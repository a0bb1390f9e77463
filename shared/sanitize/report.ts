import { INVISIBLE_KIND_NAMES, invisibleKind } from '../parser/invisible';
import type { ParserLimits } from '../parser/limits';
import { SPAN_CLASS_COUNT, SPAN_CLASS_NAMES, SpanClass, SpanFlag, StretchFlag, type SpanClassName } from '../parser/span-class';

/** How CR and BS were rendered; see {@link SanitizerOptions.cr}. */
export type CrMode = 'newline' | 'overwrite';

/** Count and spanned raw bytes of one span class. */
export interface ClassCount {
  count: number;
  bytes: number;
}

/**
 * The removal report: what the sanitizer removed or replaced, by class and meaning. It holds
 * counts, sizes, limits and the raw digest only, never a payload byte, because echoing a removed
 * payload would re-introduce the danger. Field names are snake_case: the report is a JSON contract.
 */
export interface RemovalReport {
  version: 1;
  /** Raw bytes read. */
  input_bytes: number;
  /** Raw bytes copied verbatim into the text. */
  kept_bytes: number;
  /** Raw bytes not copied verbatim (removed or replaced). */
  removed_bytes: number;
  /** Bytes of sanitized UTF-8 text produced. */
  text_bytes: number;
  /** sha256 of the raw bytes read, when the platform supplied a digest. */
  sha256: string | null;
  /** The input was cut at a byte cap before its end (set by the caller that enforces the cap). */
  truncated: boolean;
  cr_mode: CrMode;
  /** Spans removed (controls, sequences, strings, invalid subparts, invisible code points). */
  removed_spans: number;
  /** Per class; `bytes` counts raw bytes a span covers (a control executed inside a CSI counts in both). */
  classes: Record<SpanClassName, ClassCount>;
  /** Per meaning, keyed `class: meaning`; meanings come from fixed tables, never from input. */
  meanings: Record<string, number>;
  unterminated: number;
  oversized: number;
  malformed: number;
  /** Sequences introduced by a C1 control instead of ESC. */
  eight_bit: number;
  /** Maximal ill-formed UTF-8 subparts, each replaced by U+FFFD (stray C1 bytes included). */
  invalid_utf8: number;
  /** Raw 0x80–0x9F bytes outside a character: C1 controls to an 8-bit terminal only (flag `Stray`). */
  stray_c1: number;
  /** Invisible code points removed, by kind. */
  invisible: InvisibleCounts;
  /**
   * Characters the text shows as the terminals draw them rather than as their bytes: ASCII in a
   * character set every terminal reading draws alike (DEC line drawing), and characters a REP
   * repeats. `count` characters, `bytes` of text made for them.
   */
  drawn: { count: number; bytes: number };
  /**
   * Stretches where the terminal readings (tmux, libvterm, xterm.js, and an 8-bit VT500 reading of
   * raw C1 bytes) disagreed (one saw text or a control where another saw payload or another
   * sequence, or they draw a character differently): `count`, and the raw `bytes` they span.
   * Text not every reading showed as text there is withheld (class `withheld`).
   * `withheld_to_end`: the readings disagreed, or a sequence or string was open, at the end of
   * input, so nothing from `withheld_from` (a raw offset) on reached the text.
   */
  ambiguous: { count: number; bytes: number };
  withheld_to_end: boolean;
  withheld_from: number | null;
  /**
   * What the line rules did: CR and BS, line-moving controls (`move_to_newline`), moves along the
   * line (`move_to_space`), moves merged or dropped (`move_dropped`), and in overwrite mode moves
   * and erases applied and cells withheld (an insert/delete too long to shift, or a line the
   * readings disagree about).
   */
  line_control: LineControl;
  limits: { max_csi_param_bytes: number; max_string_bytes: number; max_esc_intermediates: number };
}

/** Invisible code points removed, by kind (see the README's "Invisible code points"). */
export type InvisibleCounts = Record<(typeof INVISIBLE_KIND_NAMES)[number], number>;

/** Counters of the line rules; see {@link RemovalReport.line_control}. */
export interface LineControl {
  cr_to_newline: number; cr_dropped: number; cr_applied: number; bs_dropped: number; bs_applied: number;
  move_to_newline: number; move_to_space: number; move_dropped: number; move_applied: number;
  erase_applied: number; cells_withheld: number;
}

/** The count of one (class, meaning), and its number (for consumers that key spans by meaning). */
interface MeaningCounter {
  n: number;
  readonly id: number;
}

/** Accumulates a {@link RemovalReport} from parser spans. */
export class ReportBuilder {
  private readonly counts = new Float64Array(SPAN_CLASS_COUNT);
  private readonly bytes = new Float64Array(SPAN_CLASS_COUNT);
  /** One map per class so the hot path needs no string building. */
  private readonly meanings = SPAN_CLASS_NAMES.map(() => new Map<string, MeaningCounter>());
  /** The meaning of each counter, by its number. */
  private readonly meaningById: string[] = [];
  /** Numbers given out before their counters exist (see {@link reserveMeaning}), per class. */
  private readonly reserved = SPAN_CLASS_NAMES.map(() => new Map<string, number>());
  /** The counter of the last meaning seen: runs of one meaning (SGR after SGR) skip the map. */
  private lastMeaning = '';
  private lastClass = -1;
  private lastCounter: MeaningCounter = { n: 0, id: -1 };
  /** The counter before the last one: spans of two kinds in turn (BEL, BS, BEL, …) hit one of the two. */
  private prevMeaning = '';
  private prevClass = -1;
  private prevCounter: MeaningCounter = { n: 0, id: -1 };
  private unterminated = 0;
  private oversized = 0;
  private malformed = 0;
  private eightBit = 0;
  private stray = 0;
  private readonly invisible = new Float64Array(INVISIBLE_KIND_NAMES.length);
  private stretches = 0;
  private stretchBytes = 0;
  private drawnCount = 0;
  private drawnBytes = 0;
  private withheldFrom = -1;
  /** Mutable counters the sanitizer's line rules update directly. */
  readonly lineControl: LineControl = {
    cr_to_newline: 0, cr_dropped: 0, cr_applied: 0, bs_dropped: 0, bs_applied: 0,
    move_to_newline: 0, move_to_space: 0, move_dropped: 0, move_applied: 0, erase_applied: 0, cells_withheld: 0,
  };

  /** The number of the last span's (class, meaning) counter: numbered 0, 1, … as they first come. */
  get lastMeaningId(): number {
    return this.lastCounter.id;
  }

  /** The meaning of counter number `id` (see {@link lastMeaningId}). */
  meaningOf(id: number): string {
    return this.meaningById[id];
  }

  /** How many (class, meaning) counters there are: their numbers are below this. */
  get meaningCount(): number {
    return this.meaningById.length;
  }

  /**
   * The number the counter of `meaning` in class `cls` has, or will have once a span of it is
   * recorded (the report lists only meanings that occurred): for spans recorded elsewhere first.
   */
  reserveMeaning(cls: SpanClass, meaning: string): number {
    const known = this.meanings[cls].get(meaning)?.id ?? this.reserved[cls].get(meaning);
    if (known !== undefined) return known;
    const id = this.meaningById.push(meaning) - 1;
    this.reserved[cls].set(meaning, id);
    return id;
  }

  /** A new counter for a class's meaning, numbered next (or as reserved). */
  private counter(cls: SpanClass, meaning: string): MeaningCounter {
    let id = this.reserved[cls].get(meaning);
    if (id === undefined) id = this.meaningById.push(meaning) - 1;
    const counter = { n: 0, id };
    this.meanings[cls].set(meaning, counter);
    return counter;
  }

  /** Spans recorded so far by class, into `into[cls]`. */
  classCounts(into: Float64Array): void {
    into.set(this.counts);
  }

  /** Records one removed span. */
  add(cls: SpanClass, length: number, meaning: string, flags: number, code: number): void {
    this.counts[cls]++;
    this.bytes[cls] += length;
    if (meaning !== this.lastMeaning || cls !== this.lastClass) {
      // Two counters kept at hand, the map only for a third kind: swap the last two.
      let counter = this.prevCounter;
      if (meaning !== this.prevMeaning || cls !== this.prevClass) {
        const byMeaning = this.meanings[cls];
        counter = byMeaning.get(meaning) ?? this.counter(cls, meaning);
      }
      this.prevMeaning = this.lastMeaning;
      this.prevClass = this.lastClass;
      this.prevCounter = this.lastCounter;
      this.lastMeaning = meaning;
      this.lastClass = cls;
      this.lastCounter = counter;
    }
    this.lastCounter.n++;
    if (flags !== 0) {
      if (flags & SpanFlag.Unterminated) this.unterminated++;
      if (flags & SpanFlag.Oversized) this.oversized++;
      if (flags & SpanFlag.Malformed) this.malformed++;
      if (flags & SpanFlag.EightBit) this.eightBit++;
      if (flags & SpanFlag.Stray) this.stray++;
    }
    if (cls === SpanClass.Invisible) this.invisible[invisibleKind(code)]++;
  }

  /** Records `count` unflagged spans of one class and meaning spanning `bytes` raw bytes in all. */
  addMany(cls: SpanClass, count: number, bytes: number, meaning: string): void {
    if (count === 0) return;
    this.counts[cls] += count;
    this.bytes[cls] += bytes;
    const byMeaning = this.meanings[cls];
    (byMeaning.get(meaning) ?? this.counter(cls, meaning)).n += count;
  }

  /** One character drawn as a glyph of `textBytes` bytes (see {@link RemovalReport.drawn}). */
  drawn(textBytes: number): void {
    this.drawnCount++;
    this.drawnBytes += textBytes;
  }

  /** Nothing from raw `offset` on reached the text (a span open at end of input). */
  withheldToEnd(offset: number): void {
    if (this.withheldFrom < 0 || offset < this.withheldFrom) this.withheldFrom = offset;
  }

  /** Records one ambiguous stretch (see {@link ParserSink.ambiguous}). */
  ambiguous(offset: number, length: number, flags: number): void {
    this.stretches++;
    this.stretchBytes += length;
    if (flags & StretchFlag.ToEnd) this.withheldToEnd(offset);
  }

  /** The report for a stream of `inputBytes` of which `keptBytes` were copied verbatim. */
  build(fields: { inputBytes: number; keptBytes: number; textBytes: number; sha256: string | null; truncated: boolean; cr: CrMode; limits: ParserLimits }): RemovalReport {
    const classes = {} as Record<SpanClassName, ClassCount>;
    let spans = 0;
    SPAN_CLASS_NAMES.forEach((name, i) => {
      classes[name] = { count: this.counts[i], bytes: this.bytes[i] };
      spans += this.counts[i];
    });
    const entries: [string, number][] = [];
    this.meanings.forEach((byMeaning, cls) => {
      for (const [meaning, counter] of byMeaning) entries.push([`${SPAN_CLASS_NAMES[cls]}: ${meaning}`, counter.n]);
    });
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const meanings = Object.fromEntries(entries);
    const limits = fields.limits;
    return {
      version: 1,
      input_bytes: fields.inputBytes,
      kept_bytes: fields.keptBytes,
      removed_bytes: fields.inputBytes - fields.keptBytes,
      text_bytes: fields.textBytes,
      sha256: fields.sha256,
      truncated: fields.truncated,
      cr_mode: fields.cr,
      removed_spans: spans,
      classes,
      meanings,
      unterminated: this.unterminated,
      oversized: this.oversized,
      malformed: this.malformed,
      eight_bit: this.eightBit,
      invalid_utf8: this.counts[SpanClass.InvalidUtf8],
      stray_c1: this.stray,
      invisible: Object.fromEntries(INVISIBLE_KIND_NAMES.map((k, i) => [k, this.invisible[i]])) as InvisibleCounts,
      drawn: { count: this.drawnCount, bytes: this.drawnBytes },
      ambiguous: { count: this.stretches, bytes: this.stretchBytes },
      withheld_to_end: this.withheldFrom >= 0,
      withheld_from: this.withheldFrom >= 0 ? this.withheldFrom : null,
      line_control: { ...this.lineControl },
      limits: {
        max_csi_param_bytes: limits.maxCsiParamBytes,
        max_string_bytes: limits.maxStringBytes,
        max_esc_intermediates: limits.maxEscIntermediates,
      },
    };
  }
}
