import { SPAN_CLASS_NAMES, SpanFlag } from '../../../shared/parser/span-class';
import { GrowingSink, type ByteSink } from '../../../shared/hex';
import { wrapUtf8 } from '../../terminal/fit';
import { paintCell } from './paint';
import { kindClass, kindFlags, kindMeaning, type SpanGroups } from './span-groups';

/*
 * The annotation lines of `airlock inspect`. Under each row, in order of their first offsets:
 *
 *   `          ^ 00000036 csi             437 B  SGR select graphic rendition [oversized]`
 *   `          ^ 00000100 c0                3 B  3x BEL bell`
 *   `          ^ 00001330 c0                1 B each  8x BEL bell  (every 2 B to 0000133e)`
 *   `          ^ 00001330 c0                1 B each  3x BEL bell  (at 00001330 00001333 00001334)`
 *
 * a group (a span, or a run of equal adjacent spans: its count and whole length) under the row
 * where it starts; single spans alike in class, meaning, flags and length coalesce into one line
 * saying how many there are and where (evenly spaced: the stride and the last; else each offset).
 * Every piece of text is Airlock's own (offsets, counts, the parser's meaning tables): inert.
 * Lines are written as bytes (a dump of alternating BEL/BS has two per row), cut to the terminal
 * by wrapUtf8, the cut of every line Airlock prints.
 */

/** Digits of the offsets in annotation lines (the dump's offset column). */
const OFFSET_DIGITS = 8;
/** Lengths below this are right-aligned in a field of this many columns; longer ones are written as they are. */
const LENGTH_COLUMNS = 6;
const LENGTH_FIELD_MAX = 10 ** LENGTH_COLUMNS;
/** Line templates kept (a power of two). */
const TEMPLATE_SLOTS = 4096;
/** Buckets of a row looked up one by one; past this many, by key. */
const SCANNED_BUCKETS = 16;

/** Where the meanings of a span log's kinds come from: the sanitizer that records it. */
export interface SpanMeanings {
  spanMeaning(id: number): string;
  readonly spanMeaningCount: number;
}

/** Flag names for an annotation, e.g. `[unterminated, 8-bit]`; empty when no flag is set. */
export function flagLabel(flags: number): string {
  const names: string[] = [];
  if (flags & SpanFlag.Unterminated) names.push('unterminated');
  if (flags & SpanFlag.Oversized) names.push('oversized');
  if (flags & SpanFlag.Malformed) names.push('malformed');
  if (flags & SpanFlag.EightBit) names.push('8-bit');
  if (flags & SpanFlag.Utf8Encoded) names.push('UTF-8-encoded C1');
  if (flags & SpanFlag.Stray) names.push('raw byte outside UTF-8: C1 to 8-bit terminals only');
  return names.length > 0 ? `[${names.join(', ')}]` : '';
}

/** What begins every line: the offset column's width of spaces, `^` (painted in colour) and a space. */
function lineHead(color: boolean): string {
  return `${' '.repeat(OFFSET_DIGITS + 2)}${color ? paintCell('^', 'note') : '^'} `;
}

/** What begins each further visual row of a line cut to the terminal: under the offset column, `+ `. */
const LINE_CONTINUATION = `${' '.repeat(OFFSET_DIGITS + 2)}+ `;

const bytesOf = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const B = bytesOf(' B');
const TWO_SPACES = bytesOf('  ');
const TIMES = bytesOf('x ');
const EACH = bytesOf(' each  ');
const EVERY = bytesOf('  (every ');
const TO = bytesOf(' B to ');
const AT = bytesOf('  (at');
const DIGIT = bytesOf('0123456789abcdef');

/**
 * A line as written (and cut), to write again for another bucket of the same shape: a single
 * span or run (`count`), or evenly spaced spans (`count` of them, `gap` apart), of one kind and
 * length; only the offsets differ, whose digits (8: below 4 GiB) are at `start` and `last`. No
 * `bytes` yet: the shape was seen once.
 */
interface LineTemplate {
  kind: number;
  single: boolean;
  len: number;
  count: number;
  gap: number;
  bytes: Uint8Array | null;
  start: Int32Array;
  last: Int32Array;
}

const EMPTY = new Int32Array(0);

