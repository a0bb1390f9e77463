import { writeHex8, writeHexNumber } from '../../../shared/hex/row-bytes';
import type { SpanClass } from '../../../shared/parser';
import type { ByteBuffer } from './bytes-out';
import { paintCell } from './paint';
import { className, flagLabel, type SpanQueue } from './span-queue';

/** Digits of the offsets in annotation lines (the dump's offset column). */
const OFFSET_DIGITS = 8;
const PAD = ' '.repeat(OFFSET_DIGITS + 2);

/** Kinds of line: what a template holds. */
const enum Kind {
  /** ` csi              19 B  SGR select graphic rendition\n`: all after the offset. */
  Single = 0,
  /** ` c0                1 B each  8x BEL bell  (every 2 B to `: the last offset and `)` follow. */
  Every = 1,
  /** ` c0                1 B each  3x BEL bell  (at`: ` OFFSET` per span and `)` follow. */
  At = 2,
}

/**
 * A span's length is written into its line's 6-column field, like the offset: the template is
 * shared by every length that fits (hostile input has OSC and CSI spans of many lengths; with the
 * length in the key, templates were rebuilt thousands of times per 16 MiB). Longer ones are in
 * the template's text (and key).
 */
const LENGTH_COLUMNS = 6;
const LENGTH_FIELD_MAX = 10 ** LENGTH_COLUMNS;

/** Template slots (direct-mapped by a hash of the key); a miss only rebuilds one template. */
const SLOTS = 4096;
const KEY_FIELDS = 7;

/** Fields per group in a row's shape (see {@link AnnotationWriter.write}). */
const SHAPE_FIELDS = 9;
/** Rows with more groups, offsets or bytes of lines than these are not remembered. */
const SHAPE_GROUPS = 16;
const SHAPE_OFFSETS = 64;
const SHAPE_BYTES = 4096;
/** Offsets from here on have more than 8 digits: a row's lines then cannot be copied. */
const WIDE_OFFSET = 0x1_0000_0000;
/** After this many rows in a row whose shape differs from the last one kept, the next SHAPE_PAUSE rows keep none. */
const SHAPE_MISSES = 16;
const SHAPE_PAUSE = 4096;

/**
 * Lines of one span (the commonest: a row with a single SGR, OSC or control) skip the general
 * template lookup: a direct-mapped cache keyed by one integer (class, flags, meaning) and the
 * count finds the template with two comparisons instead of seven (see {@link AnnotationWriter.one}).
 */
export const ONE_SLOTS = 1024;
/** Lengths below this are written with one 32-bit store from {@link LENGTH_WORDS}. */
export const LENGTH_WORD_MAX = 1000;
/**
 * The last 4 of the 6 columns of the length field for each length below {@link LENGTH_WORD_MAX},
 * as a little-endian word (`  19` is `0x39312020`); the first 2 columns are the template's spaces.
 */
export const LENGTH_WORDS = Int32Array.from({ length: LENGTH_WORD_MAX }, (_, len) => {
  const text = String(len).padStart(4);
  return text.charCodeAt(0) | (text.charCodeAt(1) << 8) | (text.charCodeAt(2) << 16) | (text.charCodeAt(3) << 24);
});

/**
 * Writes the annotation lines of the spans a row took from the queue, as bytes. Lines, in order
 * of their first offsets:
 *
 *   `          ^ 00000036 csi             437 B  SGR select graphic rendition [oversized]`
 *
 * a span (or a run of equal adjacent spans: `3 B  3x BEL bell`) under the row where it starts.
 * Spans of the same class, meaning and flags with the same length (single spans, not runs) are
 * coalesced into one line that keeps the first span's offset and says how many there are and
 * where: `^ 00001330 c0                1 B each  8x BEL bell  (every 2 B to 0000133e)`, or
 * `(at 00001330 00001333 00001334)` when they are not evenly spaced. Spans that differ in
 * anything keep lines of their own.
 *
 * Everything but the offsets repeats from line to line, so it is built once per kind of line (a
 * template: the line with a place for its offset) and copied. Every piece of text is Airlock's own (offsets, counts, the
 * parser's meaning tables), so the lines are inert.
 */
