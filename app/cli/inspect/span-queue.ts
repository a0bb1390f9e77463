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

/**
 * Collects spans as the parser completes them and hands them out by start offset, merging a span
 * into the previous one when it has the same class, meaning and flags and starts where it ended.
 * Kept sorted on insert: spans complete almost in start order (only a sequence that contains an
 * executed control finishes after it), so insertion walks back a step or two and taking is O(k).
 */
export class SpanQueue {
  private groups: SpanGroup[] = [];
  /** Index of the first group not yet taken. */
  private head = 0;
  private last: SpanGroup | undefined;

  /** Adds a completed span. */
  add(cls: SpanClass, offset: number, length: number, meaning: string, flags: number): void {
    const last = this.last;
    if (last && last.cls === cls && last.meaning === meaning && last.flags === flags && last.end === offset) {
      last.end = offset + length;
      last.count++;
      return;
    }
    const group = { start: offset, end: offset + length, cls, meaning, flags, count: 1 };
    const groups = this.groups;
    let k = groups.length;
    while (k > this.head && groups[k - 1].start > offset) k--;
    if (k === groups.length) groups.push(group);
    else groups.splice(k, 0, group);
    this.last = group;
  }

  /** Removes and returns the groups that start before `offset`, in start order. */
  takeBefore(offset: number): SpanGroup[] {
    const groups = this.groups;
    const from = this.head;
    let k = from;
    while (k < groups.length && groups[k].start < offset) k++;
    if (k === from) return [];
    const taken = groups.slice(from, k);
    this.head = k;
    // Every group starting before `offset` is gone now; never merge into one already handed out.
    if (this.last && this.last.start < offset) this.last = undefined;
    if (k === groups.length) {
      this.groups = [];
      this.head = 0;
      this.last = undefined;
    } else if (k > 4096 && k * 2 > groups.length) {
      this.groups = groups.slice(k);
      this.head = 0;
    }
    return taken;
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