/** Writes `v` (below 2^32) in lowercase hex at the 8 positions `at` after `p`. */
function patchHex(buf: Uint8Array, p: number, at: Int32Array, v: number): void {
  let x = v >>> 0;
  const digit = DIGIT;
  for (let k = at.length - 1; k >= 0; k--) {
    buf[p + at[k]] = digit[x & 15];
    x >>>= 4;
  }
}

/** The bucket of single span `g` (its kind and length), when a row has too many buckets to look up one by one. */
const bucketKey = (groups: SpanGroups, g: number): string => `${groups.kind[g]}/${groups.length[g]}`;

/** Writes the annotation lines of the groups each row takes. */
export class AnnotationWriter {
  private readonly head: Uint8Array;
  private readonly continuation = bytesOf(LINE_CONTINUATION);
  /** The class column of each class: ` csi          ` (the name padded, a space either side). */
  private readonly classColumns = SPAN_CLASS_NAMES.map((name) => bytesOf(` ${name.padEnd(12)} `));
  /** A kind's meaning and flags, as the line ends with them. */
  private readonly whats = new Map<number, Uint8Array>();
  /** A line being built (when it is to be cut to the terminal, or made a template). */
  private line: Uint8Array = new Uint8Array(1024);
  /** Where a template's bytes went when it was cut (see wrapUtf8). */
  private placed = new Int32Array(1024);
  // A row's buckets: their first and last group, their size, the gap between their first two
  // groups, whether every gap is that; and each group's next in its bucket.
  private first = new Int32Array(64);
  private last = new Int32Array(64);
  private size = new Int32Array(64);
  private gap = new Float64Array(64);
  private even = new Uint8Array(64);
  private next = new Int32Array(64);
  private readonly byKey = new Map<string, number>();
  /** Lines written, as templates for the next of their shape. */
  private readonly templates = new Array<LineTemplate | undefined>(TEMPLATE_SLOTS);

  /** Lines for the groups that start in `[from, to)`, cut to `columns`. */
  constructor(private readonly meanings: SpanMeanings, color: boolean, private readonly columns: number, private readonly from: number, private readonly to: number) {
    this.head = bytesOf(lineHead(color));
  }

  /** Writes the lines of groups `[g0, g1)` (those a row took) to `out`. */
  write(out: ByteSink, groups: SpanGroups, g0: number, g1: number): void {
    const buckets = this.bucket(groups, g0, g1);
    for (let b = 0; b < buckets; b++) {
      if (this.fromTemplate(out, groups, b)) continue;
      const what = this.what(groups.kind[this.first[b]]);
      // Room for the line: its fixed parts, numbers, and each offset of an `at` list.
      const bound = this.head.length + what.length + 128 + this.size[b] * 16;
      if (this.columns === Infinity) {
        out.reserve(bound + 1);
        const end = this.build(out.buf, out.p, groups, b, g0, what);
        out.buf[end] = 0x0a;
        out.p = end + 1;
      } else {
        if (this.line.length < bound) this.line = new Uint8Array(bound * 2);
        wrapUtf8(this.line, 0, this.build(this.line, 0, groups, b, g0, what), this.columns, this.continuation, out);
      }
    }
  }

  /**
   * Writes bucket `b`'s line from the template of its kind, if it has one of this shape (all but
   * its offsets alike: the same text, cut alike); else makes one, if the line's form has one.
   */
  private fromTemplate(out: ByteSink, groups: SpanGroups, b: number): boolean {
    const g = this.first[b];
    const size = this.size[b];
    const single = size === 1;
    // A line with an `at` list, or an offset of more than 8 digits, is written as it is.
    if (!single && (size === 2 || this.even[b] === 0)) return false;
    const start = groups.start[g];
    const last = groups.start[this.last[b]];
    if (last >= 0x100000000) return false;
    const kind = groups.kind[g];
    const len = groups.length[g];
    const count = single ? groups.count[g] : size;
    const gap = single ? 0 : this.gap[b];
    // Templates are kept by a hash of their shape, one per slot.
    const slot = (Math.imul(Math.imul(Math.imul(kind, 0x9e3779b1) ^ len, 0x85ebca6b) ^ count, 0xc2b2ae35) ^ gap ^ (single ? 0 : 0x5bd1e995)) & (TEMPLATE_SLOTS - 1);
    const t = this.templates[slot];
    if (t === undefined || t.kind !== kind || t.len !== len || t.count !== count || t.gap !== gap || t.single !== single) {
      // A shape seen once is written as it is: the template is made when it comes again.
      if (t === undefined) {
        this.templates[slot] = { kind, single, len, count, gap, bytes: null, start: EMPTY, last: EMPTY };
      } else {
        t.kind = kind;
        t.single = single;
        t.len = len;
        t.count = count;
        t.gap = gap;
        t.bytes = null;
      }
      return false;
    }
    if (t.bytes === null) this.template(t, groups, b);
    const bytes = t.bytes!;
    out.reserve(bytes.length);
    const buf = out.buf;
    const p = out.p;
    buf.set(bytes, p);
    patchHex(buf, p, t.start, start);
    if (!single) patchHex(buf, p, t.last, last);
    out.p = p + bytes.length;
    return true;
  }

