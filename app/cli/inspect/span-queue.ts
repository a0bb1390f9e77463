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

/**
 * Collects spans as the parser completes them and hands them out by start offset, merging a span
 * into the previous one when it has the same class, meaning and flags and starts where it ended.
 * Kept sorted on insert: spans complete almost in start order (only a sequence that contains an
 * executed control finishes after it), so insertion walks back a step or two and taking is O(k).
 *
 * Groups live in parallel typed arrays (a span per byte is the worst case, so no object per
 * span): group `k` is `start[k]`, `end[k]`, … for `head <= k < length`. {@link take} hands out
 * index ranges, valid until the next {@link add}.
 */
export class SpanQueue {
  start = new Float64Array(INITIAL_CAPACITY);
  end = new Float64Array(INITIAL_CAPACITY);
  count = new Float64Array(INITIAL_CAPACITY);
  cls = new Uint8Array(INITIAL_CAPACITY);
  flags = new Uint32Array(INITIAL_CAPACITY);
  /** Index into {@link meanings}: the parser's own table strings, numbered as they first come. */
  meaning = new Uint32Array(INITIAL_CAPACITY);
  readonly meanings: string[] = [];
  private readonly meaningIds = new Map<string, number>();
  /** The last two meanings numbered, checked before the map: spans come in runs of few kinds. */
  private recent0 = '';
  private id0 = -1;
  private recent1 = '';
  private id1 = -1;
  /** Index of the first group not yet taken. */
  head = 0;
  /** Index past the last group. */
  length = 0;
  /** The group a next adjacent equal span may extend, or -1 (it was taken, or none yet). */
  private last = -1;

  /** Adds a completed span. */
  add(cls: SpanClass, offset: number, length: number, meaningText: string, flags: number): void {
    const meaning = meaningText === this.recent0 ? this.id0 : this.intern(meaningText);
    const last = this.last;
    if (last >= 0 && this.end[last] === offset && this.cls[last] === cls && this.flags[last] === flags && this.meaning[last] === meaning) {
      this.end[last] = offset + length;
      this.count[last]++;
      return;
    }
    if (this.length === this.start.length) this.makeRoom();
    let k = this.length;
    const start = this.start;
    while (k > this.head && start[k - 1] > offset) k--;
    if (k < this.length) this.shiftUp(k);
    start[k] = offset;
    this.end[k] = offset + length;
    this.count[k] = 1;
    this.cls[k] = cls;
    this.flags[k] = flags;
    this.meaning[k] = meaning;
    this.length++;
    this.last = k;
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
    if (this.last >= 0 && this.last < k) this.last = -1;
    return k;
  }

  /** Removes and returns the groups that start before `offset`, in start order, as objects. */
  takeBefore(offset: number): SpanGroup[] {
    const from = this.head;
    const to = this.take(offset);
    const groups: SpanGroup[] = [];
    for (let k = from; k < to; k++) groups.push(this.group(k));
    return groups;
  }

  /** Group `k` as an object. */
  group(k: number): SpanGroup {
    return { start: this.start[k], end: this.end[k], cls: this.cls[k] as SpanClass, meaning: this.meanings[this.meaning[k]], flags: this.flags[k], count: this.count[k] };
  }

  /** The number of a meaning other than the last one seen. */
  private intern(meaning: string): number {
    let id: number;
    if (meaning === this.recent1) id = this.id1;
    else {
      id = this.meaningIds.get(meaning) ?? -1;
      if (id < 0) {
        id = this.meanings.length;
        this.meanings.push(meaning);
        this.meaningIds.set(meaning, id);
      }
    }
    this.recent1 = this.recent0;
    this.id1 = this.id0;
    this.recent0 = meaning;
    this.id0 = id;
    return id;
  }

  /** Frees taken slots, or grows the arrays when every slot is still queued. */
  private makeRoom(): void {
    const head = this.head;
    const live = this.length - head;
    // Compacting only when at most a quarter is live keeps the copying to a third of a slot per add.
    if (head > 0 && live * 4 <= this.start.length) {
      this.start.copyWithin(0, head, this.length);
      this.end.copyWithin(0, head, this.length);
      this.count.copyWithin(0, head, this.length);
      this.cls.copyWithin(0, head, this.length);
      this.flags.copyWithin(0, head, this.length);
      this.meaning.copyWithin(0, head, this.length);
      this.head = 0;
      this.length = live;
      if (this.last >= 0) this.last -= head;
      return;
    }
    const capacity = this.start.length * 2;
    const grow = <T extends Float64Array | Uint8Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity);
      b.set(a.subarray(head, this.length));
      return b;
    };
    this.start = grow(this.start, (n) => new Float64Array(n));
    this.end = grow(this.end, (n) => new Float64Array(n));
    this.count = grow(this.count, (n) => new Float64Array(n));
    this.cls = grow(this.cls, (n) => new Uint8Array(n));
    this.flags = grow(this.flags, (n) => new Uint32Array(n));
    this.meaning = grow(this.meaning, (n) => new Uint32Array(n));
    this.head = 0;
    this.length = live;
    if (this.last >= 0) this.last -= head;
  }

  /** Opens slot `k` by moving groups `k..length` up one. */
  private shiftUp(k: number): void {
    const n = this.length;
    this.start.copyWithin(k + 1, k, n);
    this.end.copyWithin(k + 1, k, n);
    this.count.copyWithin(k + 1, k, n);
    this.cls.copyWithin(k + 1, k, n);
    this.flags.copyWithin(k + 1, k, n);
    this.meaning.copyWithin(k + 1, k, n);
    if (this.last >= k) this.last++;
  }
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
