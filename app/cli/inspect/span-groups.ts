import type { SpanLog } from '../../../shared/sanitize';

/*
 * The spans a dump annotates, as it receives them from the sanitizer (in the order they complete)
 * and hands them to rows (in the order they start):
 *
 * - Only spans overlapping the shown range are kept, in start order; a span extends the group
 *   before it into a run when it starts where that one ends, is alike (class, flags, meaning: one
 *   kind number) and that group was not taken yet.
 * - A row takes the groups that start before its end (take): their lines follow the row.
 * - Groups taken colour bytes from then on (ActiveSpans): a byte takes the colour of the first
 *   group taken that holds it.
 *
 * Parallel typed arrays, no object per span: a dump of alternating BEL/BS has one span per byte.
 */

/** A span log's kind: `class | flags << 4 | meaning << 10` (shared/parser/sink.ts). */
export const kindClass = (kind: number): number => kind & 15;
export const kindFlags = (kind: number): number => (kind >> 4) & 63;
export const kindMeaning = (kind: number): number => kind >>> 10;

/** Spans the sanitizer records before they are taken into the groups. */
const LOG_ENTRIES = 1 << 12;

/** The groups of spans waiting for their rows, fed by the sanitizer's span log ({@link log}). */
export class SpanGroups {
  /** The span log for the sanitizer (SanitizerOptions.spanLog): drained into the groups. */
  readonly log: SpanLog;
  start = new Float64Array(1024);
  length = new Float64Array(1024);
  /** Spans in the group (1: a single span). */
  count = new Float64Array(1024);
  kind = new Int32Array(1024);
  /** Groups before this are taken; those from it to {@link end} wait. */
  head = 0;
  end = 0;
  /** The group the last span went to, which the next may extend (-1: none). */
  private latest = -1;

  /** Keeps only spans overlapping the stream's range `[from, to)`. */
  constructor(private readonly from: number, private readonly to: number) {
    this.log = {
      start: new Float64Array(LOG_ENTRIES),
      length: new Float64Array(LOG_ENTRIES),
      kind: new Int32Array(LOG_ENTRIES),
      n: 0,
      drain: () => this.drain(),
    };
  }

  /** Takes every span recorded in the log so far. */
  drain(): void {
    const log = this.log;
    for (let i = 0; i < log.n; i++) this.add(log.start[i], log.length[i], log.kind[i]);
    log.n = 0;
  }

  private add(at: number, length: number, kind: number): void {
    if (at >= this.to || at + length <= this.from) return;
    const last = this.latest;
    if (last >= this.head && this.start[last] + this.length[last] === at && this.kind[last] === kind) {
      this.length[last] += length;
      this.count[last]++;
      return;
    }
    if (this.end === this.kind.length) this.makeRoom();
    // Spans come in start order but for nesting (a control executed inside a sequence completes
    // first): the place is at the end or a few groups before it.
    let k = this.end;
    while (k > this.head && this.start[k - 1] > at) k--;
    if (k < this.end) {
      this.start.copyWithin(k + 1, k, this.end);
      this.length.copyWithin(k + 1, k, this.end);
      this.count.copyWithin(k + 1, k, this.end);
      this.kind.copyWithin(k + 1, k, this.end);
    }
    this.start[k] = at;
    this.length[k] = length;
    this.count[k] = 1;
    this.kind[k] = kind;
    this.end++;
    this.latest = k;
  }

  /** Takes the groups that start before `before`: they are those from the returned index to {@link head}. */
  take(before: number): number {
    const from = this.head;
    let h = from;
    while (h < this.end && this.start[h] < before) h++;
    this.head = h;
    return from;
  }

  /**
   * Room for one more group: the taken ones dropped (callers read taken groups only until the
   * next span is added), or larger arrays.
   */
  private makeRoom(): void {
    const h = this.head;
    if (h > this.end / 2) {
      this.start.copyWithin(0, h, this.end);
      this.length.copyWithin(0, h, this.end);
      this.count.copyWithin(0, h, this.end);
      this.kind.copyWithin(0, h, this.end);
      this.end -= h;
      this.latest -= h;
      this.head = 0;
      return;
    }
    const grow = <T extends Float64Array | Int32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(a.length * 2);
      b.set(a);
      return b;
    };
    this.start = grow(this.start);
    this.length = grow(this.length);
    this.count = grow(this.count);
    this.kind = grow(this.kind);
  }
}

/**
 * The groups taken that may still colour bytes (those ending after the rows shown so far), in the
 * order taken: the first that holds a byte gives its colour.
 */
export class ActiveSpans {
  private start = new Float64Array(64);
  private end = new Float64Array(64);
  private cls = new Uint8Array(64);
  private n = 0;

  /** Adds groups `[from, to)` of `groups`, then drops those that end at or before `at`. */
  keep(groups: SpanGroups, from: number, to: number, at: number): void {
    let n = 0;
    for (let k = 0; k < this.n; k++) {
      if (this.end[k] <= at) continue;
      this.start[n] = this.start[k];
      this.end[n] = this.end[k];
      this.cls[n] = this.cls[k];
      n++;
    }
    for (let g = from; g < to; g++) {
      const end = groups.start[g] + groups.length[g];
      if (end <= at) continue;
      if (n === this.cls.length) this.grow();
      this.start[n] = groups.start[g];
      this.end[n] = end;
      this.cls[n] = kindClass(groups.kind[g]);
      n++;
    }
    this.n = n;
  }

  /**
   * Paints the bytes of `[at, rowEnd)` that a group holds: `colours[base + x - at]` becomes
   * `colourOf[class]` of the first group holding byte x.
   */
  paint(at: number, rowEnd: number, colours: Uint8Array, base: number, colourOf: Uint8Array): void {
    // Last to first, so the first group holding a byte paints it last.
    for (let k = this.n - 1; k >= 0; k--) {
      const from = Math.max(this.start[k], at);
      const to = Math.min(this.end[k], rowEnd);
      if (from >= to) continue;
      colours.fill(colourOf[this.cls[k]], base + from - at, base + to - at);
    }
  }

  private grow(): void {
    const start = new Float64Array(this.start.length * 2);
    const end = new Float64Array(this.start.length * 2);
    const cls = new Uint8Array(this.start.length * 2);
    start.set(this.start);
    end.set(this.end);
    cls.set(this.cls);
    this.start = start;
    this.end = end;
    this.cls = cls;
  }
}
