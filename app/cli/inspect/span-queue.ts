import { SPAN_CLASS_NAMES, SpanFlag, type SpanClass } from '../../../shared/parser';

/** One annotation line: a span, or a run of identical adjacent spans (47 tag characters in a row). */
export interface SpanGroup {
  start: number;
  end: number;
  cls: SpanClass;
  meaning: string;
  flags: number;
  count: number;
}

const INITIAL_CAPACITY = 1024;

/** How many keys of recent groups {@link SpanQueue} remembers for extending (see there). */
const OPEN = 8;

/**
 * Collects spans as the parser completes them and hands them out by start offset, merging a span
 * into the previous one when it has the same class, meaning and flags and starts where it ended
 * (a run: `count` spans as one). Kept sorted on insert: spans complete almost in start order (only
 * a sequence that contains an executed control finishes after it), so insertion walks back a step
 * or two and taking is O(k).
 *
 * A group is also a row's evenly spaced equal single spans (`BEL` every 2 bytes): a span extends
 * the latest group of its kind (class, meaning, flags, length) when that one is a single span or
 * such a series, starts in the same row of `rowWidth` bytes (rows counted from `rowOrigin`), is
 * not taken yet, and the span comes at its stride after it, in order. Annotations coalesce a
 * row's equal single spans into one line anyway, so this changes no output: it spares storing
 * and sorting out a group per span where there is a span per byte.
 *
 * Groups live in parallel typed arrays, group `k` at index `k` for `head <= k < length`:
 * `start` (first span), `last` (last span's start), `len` (a span's length; a run's whole),
 * `count` (spans in a run), `members` (spans in a series, else 1), `stride` (between them).
 * {@link take} hands out index ranges, valid until the next {@link add}.
 */
export class SpanQueue {
  start = new Float64Array(INITIAL_CAPACITY);
  last = new Float64Array(INITIAL_CAPACITY);
  len = new Float64Array(INITIAL_CAPACITY);
  count = new Float64Array(INITIAL_CAPACITY);
  members = new Float64Array(INITIAL_CAPACITY);
  stride = new Float64Array(INITIAL_CAPACITY);
  cls = new Uint8Array(INITIAL_CAPACITY);
  flags = new Uint32Array(INITIAL_CAPACITY);
  /** Index into {@link meanings}: the parser's own table strings, numbered as they first come. */
  meaning = new Uint32Array(INITIAL_CAPACITY);
  readonly meanings: string[] = [];
  private readonly meaningIds = new Map<string, number>();
  /** Recent meanings by their length (a cheap key), checked before the map: spans come in runs of few kinds. */
  private readonly recent: string[] = new Array<string>(16).fill('');
  private readonly recentId = new Int32Array(16);
  /** Index of the first group not yet taken. */
  head = 0;
  /** Index past the last group. */
  length = 0;
  /** The group the last span went to (a next adjacent equal span may extend it), or -1. */
  private latest = -1;
  /** Of group {@link latest}, checked per span without reading the arrays: its end (-1 when there is none) and {@link seriesKind}. */
  private latestEnd = -1;
  private latestKind = -1;
  /**
   * The latest group of a kind, a slot per meaning (by its number): the group, its kind and the
   * end of its row. Forgetting one only means a series ends early, which changes no output.
   */
  private readonly open = new Int32Array(OPEN).fill(-1);
  /**
   * The kind of each open group, as two integers compared per span (cheaper than one float key):
   * class, flags and meaning number (see {@link seriesKind}; -1 for none), and a span's length.
   */
  private readonly openKind = new Int32Array(OPEN).fill(-1);
  private readonly openLength = new Float64Array(OPEN);
  private readonly openRowEnd = new Float64Array(OPEN);
  /** `start[length - 1]`: the last group's start (Infinity while there is none). */
  private lastStart = Infinity;

  /**
   * Rows are `[rowOrigin + k * rowWidth, rowOrigin + (k + 1) * rowWidth)`: a series never crosses
   * one. Without a row width (0) no series is formed: every group is a span or a run. Spans that
   * do not overlap `[keepFrom, keepTo)` (a dump's range) are not kept.
   */
  constructor(private readonly rowOrigin = 0, private readonly rowWidth = 0, private readonly keepFrom = -Infinity, private readonly keepTo = Infinity) {}