  /** Makes `t` the template of bucket `b`'s line: written (and cut) once, with where its offsets' digits went. */
  private template(t: LineTemplate, groups: SpanGroups, b: number): void {
    const g = this.first[b];
    const what = this.what(groups.kind[g]);
    const line = this.line.length >= this.head.length + what.length + 160 ? this.line : (this.line = new Uint8Array((this.head.length + what.length + 160) * 2));
    const end = this.build(line, 0, groups, b, 0, what);
    // The offsets' digits: the first right after the head; the last (`to` the last) closing the line.
    const start = new Int32Array(OFFSET_DIGITS);
    const last = new Int32Array(this.size[b] === 1 ? 0 : OFFSET_DIGITS);
    for (let k = 0; k < OFFSET_DIGITS; k++) start[k] = this.head.length + k;
    for (let k = 0; k < last.length; k++) last[k] = end - 1 - OFFSET_DIGITS + k;
    t.start = start;
    t.last = last;
    if (this.columns === Infinity) {
      line[end] = 0x0a;
      t.bytes = line.slice(0, end + 1);
      return;
    }
    const sink = new GrowingSink(end * 2 + 64);
    const placed = this.placed.length >= end ? this.placed : (this.placed = new Int32Array(end * 2));
    wrapUtf8(line, 0, end, this.columns, this.continuation, sink, placed);
    for (let k = 0; k < start.length; k++) start[k] = placed[start[k]];
    for (let k = 0; k < last.length; k++) last[k] = placed[last[k]];
    t.bytes = sink.buf.slice(0, sink.p);
  }

  /** Sorts groups `[g0, g1)` shown into buckets (a run alone; single spans alike and of one length together); returns how many. */
  private bucket(groups: SpanGroups, g0: number, g1: number): number {
    if (this.next.length < g1 - g0) this.grow(g1 - g0);
    const { start, length, count, kind } = groups;
    const { first, last, size, gap, even, next } = this;
    let keyed = false;
    let n = 0;
    for (let g = g0; g < g1; g++) {
      const at = start[g];
      if (at < this.from || at >= this.to) continue;
      next[g - g0] = -1;
      const single = count[g] === 1;
      let b = -1;
      if (single && keyed) {
        b = this.byKey.get(bucketKey(groups, g)) ?? -1;
      } else if (single) {
        const k0 = kind[g];
        const len = length[g];
        for (let k = 0; k < n; k++) {
          const f = first[k];
          if (kind[f] === k0 && length[f] === len && count[f] === 1) {
            b = k;
            break;
          }
        }
      }
      if (b < 0) {
        first[n] = g;
        last[n] = g;
        size[n] = 1;
        even[n] = 1;
        if (single && keyed) this.byKey.set(bucketKey(groups, g), n);
        n++;
        if (!keyed && n > SCANNED_BUCKETS) {
          keyed = true;
          this.byKey.clear();
          for (let k = 0; k < n; k++) if (count[first[k]] === 1) this.byKey.set(bucketKey(groups, first[k]), k);
        }
        continue;
      }
      const d = at - start[last[b]];
      if (size[b] === 1) gap[b] = d;
      else if (d !== gap[b]) even[b] = 0;
      next[last[b] - g0] = g;
      last[b] = g;
      size[b]++;
    }
    return n;
  }

