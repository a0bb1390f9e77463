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
 */
export class SpanQueue {
  private groups: SpanGroup[] = [];

  /** Adds a completed span. */
  add(cls: SpanClass, offset: number, length: number, meaning: string, flags: number): void {
    const last = this.groups[this.groups.length - 1];
    if (last && last.cls === cls && last.meaning === meaning && last.flags === flags && last.end === offset) {
      last.end = offset + length;
      last.count++;
      return;
    }
    this.groups.push({ start: offset, end: offset + length, cls, meaning, flags, count: 1 });
  }

  /** Removes and returns the groups that start before `offset`, in start order. */
  takeBefore(offset: number): SpanGroup[] {
    if (this.groups.length === 0) return [];
    // Spans complete in end order, so a long string can follow shorter spans nested in it.
    this.groups.sort((a, b) => a.start - b.start);
    let k = 0;
    while (k < this.groups.length && this.groups[k].start < offset) k++;
    const taken = this.groups.slice(0, k);
    this.groups = this.groups.slice(k);
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
  return names.length > 0 ? `[${names.join(', ')}]` : '';
}

/** The class name of a group, as reports spell it. */
export function className(cls: SpanClass): string {
  return SPAN_CLASS_NAMES[cls];
}