  /**
   * Adds a completed span, unless it lies outside `[keepFrom, keepTo)`. A function of its own
   * (not a method), so it can be the sanitizer's span callback itself: one call per span.
   */
  readonly add = (cls: SpanClass, offset: number, length: number, meaningText: string, flags: number): void => {
    if (offset >= this.keepTo || offset + length <= this.keepFrom) return;
    const r = meaningText.length & 15;
    const meaning = meaningText === this.recent[r] ? this.recentId[r] : this.intern(meaningText, r);
    // Class, flags and meaning as one integer: one comparison per group checked, not three.
    const kind = seriesKind(cls, flags, meaning);
    if (this.latestEnd === offset && this.latestKind === kind) {
      const latest = this.latest;
      if (this.members[latest] === 1) {
        this.len[latest] += length;
        this.count[latest]++;
        this.latestEnd = offset + length;
        // A run is no series: it is no longer the open group of its kind.
        const slot = meaning & (OPEN - 1);
        if (this.open[slot] === latest) this.openKind[slot] = -1;
        return;
      }
      // The series' last span and this one are a run: that span leaves the series.
      const from = this.last[latest];
      const spanLength = this.len[latest];
      this.members[latest]--;
      this.last[latest] = from - this.stride[latest];
      this.insert(cls, from, spanLength + length, meaning, flags, 2);
      return;
    }
    if (this.rowWidth === 0) {
      this.insert(cls, offset, length, meaning, flags, 1);
      return;
    }
    // The latest group of this kind, if remembered (a slot per meaning, so BEL and BS in turn
    // keep theirs): extend it when this span is its next at its stride, in the same row.
    const slot = meaning & (OPEN - 1);
    if (this.openKind[slot] === kind && this.openLength[slot] === length) {
      // (An open group is a single span or a series: one that became a run was closed above.)
      const g = this.open[slot];
      if (g >= this.head && offset < this.openRowEnd[slot] && offset > this.lastStart) {
        const gap = offset - this.last[g];
        const members = this.members[g];
        if (gap > 0 && (members === 1 || gap === this.stride[g])) {
          if (members === 1) this.stride[g] = gap;
          this.members[g] = members + 1;
          this.last[g] = offset;
          this.setLatest(g, offset + length, kind);
          return;
        }
      }
    }
    this.insert(cls, offset, length, meaning, flags, 1);
    this.open[slot] = this.latest;
    this.openKind[slot] = kind;
    this.openLength[slot] = length;
    this.openRowEnd[slot] = this.rowOrigin + (Math.floor((offset - this.rowOrigin) / this.rowWidth) + 1) * this.rowWidth;
  };

  /** Inserts a new group in start order and makes it the latest. */
  private insert(cls: SpanClass, offset: number, length: number, meaning: number, flags: number, count: number): void {
    if (this.length === this.start.length) this.makeRoom();
    let k = this.length;
    const start = this.start;
    while (k > this.head && start[k - 1] > offset) k--;
    if (k < this.length) this.shiftUp(k);
    start[k] = offset;
    this.last[k] = offset;
    this.len[k] = length;
    this.count[k] = count;
    this.members[k] = 1;
    this.stride[k] = 0;
    this.cls[k] = cls;
    this.flags[k] = flags;
    this.meaning[k] = meaning;
    this.length++;
    this.lastStart = start[this.length - 1];
    this.setLatest(k, offset + length, seriesKind(cls, flags, meaning));
  }

  private setLatest(k: number, end: number, kind: number): void {
    this.latest = k;
    this.latestEnd = end;
    this.latestKind = kind;
  }

  /** No group may be extended by the next span. */
  private forgetLatest(): void {
    this.latest = -1;
    this.latestEnd = -1;
  }

  /**
   * Takes the groups that start before `offset` and returns the index past them: they are
   * `[from, returned)` where `from` was {@link head} before the call, in start order.
   */
  take(offset: number): number {
    const start = this.start;
    const n = this.length;
    let k = this.head;
    while (k < n && start[k] < offset) k++;
    this.head = k;
    // Every group starting before `offset` is gone now; never merge into one already handed out.
    if (this.latest >= 0 && this.latest < k) this.forgetLatest();
    return k;
  }