  /** Writes bucket `b`'s line (without LF) at `buf[p]`, which has room for it; returns its end. */
  private build(buf: Uint8Array, p: number, groups: SpanGroups, b: number, g0: number, what: Uint8Array): number {
    const g = this.first[b];
    const kind = groups.kind[g];
    const len = groups.length[g];
    const size = this.size[b];
    p = copy(buf, p, this.head);
    p = writeHex(buf, p, groups.start[g]);
    p = copy(buf, p, this.classColumns[kindClass(kind)]);
    p = writeDecimal(buf, p, len, len < LENGTH_FIELD_MAX ? LENGTH_COLUMNS : 0);
    p = copy(buf, p, B);
    if (size === 1) {
      p = copy(buf, p, TWO_SPACES);
      const count = groups.count[g];
      if (count > 1) {
        p = writeDecimal(buf, p, count, 0);
        p = copy(buf, p, TIMES);
      }
      return copy(buf, p, what);
    }
    p = copy(buf, p, EACH);
    p = writeDecimal(buf, p, size, 0);
    p = copy(buf, p, TIMES);
    p = copy(buf, p, what);
    if (size > 2 && this.even[b] === 1) {
      p = copy(buf, p, EVERY);
      p = writeDecimal(buf, p, this.gap[b], 0);
      p = copy(buf, p, TO);
      p = writeHex(buf, p, groups.start[this.last[b]]);
    } else {
      p = copy(buf, p, AT);
      for (let m = g; m >= 0; m = this.next[m - g0]) {
        buf[p++] = 0x20;
        p = writeHex(buf, p, groups.start[m]);
      }
    }
    buf[p++] = 0x29; // )
    return p;
  }

  /** The end of a kind's lines: its meaning, and its flags if any. */
  private what(kind: number): Uint8Array {
    let what = this.whats.get(kind);
    if (what === undefined) {
      const label = flagLabel(kindFlags(kind));
      what = bytesOf(`${this.meanings.spanMeaning(kindMeaning(kind))}${label ? ` ${label}` : ''}`);
      this.whats.set(kind, what);
    }
    return what;
  }

  private grow(n: number): void {
    const size = Math.max(n, this.next.length * 2);
    this.first = new Int32Array(size);
    this.last = new Int32Array(size);
    this.size = new Int32Array(size);
    this.gap = new Float64Array(size);
    this.even = new Uint8Array(size);
    this.next = new Int32Array(size);
  }
}

/** Copies `bytes` (a few) to `buf[p]`; returns the end. */
function copy(buf: Uint8Array, p: number, bytes: Uint8Array): number {
  for (let k = 0; k < bytes.length; k++) buf[p++] = bytes[k];
  return p;
}

/** Writes `v` in lowercase hex, at least {@link OFFSET_DIGITS} digits, at `buf[p]`; returns the end. */
function writeHex(buf: Uint8Array, p: number, v: number): number {
  if (v >= 0x100000000) {
    const text = v.toString(16);
    for (let k = 0; k < text.length; k++) buf[p++] = text.charCodeAt(k);
    return p;
  }
  // (Integer arithmetic below 2^32: a remainder of a double is a call.)
  let x = v >>> 0;
  const n = Math.max(OFFSET_DIGITS, x < 0x10 ? 1 : 8 - (Math.clz32(x) >> 2));
  const digit = DIGIT;
  for (let k = p + n - 1; k >= p; k--) {
    buf[k] = digit[x & 15];
    x >>>= 4;
  }
  return p + n;
}

/** Writes `v` in decimal, right-aligned in `field` columns (0: as it is), at `buf[p]`; returns the end. */
function writeDecimal(buf: Uint8Array, p: number, v: number, field: number): number {
  if (v >= 0x80000000) {
    const text = String(v).padStart(field);
    for (let k = 0; k < text.length; k++) buf[p++] = text.charCodeAt(k);
    return p;
  }
  let x = v | 0;
  let n = 1;
  for (let y = (x / 10) | 0; y > 0; y = (y / 10) | 0) n++;
  for (let k = n; k < field; k++) buf[p++] = 0x20;
  for (let k = p + n - 1; k >= p; k--) {
    const q = (x / 10) | 0;
    buf[k] = 0x30 + x - q * 10;
    x = q;
  }
  return p + n;
}
