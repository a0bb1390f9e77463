import { ASCII_CELLS, CELL_KINDS, CellCode, RowWriter, cellOfCode, decodeCells, type ByteSink, type CellKind } from '../../../shared/hex';
import { SPAN_CLASS_NAMES, type SpanClass } from '../../../shared/parser/span-class';
import type { SpanLog } from '../../../shared/sanitize';
import { AnnotationWriter, type SpanMeanings } from './annotations';
import { cellSgr, RESET } from './paint';
import { ActiveSpans, SpanGroups } from './span-groups';

/** Digits in the offset column: enough for 4 GiB; longer offsets widen the column. */
export const OFFSET_DIGITS = 8;

/**
 * Rows wait until this many bytes after them have been parsed, so the spans that start in a row
 * and end within that distance (nearly all of them) are known when it is printed, and their
 * lines sit right under it. A span that ends later is annotated under the row where it became
 * known (an unterminated string: after the last row).
 */
export const LAG = 32 * 1024;

/**
 * Bytes parsed between two advances: the dump shows rows after each FEED bytes. What it shows
 * depends on it (a span that completes after the row it starts in was shown goes under a later
 * row; a run ends where its first span's row was shown), so the dump is always fed this much.
 */
export const FEED = 32 * 1024;

/** Bytes of rows written in one go, at most (their text is gathered before it is written out). */
const STRETCH = 4096;

/** How the dump is laid out. */
export interface DumpLayout {
  /** The shown range: `[offset, windowEnd)` of the stream (`windowEnd` may be Infinity). */
  readonly offset: number;
  readonly windowEnd: number;
  /** Bytes per row. */
  readonly width: number;
  /** Colour with Airlock's own SGR. */
  readonly color: boolean;
  /** Terminal width, or Infinity when output is not a terminal (rows and lines then stay whole). */
  readonly columns: number;
}

/** Where the dump's text goes: bytes, written out when {@link full}. */
export interface DumpOutput extends ByteSink {
  readonly full: boolean;
  flush(): Promise<void>;
}

/** The colours of a coloured dump, numbered for the row writer (0: none). */
class Colours {
  readonly sgr: string[] = [''];
  /** Each ASCII byte's, outside spans. */
  readonly ascii = new Uint8Array(0x80);
  /** Each span class's, over the span's whole extent. */
  readonly span = new Uint8Array(SPAN_CLASS_NAMES.length);
  /** Each cell kind's outside spans (a continuation cell takes its lead's). */
  readonly kind = new Map<CellKind, number>();
  /** The colour of a cell of the Basic Multilingual Plane's lead bytes, by code point, as met (255: not yet). */
  private readonly bmpLead = new Uint8Array(0x10000).fill(255);

  constructor() {
    for (let b = 0; b < 0x80; b++) this.ascii[b] = this.number(cellSgr(ASCII_CELLS[b].kind, ASCII_CELLS[b].text, undefined));
    SPAN_CLASS_NAMES.forEach((_, cls) => {
      this.span[cls] = this.number(cellSgr('printable', 'x', cls as SpanClass));
    });
    for (const kind of CELL_KINDS) this.kind.set(kind, this.number(cellSgr(kind, 'x', undefined)));
  }

  /** The colour of the cell of `code` (not an ASCII byte's, nor a continuation). */
  of(code: number): number {
    const cp = code - CellCode.Lead;
    if (cp >= 0 && cp < 0x10000) {
      const known = this.bmpLead[cp];
      if (known !== 255) return known;
      return (this.bmpLead[cp] = this.kind.get(cellOfCode(code).kind)!);
    }
    return this.kind.get(cellOfCode(code).kind)!;
  }

  private number(sgr: string): number {
    const k = this.sgr.indexOf(sgr);
    return k >= 0 ? k : this.sgr.push(sgr) - 1;
  }
}

/**
 * The annotated hex dump of `airlock inspect`, fed the stream as it is parsed: {@link spans} is the
 * sanitizer's span log (and {@link meanings} the sanitizer), {@link append} keeps the bytes
 * parsed, {@link advance} shows the rows that are settled (those {@link LAG} bytes behind the
 * parser, or at the end all of them), each followed by the lines of the span groups that start
 * in it (annotations.ts); a row's bytes take the colour of the first group taken that holds them,
 * else their cell's. Before the range and past it, groups are taken as they come (they colour,
 * but get no lines); at the end, every group left.
 */
export class Dump {
  private readonly groups: SpanGroups;
  private readonly active = new ActiveSpans();
  private readonly rows: RowWriter;
  private readonly colours: Colours | null;
  private lines: AnnotationWriter | null = null;
  /** Bytes parsed and not yet shown (and the 3 before the next row): `hold[0]` is at stream offset `holdAt`. */
  private hold = new Uint8Array((1 << 20) + 2 * LAG);
  private holdAt = 0;
  private holdLen = 0;
  /** Stream offset of the end of what was fed, and of the rows shown so far. */
  private fed = 0;
  private pos = 0;
  /** Caret cells (and colours) of the bytes from `cellsAt` on, as decoded for the rows to show. */
  private codes = new Int32Array(0);
  private cellColours = new Uint8Array(0);
  private cellsAt = 0;
  /** The colour of the last cell shown, which a continuation cell at the next row's start takes. */
  private leadColour = 0;

  constructor(private readonly out: DumpOutput, private readonly layout: DumpLayout) {
    this.groups = new SpanGroups(layout.offset, layout.windowEnd);
    this.colours = layout.color ? new Colours() : null;
    this.rows = new RowWriter({
      width: layout.width,
      offsetDigits: OFFSET_DIGITS,
      escapeBar: true,
      columns: layout.columns,
      paint: this.colours === null ? undefined : { sgr: this.colours.sgr, reset: RESET },
    });
  }

