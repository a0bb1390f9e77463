import { formatHexRows } from '../../../shared/hex';
import { HexRowWriter } from '../../../shared/hex/row-bytes';
import { utf8Width } from '../../node/fit';
import { ActiveSpans } from './active-spans';
import { AnnotationWriter } from './annotate';
import { AsciiRowWriter } from './ascii-rows';
import { ByteBuffer, type ByteOutput } from './bytes-out';
import { formatRow } from './row-text';
import { SimdLines } from './simd-lines';
import type { SpanQueue } from './span-queue';
import { asciiWidth, wrapAsciiLine, wrapBound } from './wrap-bytes';

/** Digits in the offset column: enough for 4 GiB; longer offsets widen the column. */
export const OFFSET_DIGITS = 8;

/**
 * Rows wait until this many bytes after them have been parsed, so the spans that start in a row
 * and end within that distance (nearly all of them) are known when it is printed, and their
 * lines sit right under it. A span that ends later is annotated under the row where it became
 * known (an unterminated string: after the last row).
 */
const LAG = 32 * 1024;

/** Bytes held at first: a read of 1 MiB (the CLI's) and the bytes not yet shown before it. */
const HOLD_BYTES = (1 << 20) + 4 * LAG;

/** Annotation lines cut to a terminal continue under the offset column. */
const ANNOTATION_PAD = ' '.repeat(OFFSET_DIGITS + 2);
/** What begins each further row of a cut annotation line: the prefix `own` adds after {@link ANNOTATION_PAD}. */
const ANNOTATION_CONTINUATION = Uint8Array.from(`${ANNOTATION_PAD}+ `, (c) => c.charCodeAt(0));

/** How the dump is laid out. */
export interface DumpLayout {
  /** The shown range: `[offset, windowEnd)` of the stream (`windowEnd` may be Infinity). */
  readonly offset: number;
  readonly windowEnd: number;
  readonly width: number;
  /** Colour with Airlock's own SGR. */
  readonly color: boolean;
  /** Terminal width, or Infinity when output is not a terminal (rows then stay whole). */
  readonly columns: number;
  /**
   * Cuts one of Airlock's own lines to the terminal, `prefix+ ` starting each further row: wrapLine
   * (an annotation line of ASCII is cut on its bytes as wrapLine cuts it, see wrap-bytes.ts).
   */
  readonly own: (line: string, prefix: string) => string[];
  /** Tests only: false writes every annotated row in JavaScript (the definition SIMD lines are held to). */
  readonly simdLines?: boolean;
  /**
   * Tests only: false builds every row and annotation line of a terminal or colour dump as text
   * (the definition that rows of ASCII from a table, and lines copied when they fit, are held to).
   */
  readonly asciiRows?: boolean;
}

/**
 * The annotated hex dump, fed the stream as it is parsed. It keeps the bytes not yet shown (and
 * the 3 before them, for UTF-8), shows each row once {@link LAG} more bytes are parsed, and puts
 * under it the lines of the spans that start before its end.
 *
 * Not on a terminal and without colour (the bulk case: a dump saved to a file or piped to a
 * pager), rows and annotations are written as bytes straight into the output buffer. On a
 * terminal or with colour, rows are coloured per span and cut to the terminal's width: rows of
 * ASCII are written as bytes (AsciiRowWriter; those no colour reaches that fit, as in the bulk
 * case), any other row is built as text (formatRow, the definition both are held to).
 */
export class Dump {
  private hold: Uint8Array;
  /** Stream offset of `hold[0]`; `hold[0..holdLen)` are the bytes up to `fed`. */
  private holdAt = 0;
  private holdLen = 0;
  private fed = 0;
  /** Stream offset up to which rows are shown (and spans taken). */
  private pos = 0;
  private started = false;
  private readonly rows: HexRowWriter;
  private readonly notes: AnnotationWriter;
  /** Rows as bytes (not a terminal, no colour). */
  private readonly fast: boolean;
  /** Colour: spans taken that may still colour bytes of rows to come. */
  private readonly active = new ActiveSpans();
  /** On a terminal, annotation lines are gathered here and cut to its width. */
  private readonly scratch = new ByteBuffer(4096);
  /** The bulk case in the SIMD layout: rows and their single-span lines planned for one SIMD call, or null. */
  private readonly lines: SimdLines | null = null;
  /** On a terminal or in colour: rows of ASCII bytes written from a table, or null (tests of the text rows). */
  private readonly ascii: AsciiRowWriter | null;