export class AnnotationWriter {
  /** `          ^ ` (the `^` coloured with --color). */
  private readonly head: Uint8Array;
  private readonly headLength: number;
  /** The bucket (line) of each group being annotated, by its index from the first ({@link base}). */
  private bucketOf = new Int32Array(64);
  private base = 0;
  /**
   * Per bucket: its key (class and flags, span length, meaning), first group (queue index), size
   * (spans), last span's start, stride and whether the spans are evenly spaced.
   */
  private bKind = new Float64Array(16);
  private bLen = new Float64Array(16);
  private bMeaning = new Float64Array(16);
  private first = new Int32Array(16);
  private size = new Int32Array(16);
  private prev = new Float64Array(16);
  private stride = new Float64Array(16);
  private even = new Uint8Array(16);
  /** Templates: the key of each slot and its line (head, 8 digits for the offset, text). */
  private readonly keys = new Float64Array(SLOTS * KEY_FIELDS).fill(-1);
  private readonly lines: Uint8Array[] = new Array<Uint8Array>(SLOTS);
  /** Per slot: where in its line the length field starts, or -1 when the length is in the text. */
  private readonly lengthAt = new Int32Array(SLOTS).fill(-1);
  /** The slot the last {@link template} call found or filled. */
  private slot = 0;
  /**
   * The shape of the last row with more than one line or a coalesced line: per group its start
   * (from the first group's), last span's start, length, count, members, stride, class, flags and
   * meaning, and where its lines are in the output (`shapeFrom..shapeTo` of a buffer in epoch
   * `shapeEpoch`), with the position and value of each offset in them. A row of the same shape
   * (BEL, BS, BEL, … every row alike) has the same lines but for its offsets, all moved by the
   * same distance: they are copied and the offsets rewritten. Empty (`shapeGroups` 0) when unknown.
   */
  private readonly shape = new Float64Array(SHAPE_GROUPS * SHAPE_FIELDS);
  private shapeGroups = 0;
  private shapeBase = 0;
  private shapeBuffer: ByteBuffer | undefined;
  private shapeEpoch = -1;
  private shapeFrom = 0;
  private shapeTo = 0;
  private readonly offsetAt = new Int32Array(SHAPE_OFFSETS);
  private readonly offsetValue = new Float64Array(SHAPE_OFFSETS);
  private offsets = 0;
  private maxOffset = 0;
  /** Rows in a row whose shape was not the last one kept; rows left that keep no shape. */
  private shapeMisses = 0;
  private shapePause = 0;
  /** While lines are written for a shape: offsets written are recorded (relative to `recordFrom`), or -1. */
  private recordFrom = -1;
  /** The single-span cache ({@link one}): key (class, flags, meaning as one integer; -1 empty), count, line and where its length field is. */
  private readonly oneKey = new Int32Array(ONE_SLOTS).fill(-1);
  private readonly oneCount = new Float64Array(ONE_SLOTS);
  /** Per slot of the single-span cache: its line (a template) and where its length field starts in it. */
  readonly oneLine: Uint8Array[] = new Array<Uint8Array>(ONE_SLOTS).fill(new Uint8Array(0));
  readonly oneLengthAt = new Int32Array(ONE_SLOTS);
  /** Per slot: bumped whenever it gets another line, so a copy of it elsewhere knows it is stale. */
  readonly oneGeneration = new Int32Array(ONE_SLOTS);
  /** Where a line's offset goes: after the head. */
  readonly lineOffsetAt: number;

  /**
   * @param from spans starting at or after this offset and before `to` are annotated (the range)
   * @param color paint the `^` of each line with Airlock's own SGR
   */
  constructor(private readonly from: number, private readonly to: number, color: boolean) {
    this.head = Buffer.from(`${PAD}${color ? paintCell('^', 'note') : '^'} `, 'latin1');
    this.headLength = this.head.length;
    this.lineOffsetAt = this.headLength;
  }

