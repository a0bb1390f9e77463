import type { SpanClass } from '../../../shared/parser';
import type { SpanQueue } from './span-queue';

/**
 * A colour dump's spans that may still colour bytes of rows to come, in the order they were taken
 * (start order: a byte in two takes the colour of the first). Start, end and class in parallel
 * arrays rather than an object per span: BEL/BS input has a span per byte, and the queue forms no
 * series when colouring.
 */
export class ActiveSpans {
  start = new Float64Array(64);
  end = new Float64Array(64);
  cls = new Uint8Array(64);
  length = 0;

  /** Appends the span `[start, end)` of class `cls`. */
  push(start: number, end: number, cls: SpanClass): void {
    if (this.length === this.start.length) this.grow();
    const n = this.length++;
    this.start[n] = start;
    this.end[n] = end;
    this.cls[n] = cls;
  }

  /** Appends group `k` of `queue`: its span, or each span of a series in its order (as SpanQueue.pushGroups). */
  pushGroup(queue: SpanQueue, k: number): void {
    const len = queue.len[k];
    const stride = queue.stride[k];
    const cls = queue.cls[k] as SpanClass;
    for (let m = 0, at = queue.start[k]; m < queue.members[k]; m++, at += stride) this.push(at, at + len, cls);
  }

  /** Drops, in place and keeping the order, the spans that end at or before `at`: they colour nothing from there on. */
  dropEnded(at: number): void {
    const { start, end, cls } = this;
    let n = 0;
    for (let k = 0; k < this.length; k++) {
      if (end[k] <= at) continue;
      start[n] = start[k];
      end[n] = end[k];
      cls[n++] = cls[k];
    }
    this.length = n;
  }

  /** Whether a span ends after `at` (so it may colour a byte from `at` on). */
  reaches(at: number): boolean {
    for (let k = 0; k < this.length; k++) if (this.end[k] > at) return true;
    return false;
  }

  /** The class of the first span that holds offset `x` (formatRow's spanAt), or undefined. */
  classAt(x: number): SpanClass | undefined {
    for (let k = 0; k < this.length; k++) if (this.start[k] <= x && x < this.end[k]) return this.cls[k] as SpanClass;
    return undefined;
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