  /** The span log for the sanitizer (SanitizerOptions.spanLog). */
  get spans(): SpanLog {
    return this.groups.log;
  }

  /** Where the span log's meanings come from: the sanitizer that records it. */
  set meanings(meanings: SpanMeanings) {
    const { color, columns, offset, windowEnd } = this.layout;
    this.lines = new AnnotationWriter(meanings, color, columns, offset, windowEnd);
  }

  /** Keeps the next parsed bytes of the stream (the caller's array is not kept). */
  append(chunk: Uint8Array): void {
    if (this.holdLen + chunk.length > this.hold.length) {
      // Only the bytes from 3 before the next row on are still needed.
      const keep = Math.max(this.holdAt, this.pos - 3);
      const drop = keep - this.holdAt;
      const live = this.holdLen - drop;
      if (live + chunk.length > this.hold.length) {
        const next = new Uint8Array(Math.max(this.hold.length * 2, live + chunk.length));
        next.set(this.hold.subarray(drop, this.holdLen));
        this.hold = next;
      } else {
        this.hold.copyWithin(0, drop, this.holdLen);
      }
      this.holdAt = keep;
      this.holdLen = live;
    }
    this.hold.set(chunk, this.holdLen);
    this.holdLen += chunk.length;
    this.fed += chunk.length;
  }

  /**
   * Shows the rows that are settled: those {@link LAG} bytes behind the parser, or with `final`
   * (the input ended and every span is known) all of them, then every group left.
   */
  async advance(final: boolean): Promise<void> {
    const { offset, windowEnd, width } = this.layout;
    const groups = this.groups;
    const lines = this.lines!;
    const out = this.out;
    groups.drain();
    const limit = final ? Infinity : this.fed - LAG;
    if (this.pos < offset) {
      const to = Math.min(offset, this.fed);
      if (to > this.pos) {
        this.pos = to;
        const g0 = groups.take(to);
        lines.write(out, groups, g0, groups.head);
        this.keep(g0, to);
      }
      if (this.pos < offset) return;
    }
    const shown = Math.min(windowEnd, final ? this.fed : limit);
    if (shown > this.pos) this.decode(this.pos, shown);
    while (this.pos < windowEnd) {
      const at = this.pos;
      let rowEnd = Math.min(at + width, windowEnd);
      if (rowEnd > limit) break;
      if (rowEnd > this.fed) rowEnd = this.fed;
      if (rowEnd <= at) break;
      // Whole rows that take no group (none starts before their end) go out together: no lines
      // come between them.
      const next = groups.head < groups.end ? groups.start[groups.head] : Infinity;
      const rows = Math.floor((Math.min(next, limit, windowEnd, this.fed, at + STRETCH) - at) / width);
      if (rows > 1) {
        const end = at + rows * width;
        this.keep(groups.head, at);
        const cell = at - this.cellsAt;
        if (this.colours !== null) this.paint(at, end, cell);
        this.rows.writeRows(out, at, this.hold, at - this.holdAt, end - at, this.codes, cell, this.colours === null ? undefined : this.cellColours);
        this.pos = end;
        if (out.full) await out.flush();
        continue;
      }
      const g0 = groups.take(rowEnd);
      this.keep(g0, at);
      const cell = at - this.cellsAt;
      if (this.colours !== null) this.paint(at, rowEnd, cell);
      this.rows.write(out, at, this.hold, at - this.holdAt, rowEnd - at, this.codes, cell, this.colours === null ? undefined : this.cellColours);
      lines.write(out, groups, g0, groups.head);
      this.pos = rowEnd;
      if (out.full) await out.flush();
    }
    if (this.pos >= windowEnd || final) {
      if (this.pos >= windowEnd) this.pos = Math.max(this.pos, this.fed);
      const g0 = groups.take(final ? Infinity : this.pos);
      lines.write(out, groups, g0, groups.head);
      this.keep(g0, this.pos);
    }
  }

  /** The groups from `g0` to those taken colour bytes from now on; those ending by `at` no longer (colour only). */
  private keep(g0: number, at: number): void {
    if (this.colours !== null) this.active.keep(this.groups, g0, this.groups.head, at);
  }

  /** Decodes the caret cells of the stream's bytes `[from, to)` (all held, with their neighbours). */
  private decode(from: number, to: number): void {
    const n = to - from;
    if (this.codes.length < n) {
      this.codes = new Int32Array(n);
      this.cellColours = new Uint8Array(n);
    }
    const i = from - this.holdAt;
    const context = this.hold.subarray(Math.max(0, i - 3), i);
    const lookahead = this.hold.subarray(to - this.holdAt, Math.min(to + 3, this.fed) - this.holdAt);
    decodeCells(this.hold.subarray(i, to - this.holdAt), from, { context, lookahead }, this.codes, 0);
    this.cellsAt = from;
  }

  /** Colours the cells of the row `[at, rowEnd)`, from cell `cell` on: their span's, else their kind's. */
  private paint(at: number, rowEnd: number, cell: number): void {
    const colours = this.colours!;
    const out = this.cellColours;
    let lead = this.leadColour;
    for (let k = 0; k < rowEnd - at; k++) {
      const b = this.hold[at - this.holdAt + k];
      if (b < 0x80) lead = colours.ascii[b];
      else if (this.codes[cell + k] !== CellCode.Continuation) lead = colours.of(this.codes[cell + k]);
      out[cell + k] = lead;
    }
    this.leadColour = lead;
    this.active.paint(at, rowEnd, out, cell, colours.span);
  }
}