  /** Writes the lines for queue groups `[begin, end)` (those in the range) into `out`. */
  write(queue: SpanQueue, begin: number, end: number, out: ByteBuffer): void {
    // The queue is in start order, so the groups in the range are a run of it.
    const start = queue.start;
    while (begin < end && start[begin] < this.from) begin++;
    while (end > begin && start[end - 1] >= this.to) end--;
    const m = end - begin;
    if (m <= 0) return;
    if (m === 1 && queue.members[begin] === 1) {
      this.one(queue, begin, out);
      return;
    }
    if (this.shapeGroups > 0) {
      if (this.sameShape(queue, begin, end, out)) {
        this.copyShape(queue.start[begin], out);
        this.shapeMisses = 0;
        return;
      }
      // Rows that rarely repeat (colour codes in text) keep no shapes for a while: keeping costs.
      if (++this.shapeMisses === SHAPE_MISSES) {
        this.shapeMisses = 0;
        this.shapePause = SHAPE_PAUSE;
      }
    }
    const from = out.p;
    let keep = m <= SHAPE_GROUPS;
    if (this.shapePause > 0) {
      this.shapePause--;
      keep = false;
    }
    this.recordFrom = keep ? from : -1;
    this.offsets = 0;
    this.maxOffset = 0;
    this.base = begin;
    const buckets = this.assign(queue, begin, end);
    for (let b = 0; b < buckets; b++) {
      if (this.size[b] === 1) {
        // (While a shape is recorded, offsets must be noted: only the general path does that.)
        if (this.recordFrom < 0) this.one(queue, this.first[b], out);
        else this.single(queue, this.first[b], out);
      } else this.coalesced(queue, b, end, out);
    }
    this.shapeGroups = 0;
    if (this.recordFrom >= 0 && this.offsets <= SHAPE_OFFSETS && out.p - from <= SHAPE_BYTES) this.keepShape(queue, begin, end, out, from);
    this.recordFrom = -1;
  }

  /** Whether groups `[begin, end)` have the shape of the last row kept, whose lines are still in `out`. */
  private sameShape(queue: SpanQueue, begin: number, end: number, out: ByteBuffer): boolean {
    if (end - begin !== this.shapeGroups || out !== this.shapeBuffer || out.epoch !== this.shapeEpoch) return false;
    const { start, last, len, count, members, stride, cls, flags, meaning } = queue;
    const shape = this.shape;
    const s0 = start[begin];
    if (this.maxOffset + (s0 - this.shapeBase) >= WIDE_OFFSET) return false;
    for (let k = begin, o = 0; k < end; k++, o += SHAPE_FIELDS) {
      const s = start[k];
      if (shape[o] !== s - s0 || shape[o + 1] !== last[k] - s || shape[o + 2] !== len[k] || shape[o + 3] !== count[k] || shape[o + 4] !== members[k] ||
          shape[o + 5] !== stride[k] || shape[o + 6] !== cls[k] || shape[o + 7] !== flags[k] || shape[o + 8] !== meaning[k]) return false;
    }
    return true;
  }

  /** Remembers the shape of groups `[begin, end)`, whose lines are `out[from..out.p)`. */
  private keepShape(queue: SpanQueue, begin: number, end: number, out: ByteBuffer, from: number): void {
    const { start, last, len, count, members, stride, cls, flags, meaning } = queue;
    const shape = this.shape;
    const s0 = start[begin];
    for (let k = begin, o = 0; k < end; k++, o += SHAPE_FIELDS) {
      const s = start[k];
      shape[o] = s - s0;
      shape[o + 1] = last[k] - s;
      shape[o + 2] = len[k];
      shape[o + 3] = count[k];
      shape[o + 4] = members[k];
      shape[o + 5] = stride[k];
      shape[o + 6] = cls[k];
      shape[o + 7] = flags[k];
      shape[o + 8] = meaning[k];
    }
    this.shapeGroups = end - begin;
    this.shapeBase = s0;
    this.shapeBuffer = out;
    this.shapeEpoch = out.epoch;
    this.shapeFrom = from;
    this.shapeTo = out.p;
  }