  /** Removes and returns the spans of the groups that start before `offset`, in start order, as objects. */
  takeBefore(offset: number): SpanGroup[] {
    const from = this.head;
    const to = this.take(offset);
    const groups: SpanGroup[] = [];
    for (let k = from; k < to; k++) this.pushGroups(k, groups);
    // Spans of series interleave (BEL, BS, BEL, …): back into start order (stable for equal starts).
    return groups.sort((a, b) => a.start - b.start);
  }

  /** Group `k` as objects: one, or one per span of a series (in its order, not merged with others'). */
  pushGroups(k: number, into: SpanGroup[]): void {
    const cls = this.cls[k] as SpanClass;
    const meaning = this.meanings[this.meaning[k]];
    const flags = this.flags[k];
    const len = this.len[k];
    for (let m = 0, at = this.start[k]; m < this.members[k]; m++, at += this.stride[k]) {
      into.push({ start: at, end: at + len, cls, meaning, flags, count: this.count[k] });
    }
  }

  /** The number of a meaning not in its recent slot `r` (which it then takes). */
  private intern(meaning: string, r: number): number {
    let id = this.meaningIds.get(meaning) ?? -1;
    if (id < 0) {
      id = this.meanings.length;
      this.meanings.push(meaning);
      this.meaningIds.set(meaning, id);
    }
    this.recent[r] = meaning;
    this.recentId[r] = id;
    return id;
  }

  /** Every typed array of the groups. */
  private arrays(): (Float64Array | Uint8Array | Uint32Array)[] {
    return [this.start, this.last, this.len, this.count, this.members, this.stride, this.cls, this.flags, this.meaning];
  }

  /** Frees taken slots, or grows the arrays when more than a quarter of the slots are still queued. */
  private makeRoom(): void {
    const head = this.head;
    const live = this.length - head;
    if (head > 0 && live * 4 <= this.start.length) {
      // Compacting only when at most a quarter is live keeps the copying to a third of a slot per add.
      for (const a of this.arrays()) a.copyWithin(0, head, this.length);
    } else {
      const capacity = this.start.length * 2;
      const grow = <T extends Float64Array | Uint8Array | Uint32Array>(a: T, make: (n: number) => T): T => {
        const b = make(capacity);
        b.set(a.subarray(head, this.length));
        return b;
      };
      const f64 = (n: number): Float64Array<ArrayBuffer> => new Float64Array(n);
      this.start = grow(this.start, f64);
      this.last = grow(this.last, f64);
      this.len = grow(this.len, f64);
      this.count = grow(this.count, f64);
      this.members = grow(this.members, f64);
      this.stride = grow(this.stride, f64);
      this.cls = grow(this.cls, (n) => new Uint8Array(n));
      this.flags = grow(this.flags, (n) => new Uint32Array(n));
      this.meaning = grow(this.meaning, (n) => new Uint32Array(n));
    }
    this.head = 0;
    this.length = live;
    if (live === 0) this.lastStart = Infinity;
    if (this.latest >= head) this.latest -= head;
    else this.forgetLatest();
    for (let j = 0; j < OPEN; j++) this.open[j] = this.open[j] >= head ? this.open[j] - head : -1;
  }

  /** Opens slot `k` by moving groups `k..length` up one. */
  private shiftUp(k: number): void {
    for (const a of this.arrays()) a.copyWithin(k + 1, k, this.length);
    if (this.latest >= k) this.latest++;
    for (let j = 0; j < OPEN; j++) if (this.open[j] >= k) this.open[j]++;
  }
}

/**
 * A span's class, flags and meaning number as one integer, for matching the open group of a
 * series (cls < 16 and flags < 64 by SpanClass and SpanFlag; meaning numbers fit 21 bits).
 */
function seriesKind(cls: number, flags: number, meaning: number): number {
  return cls | (flags << 4) | (meaning << 10);
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

/** The class name of a group, as reports spell it. */
export function className(cls: SpanClass): string {
  return SPAN_CLASS_NAMES[cls];
}