  constructor(private readonly queue: SpanQueue, private readonly out: ByteOutput, private readonly layout: DumpLayout) {
    this.rows = new HexRowWriter(layout.width, OFFSET_DIGITS);
    this.notes = new AnnotationWriter(layout.offset, layout.windowEnd, layout.color);
    this.fast = !layout.color && layout.columns === Infinity;
    this.ascii = this.fast || layout.asciiRows === false ? null : new AsciiRowWriter(layout.width, OFFSET_DIGITS, layout.color, layout.columns);
    // The bytes held and, in the bulk case, the output live where the row writer can write rows
    // without copying (its SIMD memory, in the default layout): room for a 1 MiB read and the lag.
    this.hold = this.rows.allocate(HOLD_BYTES);
    // Rows on a terminal or in colour that no colour reaches are written as the bulk case writes them.
    if (this.fast || this.ascii !== null) out.adopt(this.rows.allocate(out.buf.length));
    if (this.fast && layout.simdLines !== false) this.lines = SimdLines.create(this.rows, this.notes, this.hold);
  }

  /** Keeps the next parsed bytes of the stream (the caller's array is not kept). */
  append(chunk: Uint8Array): void {
    if (this.holdLen + chunk.length > this.hold.length) {
      // Only the bytes from 3 before the next row on are still needed.
      const keep = Math.max(this.holdAt, this.pos - 3);
      const drop = keep - this.holdAt;
      const live = this.holdLen - drop;
      if (live + chunk.length > this.hold.length) {
        const bigger = this.rows.allocate(Math.max(this.hold.length * 2, live + chunk.length));
        bigger.set(this.hold.subarray(drop, this.holdLen));
        this.hold = bigger;
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
   * (the input ended and every span is known) all of them, then every span left.
   */
  async advance(final: boolean): Promise<void> {
    const { offset, windowEnd, width } = this.layout;
    const limit = final ? Infinity : this.fed - LAG;
    if (this.pos < offset) {
      // Before the range: nothing is shown, spans are only taken (to colour rows they reach).
      const to = Math.min(offset, this.fed);
      if (to > this.pos) {
        this.pos = to;
        this.takeSpans(to, to);
      }
      if (this.pos < offset) return;
    }
    if (this.fast) await this.fastRows(limit, final);
    while (!this.fast && this.pos < windowEnd) {
      const at = this.pos;
      let rowEnd = Math.min(at + width, windowEnd);
      if (rowEnd > limit) break;
      if (rowEnd > this.fed) rowEnd = this.fed;
      if (rowEnd <= at) break;
      const i = at - this.holdAt;
      if (this.ascii !== null && rowEnd - at === width && this.plainRows(at, i, limit, final)) {
        if (this.out.full) await this.out.flush();
        continue;
      }
      const from = this.queue.head;
      const to = this.queue.take(rowEnd);
      this.slowRow(i, rowEnd - at, at, from, to);
      this.pos = rowEnd;
      if (this.out.full) await this.out.flush();
    }
    if (this.pos >= windowEnd || final) {
      // Past the range (or at the end): spans are taken as they come, so memory stays flat.
      if (this.pos >= windowEnd) this.pos = Math.max(this.pos, this.fed);
      this.takeSpans(final ? Infinity : this.pos, this.pos);
      if (this.out.full) await this.out.flush();
    }
  }

  /** The rows up to `limit` as bytes: the bulk case, kept to a tight loop. */
  private async fastRows(limit: number, final: boolean): Promise<void> {
    const { windowEnd, width } = this.layout;
    const { out, rows, queue, hold, holdAt, holdLen, fed, lines } = this;
    const flushAt = out.flushAt;
    lines?.forget();
    let at = this.pos;
    while (at < windowEnd) {
      let rowEnd = at + width < windowEnd ? at + width : windowEnd;
      if (rowEnd > limit) break;
      if (rowEnd > fed) rowEnd = fed;
      if (rowEnd <= at) break;
      const i = at - holdAt;
      if (!this.started) {
        this.started = true;
        rows.begin(hold, i, at, holdLen, final);
      }
      const next = queue.head < queue.length ? queue.start[queue.head] : Infinity;
      if (rowEnd - at === width && next >= rowEnd + width && rowEnd + width <= limit && rowEnd + width <= fed && rowEnd + width <= windowEnd) {
        // A stretch of full rows before the next span's row: written in one call, as far as the
        // output buffer has room (it is written out when full, as after any row).
        out.reserve(rows.maxRowBytes * 2);
        const room = Math.floor((out.buf.length - out.p) / rows.maxRowBytes);
        const stop = Math.min(next, limit, fed, windowEnd, at + room * width);
        const count = Math.floor((stop - at) / width);
        out.p = rows.writeRows(out.buf, out.p, hold, i, width, count, at, holdLen, final);
        at += count * width;
      } else {
        // (A row whose first span starts a series, BEL, BS, … as in every row of BEL/BS input, is
        // JavaScript's: known here with one load, without a call.)
        if (lines !== null && rowEnd - at === width && (next >= rowEnd || queue.members[queue.head] === 1) && this.notedRows(at, i, limit)) {
          at = this.pos;
          if (out.p >= flushAt) await out.flush();
          continue;
        }
        out.reserve(rows.maxRowBytes);
        out.p = rows.writeRow(out.buf, out.p, hold, i, rowEnd - at, at, holdLen, final);
        // The spans that start before the row's end, annotated under it.
        if (queue.head < queue.length && queue.start[queue.head] < rowEnd) {
          const from = queue.head;
          this.notes.write(queue, from, queue.take(rowEnd), out);
        }
        at = rowEnd;
      }
      if (out.p >= flushAt) {
        this.pos = at;
        await out.flush();
      }
    }
    this.pos = at;
  }

  /**
   * Rows from `at` (`hold[i]`) with their single-span lines in one SIMD call, as far as a plan
   * reaches (see SimdLines); returns whether any row was written, leaving {@link pos} after them.
   */
  private notedRows(at: number, i: number, limit: number): boolean {
    const { out, rows, queue, layout } = this;
    const lines = this.lines as SimdLines;
    const stop = Math.min(limit, this.fed, layout.windowEnd);
    const count = Math.floor((stop - at) / layout.width);
    if (count <= 0) return false;

    const room = out.buf.length - out.p;
    const planned = lines.plan(queue, at, count, room, layout.offset, layout.windowEnd);
    if (planned === 0) return false;
    const r = rows.writeNotedRows(out.buf, out.p, this.hold, i, planned, at, lines.entryAt, lines.entriesLeft, lines.poolAt, lines.dirAt, lines.lengthWordsAt);
    if (r < 0) return false;
    const written = Math.floor(r / 0x1_0000_0000);
    if (written === 0) return false;
    out.p = r - written * 0x1_0000_0000;
    this.pos = at + written * layout.width;
    // Their spans were annotated: taken from the queue.
    queue.take(this.pos);
    return true;
  }

  /**
   * On a terminal or in colour: the full rows from `at` (`hold[i]`) before the next span that no
   * colour reaches and that fit the terminal (see AsciiRowWriter.plainRows), written as the bulk
   * case writes them; returns whether any was, leaving {@link pos} after them.
   */
  private plainRows(at: number, i: number, limit: number, final: boolean): boolean {
    const { out, rows, queue, hold, holdLen, layout } = this;
    if (this.active.reaches(at)) return false;
    const next = queue.head < queue.length ? queue.start[queue.head] : Infinity;
    const stop = Math.min(next, limit, this.fed, layout.windowEnd);
    const fit = Math.floor((stop - at) / layout.width);
    const count = fit > 0 ? (this.ascii as AsciiRowWriter).plainRows(hold, i, fit, at) : 0;
    if (count === 0) return false;
    // The row writer's UTF-8 state is set afresh: rows before these were written elsewhere.
    rows.begin(hold, i, at, holdLen, final);
    out.reserve(rows.maxRowBytes * count);
    out.p = rows.writeRows(out.buf, out.p, hold, i, layout.width, count, at, holdLen, final);
    this.pos = at + count * layout.width;
    return true;
  }

  /** Takes the groups that start before `before` outside any row: annotates those in the range, keeps colours. */
  private takeSpans(before: number, keepFrom: number): void {
    const from = this.queue.head;
    const to = this.queue.take(before);
    this.annotate(from, to, true);
    if (this.layout.color) this.active.dropEnded(keepFrom);
  }

  /** The annotation lines of queue groups `[from, to)`, in the dump's mode; `activate`: keep their colours. */
  private annotate(from: number, to: number, activate: boolean): void {
    if (to <= from) return;
    if (activate && this.layout.color) for (let k = from; k < to; k++) this.active.pushGroup(this.queue, k);
    if (this.layout.columns === Infinity) {
      this.notes.write(this.queue, from, to, this.out);
      return;
    }
    const scratch = this.scratch;
    scratch.reset();
    this.notes.write(this.queue, from, to, scratch);
    // Line by line: one that fits the terminal is copied as it is (what `own` gives for it);
    // only a wider one is cut, as text.
    const { buf } = scratch;
    for (let start = 0; start < scratch.p; ) {
      const end = buf.indexOf(0x0a, start);
      const ascii = this.ascii !== null ? asciiWidth(buf, start, end) : -1;
      if (this.ascii !== null && (ascii >= 0 ? ascii : utf8Width(buf, start, end)) <= this.layout.columns) {
        this.out.reserve(end + 1 - start);
        buf.copy(this.out.buf, this.out.p, start, end + 1);
        this.out.p += end + 1 - start;
      } else if (ascii >= 0) {
        // A wider line of ASCII (all of Airlock's own but a few meanings) is cut on its bytes, as `own` cuts it.
        this.out.reserve(wrapBound(end - start, ANNOTATION_CONTINUATION));
        this.out.p = wrapAsciiLine(buf, start, end, this.layout.columns, ANNOTATION_CONTINUATION, this.out.buf, this.out.p);
      } else {
        for (const row of this.layout.own(buf.toString('utf8', start, end), ANNOTATION_PAD)) this.out.text(`${row}\n`);
      }
      start = end + 1;
    }
  }

  /** A row as text: coloured by span and cut to the terminal's width. */
  private slowRow(i: number, n: number, at: number, from: number, to: number): void {
    const { width, color, columns } = this.layout;
    const hold = this.hold;
    // Spans taken for this row colour it too; their lines follow it.
    if (color) {
      for (let k = from; k < to; k++) this.active.pushGroup(this.queue, k);
      this.active.dropEnded(at);
    }
    // A row of ASCII bytes that fits: written as bytes from a table (most rows of a log).
    if (this.ascii !== null && this.ascii.write(this.out, hold, i, n, at, this.active)) {
      this.annotate(from, to, false);
      return;
    }
    const ctx = Math.min(3, at);
    // Fewer than 3 bytes after the row only at the end of the input (rows wait LAG bytes otherwise).
    const lookahead = hold.subarray(i + n, Math.min(i + n + 3, this.holdLen));
    const [row] = formatHexRows(hold.subarray(i, i + n), at, { width, context: hold.subarray(i - ctx, i), lookahead });
    const active = this.active;
    const spanAt = (x: number) => active.classAt(x);
    for (const line of formatRow(row, { width, offsetDigits: OFFSET_DIGITS, color, columns, spanAt })) this.out.text(`${line}\n`);
    this.annotate(from, to, false);
  }
}