  /** The lines of the kept shape for a row whose first group starts at `s0`: copied, offsets moved. */
  private copyShape(s0: number, out: ByteBuffer): void {
    const n = this.shapeTo - this.shapeFrom;
    out.reserve(n);
    const p = out.p;
    out.buf.copyWithin(p, this.shapeFrom, this.shapeTo);
    const delta = s0 - this.shapeBase;
    const view = out.view;
    const { offsetAt, offsetValue } = this;
    for (let j = 0; j < this.offsets; j++) {
      const value = offsetValue[j] + delta;
      offsetValue[j] = value;
      writeHex8(view, p + offsetAt[j], value);
    }
    this.maxOffset += delta;
    this.shapeBase = s0;
    this.shapeFrom = p;
    this.shapeTo = p + n;
    this.shapeEpoch = out.epoch;
    out.p = p + n;
  }

  /**
   * Sorts groups `[begin, end)` into buckets (lines) in order of first appearance; returns how
   * many. A series (evenly spaced equal spans, one group) counts as its spans.
   */
  private assign(queue: SpanQueue, begin: number, end: number): number {
    const m = end - begin;
    if (m > this.bucketOf.length) this.bucketOf = new Int32Array(Math.max(m, this.bucketOf.length * 2));
    while (this.first.length < m) this.growBuckets();
    const { start, last, len, count, members, stride: spacing, cls, flags, meaning } = queue;
    const { bucketOf, first, size, prev, stride, even, bKind, bLen, bMeaning } = this;
    let buckets = 0;
    for (let k = begin; k < end; k++) {
      const s = start[k];
      const l = len[k];
      const mk = meaning[k];
      // A run (count > 1) never coalesces: it gets a kind no single span has.
      const kind = count[k] === 1 ? cls[k] + flags[k] * 16 : -1 - k;
      const n = members[k];
      let b = 0;
      while (b < buckets && !(bMeaning[b] === mk && bKind[b] === kind && bLen[b] === l)) b++;
      if (b === buckets) {
        buckets++;
        first[b] = k;
        size[b] = n;
        stride[b] = spacing[k];
        even[b] = 1;
        bKind[b] = kind;
        bLen[b] = l;
        bMeaning[b] = mk;
      } else {
        const gap = s - prev[b];
        if (size[b] === 1) stride[b] = gap;
        else if (gap !== stride[b]) even[b] = 0;
        if (n > 1 && spacing[k] !== stride[b]) even[b] = 0;
        size[b] += n;
      }
      prev[b] = last[k];
      bucketOf[k - begin] = b;
    }
    return buckets;
  }

  /**
   * One span's line, as {@link single} writes it, when no shape is being recorded: by the
   * single-span cache, for the common case of a length that fits its field and an 8-digit offset.
   */
  private one(queue: SpanQueue, k: number, out: ByteBuffer): void {
    const at = queue.start[k];
    const len = queue.len[k];
    if (len >= LENGTH_FIELD_MAX || at >= WIDE_OFFSET) {
      this.single(queue, k, out);
      return;
    }
    const s = this.oneSlot(queue, k);
    const line = this.oneLine[s];
    out.reserve(line.length);
    const p = out.p;
    out.buf.set(line, p);
    const view = out.view;
    writeHex8(view, p + this.headLength, at);
    const lengthAt = p + this.oneLengthAt[s];
    if (len < LENGTH_WORD_MAX) view.setInt32(lengthAt + 2, LENGTH_WORDS[len], true);
    else writeLengthField(out.buf, lengthAt, len);
    out.p = p + line.length;
  }

