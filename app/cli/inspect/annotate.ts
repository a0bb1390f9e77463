import { writeDecimal, writeHexNumber } from '../../../shared/hex/row-bytes';
import type { SpanClass } from '../../../shared/parser';
import type { ByteBuffer } from './bytes-out';
import { paintCell } from './paint';
import { className, flagLabel, type SpanQueue } from './span-queue';

/** Digits of the offsets in annotation lines (the dump's offset column). */
const OFFSET_DIGITS = 8;
const PAD = ' '.repeat(OFFSET_DIGITS + 2);

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
const B_ = ascii(' B  ');
const X_ = ascii('x ');
const B_EACH = ascii(' B each  ');
const EVERY = ascii('  (every ');
const B_TO = ascii(' B to ');
const AT = ascii('  (at');

/** Copies the few bytes of `src` to `out` at `p` (a loop beats `set` at this size); returns the new end. */
function copy(out: Uint8Array, p: number, src: Uint8Array): number {
  for (let k = 0; k < src.length; k++) out[p++] = src[k];
  return p;
}

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
 * Every piece of text is Airlock's own (offsets, counts, the parser's meaning tables), so the
 * lines are inert.
 */
export class AnnotationWriter {
  private readonly head: Uint8Array;
  private readonly classText: Uint8Array[] = [];
  /** UTF-8 of each meaning, by its index in the queue's table. */
  private readonly meaningText: Uint8Array[] = [];
  private readonly flagText = new Map<number, Uint8Array>();
  /** Queue indices of the spans being annotated, and the bucket (line) of each. */
  private picked = new Int32Array(64);
  private bucketOf = new Int32Array(64);
  /** Per bucket: its first span (index into picked), size, last start, stride, evenly spaced. */
  private first = new Int32Array(16);
  private size = new Int32Array(16);
  private prev = new Float64Array(16);
  private stride = new Float64Array(16);
  private even = new Uint8Array(16);

  /**
   * @param from spans starting at or after this offset and before `to` are annotated (the range)
   * @param color paint the `^` of each line with Airlock's own SGR
   */
  constructor(private readonly from: number, private readonly to: number, color: boolean) {
    this.head = Buffer.from(`${PAD}${color ? paintCell('^', 'note') : '^'} `, 'latin1');
  }

  /** Writes the lines for queue groups `[begin, end)` (those in the range) into `out`. */
  write(queue: SpanQueue, begin: number, end: number, out: ByteBuffer): void {
    const { from, to } = this;
    let m = 0;
    for (let k = begin; k < end; k++) {
      const s = queue.start[k];
      if (s < from || s >= to) continue;
      if (m === this.picked.length) this.growPicked();
      this.picked[m++] = k;
    }
    if (m === 0) return;
    if (m === 1) {
      this.single(queue, this.picked[0], out);
      return;
    }
    const buckets = this.assign(queue, m);
    for (let b = 0; b < buckets; b++) {
      if (this.size[b] === 1) this.single(queue, this.picked[this.first[b]], out);
      else this.coalesced(queue, b, m, out);
    }
  }

  /** Sorts the picked spans into buckets (lines) in order of first appearance; returns how many. */
  private assign(queue: SpanQueue, m: number): number {
    const { start, end, count, cls, flags, meaning } = queue;
    let buckets = 0;
    for (let j = 0; j < m; j++) {
      const k = this.picked[j];
      let bucket = -1;
      if (count[k] === 1) {
        const len = end[k] - start[k];
        for (let b = 0; b < buckets; b++) {
          const h = this.picked[this.first[b]];
          if (count[h] === 1 && cls[h] === cls[k] && flags[h] === flags[k] && end[h] - start[h] === len && meaning[h] === meaning[k]) {
            bucket = b;
            break;
          }
        }
      }
      if (bucket < 0) {
        if (buckets === this.first.length) this.growBuckets();
        bucket = buckets++;
        this.first[bucket] = j;
        this.size[bucket] = 1;
        this.prev[bucket] = start[k];
        this.even[bucket] = 1;
      } else {
        const gap = start[k] - this.prev[bucket];
        if (this.size[bucket] === 1) this.stride[bucket] = gap;
        else if (gap !== this.stride[bucket]) this.even[bucket] = 0;
        this.prev[bucket] = start[k];
        this.size[bucket]++;
      }
      this.bucketOf[j] = bucket;
    }
    return buckets;
  }