  /**
   * The slot of the single-span cache that holds the line of group `k` (a single span or a run,
   * its length below 10^6), filled now if it did not: {@link oneLine} and {@link oneLengthAt}.
   */
  oneSlot(queue: SpanQueue, k: number): number {
    const key = queue.cls[k] | (queue.flags[k] << 4) | (queue.meaning[k] << 10);
    const n = queue.count[k];
    const s = (Math.imul(key, 0x9e3779b1) ^ Math.imul(n | 0, 0x85ebca6b)) >>> 22;
    if (this.oneKey[s] !== key || this.oneCount[s] !== n) this.fillOne(queue, k, s, key, n);
    return s;
  }

  /** Puts the line of group `k` in slot `s` of the single-span cache (apart: rare, and kept out of its callers' compiled code). */
  private fillOne(queue: SpanQueue, k: number, s: number, key: number, n: number): void {
    this.template(queue, k, Kind.Single, n, 0);
    this.oneKey[s] = key;
    this.oneCount[s] = n;
    this.oneLine[s] = this.lines[this.slot];
    this.oneLengthAt[s] = this.lengthAt[this.slot];
    this.oneGeneration[s]++;
  }

  /** One span's line. */
  private single(queue: SpanQueue, k: number, out: ByteBuffer): void {
    this.template(queue, k, Kind.Single, queue.count[k], 0);
    const slot = this.slot;
    out.reserve(this.lines[slot].length + 32);
    out.p = this.line(slot, queue.start[k], queue.len[k], out);
  }

  /** The line of bucket `b` (at least two equal single spans). */
  private coalesced(queue: SpanQueue, b: number, end: number, out: ByteBuffer): void {
    const k = this.first[b];
    const size = this.size[b];
    const every = size > 2 && this.even[b] === 1;
    this.template(queue, k, every ? Kind.Every : Kind.At, size, every ? this.stride[b] : 0);
    const slot = this.slot;
    out.reserve(this.lines[slot].length + 64 + (every ? 0 : size * 24));
    let p = this.line(slot, queue.start[k], queue.len[k], out);
    if (every) {
      p = this.hex(out, p, this.prev[b]);
    } else {
      const { start, members, stride } = queue;
      const base = this.base;
      for (let j = k; j < end; j++) {
        if (this.bucketOf[j - base] !== b) continue;
        for (let t = 0, at = start[j]; t < members[j]; t++, at += stride[j]) {
          out.buf[p++] = 0x20;
          p = this.hex(out, p, at);
        }
      }
    }
    out.buf[p++] = 0x29; // )
    out.buf[p++] = 0x0a;
    out.p = p;
  }

  /**
   * `          ^ 00000036` (the start of every line, `at` its offset) and then the template of
   * `slot`, at `out.p`: one copy of the line's bytes, then the offset and the span length `len`
   * written into it. Returns the new end.
   */
  private line(slot: number, at: number, len: number, out: ByteBuffer): number {
    const line = this.lines[slot];
    const p = out.p;
    const h = this.headLength;
    const lengthAt = this.lengthAt[slot];
    if (at < WIDE_OFFSET) {
      out.buf.set(line, p);
      this.hex(out, p + h, at);
      if (lengthAt >= 0) writeLengthField(out.buf, p + lengthAt, len);
      return p + line.length;
    }
    // More than 8 digits: the offset is written between the head and the rest.
    out.buf.set(line.subarray(0, h), p);
    const q = this.hex(out, p + h, at);
    out.buf.set(line.subarray(h + OFFSET_DIGITS), q);
    if (lengthAt >= 0) writeLengthField(out.buf, q + lengthAt - h - OFFSET_DIGITS, len);
    return q + line.length - h - OFFSET_DIGITS;
  }

  private hex(out: ByteBuffer, p: number, value: number): number {
    if (this.recordFrom >= 0) {
      // Writing a row's lines for its shape: where each offset goes, and what it is.
      const j = this.offsets++;
      if (j < SHAPE_OFFSETS) {
        this.offsetAt[j] = p - this.recordFrom;
        this.offsetValue[j] = value;
      }
      if (value > this.maxOffset) this.maxOffset = value;
    }
    if (value < WIDE_OFFSET) {
      writeHex8(out.view, p, value);
      return p + 8;
    }
    return writeHexNumber(out.buf, p, value, OFFSET_DIGITS);
  }