  /** One span's line. */
  private single(queue: SpanQueue, k: number, out: ByteBuffer): void {
    const meaning = this.meaningBytes(queue, queue.meaning[k]);
    const flags = this.flagBytes(queue.flags[k]);
    out.reserve(96 + meaning.length + flags.length);
    let p = this.lead(queue, k, out);
    p = copy(out.buf, p, B_);
    const n = queue.count[k];
    if (n > 1) {
      p = writeDecimal(out.buf, p, n, 0);
      p = copy(out.buf, p, X_);
    }
    p = copy(out.buf, p, meaning);
    p = copy(out.buf, p, flags);
    out.buf[p++] = 0x0a;
    out.p = p;
  }

  /** The line of bucket `b` (at least two equal single spans). */
  private coalesced(queue: SpanQueue, b: number, m: number, out: ByteBuffer): void {
    const k = this.picked[this.first[b]];
    const meaning = this.meaningBytes(queue, queue.meaning[k]);
    const flags = this.flagBytes(queue.flags[k]);
    const size = this.size[b];
    const even = size > 2 && this.even[b] === 1;
    out.reserve(160 + meaning.length + flags.length + (even ? 0 : size * 20));
    let p = this.lead(queue, k, out);
    p = copy(out.buf, p, B_EACH);
    p = writeDecimal(out.buf, p, size, 0);
    out.buf[p++] = 0x78; // x
    out.buf[p++] = 0x20;
    p = copy(out.buf, p, meaning);
    p = copy(out.buf, p, flags);
    if (even) {
      p = copy(out.buf, p, EVERY);
      p = writeDecimal(out.buf, p, this.stride[b], 0);
      p = copy(out.buf, p, B_TO);
      p = writeHexNumber(out.buf, p, this.prev[b], OFFSET_DIGITS);
    } else {
      p = copy(out.buf, p, AT);
      const start = queue.start;
      for (let j = this.first[b]; j < m; j++) {
        if (this.bucketOf[j] !== b) continue;
        out.buf[p++] = 0x20;
        p = writeHexNumber(out.buf, p, start[this.picked[j]], OFFSET_DIGITS);
      }
    }
    out.buf[p++] = 0x29; // )
    out.buf[p++] = 0x0a;
    out.p = p;
  }

  /** `          ^ 00000036 csi             437` (the start of every line); returns the new end. */
  private lead(queue: SpanQueue, k: number, out: ByteBuffer): number {
    const buf = out.buf;
    let p = out.p;
    p = copy(buf, p, this.head);
    p = writeHexNumber(buf, p, queue.start[k], OFFSET_DIGITS);
    buf[p++] = 0x20;
    const cls = this.classBytes(queue.cls[k] as SpanClass);
    p = copy(buf, p, cls);
    buf[p++] = 0x20;
    return writeDecimal(buf, p, queue.end[k] - queue.start[k], 6);
  }

  private classBytes(cls: SpanClass): Uint8Array {
    return (this.classText[cls] ??= Buffer.from(className(cls).padEnd(12), 'latin1'));
  }

  private meaningBytes(queue: SpanQueue, id: number): Uint8Array {
    return (this.meaningText[id] ??= Buffer.from(queue.meanings[id], 'utf8'));
  }

  /** ` [unterminated, 8-bit]`, or nothing when no flag is set. */
  private flagBytes(flags: number): Uint8Array {
    let bytes = this.flagText.get(flags);
    if (bytes === undefined) {
      const label = flagLabel(flags);
      bytes = Buffer.from(label ? ` ${label}` : '', 'utf8');
      this.flagText.set(flags, bytes);
    }
    return bytes;
  }

  private growPicked(): void {
    const picked = new Int32Array(this.picked.length * 2);
    picked.set(this.picked);
    this.picked = picked;
    this.bucketOf = new Int32Array(picked.length);
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
  }
}