  /** Finds or builds the template of a line about group `k`; leaves its slot in {@link slot}. */
  private template(queue: SpanQueue, k: number, kind: Kind, n: number, stride: number): void {
    const cls = queue.cls[k];
    const flags = queue.flags[k];
    const meaning = queue.meaning[k];
    // A length that fits the field is written per line, so it is no part of the key.
    const len = queue.len[k] < LENGTH_FIELD_MAX ? -1 : queue.len[k];
    let h = Math.imul(kind + 1, 0x9e3779b1) ^ Math.imul(cls + 17, 0x85ebca6b) ^ Math.imul(flags + 1, 0xc2b2ae35);
    h ^= Math.imul(meaning + 1, 0x27d4eb2f) ^ Math.imul(len | 0, 0x165667b1) ^ Math.imul(n | 0, 0x61c88647) ^ Math.imul(stride | 0, 0x2545f491);
    h ^= h >>> 15;
    const slot = h & (SLOTS - 1);
    this.slot = slot;
    const keys = this.keys;
    const o = slot * KEY_FIELDS;
    if (keys[o] === kind && keys[o + 1] === cls && keys[o + 2] === flags && keys[o + 3] === meaning && keys[o + 4] === len && keys[o + 5] === n && keys[o + 6] === stride) return;
    keys[o] = kind;
    keys[o + 1] = cls;
    keys[o + 2] = flags;
    keys[o + 3] = meaning;
    keys[o + 4] = len;
    keys[o + 5] = n;
    keys[o + 6] = stride;
    const label = flagLabel(flags);
    const what = `${queue.meanings[meaning]}${label ? ` ${label}` : ''}`;
    const name = ` ${className(cls as SpanClass).padEnd(12)} `;
    // The length field is filled per line (spaces here); a longer length is text.
    const lead = `${name}${len < 0 ? ' '.repeat(LENGTH_COLUMNS) : String(len)} B`;
    const text =
      kind === Kind.Single ? `${lead}  ${n > 1 ? `${n}x ` : ''}${what}\n`
      : kind === Kind.Every ? `${lead} each  ${n}x ${what}  (every ${stride} B to `
      : `${lead} each  ${n}x ${what}  (at`;
    const bytes = Buffer.from(text, 'utf8');
    const line = new Uint8Array(this.head.length + OFFSET_DIGITS + bytes.length);
    line.set(this.head);
    line.set(bytes, this.head.length + OFFSET_DIGITS);
    this.lines[slot] = line;
    this.lengthAt[slot] = len < 0 ? this.head.length + OFFSET_DIGITS + name.length : -1;
  }

  private growBuckets(): void {
    const n = this.first.length * 2;
    const grow = <T extends Int32Array | Float64Array | Uint8Array>(a: T, b: T): T => {
      b.set(a);
      return b;
    };
    this.first = grow(this.first, new Int32Array(n));
    this.size = grow(this.size, new Int32Array(n));
    this.prev = grow(this.prev, new Float64Array(n));
    this.stride = grow(this.stride, new Float64Array(n));
    this.even = grow(this.even, new Uint8Array(n));
    this.bKind = grow(this.bKind, new Float64Array(n));
    this.bLen = grow(this.bLen, new Float64Array(n));
    this.bMeaning = grow(this.bMeaning, new Float64Array(n));
  }
}

/** Writes `len` (below 10^6) right-aligned in the 6-column length field at `p`. */
function writeLengthField(out: Uint8Array, p: number, len: number): void {
  let v = len;
  let k = p + LENGTH_COLUMNS - 1;
  do {
    const q = (v / 10) | 0;
    out[k--] = 0x30 + (v - q * 10);
    v = q;
  } while (v > 0);
  while (k >= p) out[k--] = 0x20;
}
