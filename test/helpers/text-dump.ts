// The dump of `airlock inspect` built as text from its definitions, the reference the dump engine
// (app/cli/inspect/engine) is held to byte for byte: rows by formatHexRows and formatRow, lines by
// annotationLines, cuts by wrapLine, and what the dump does with spans and rows as it goes:
//
// - Spans are kept in start order as they complete (only those overlapping the shown range); a
//   span extends the group before it into a run when it starts where that one ends, is alike
//   (class, flags, meaning) and that group was not taken yet.
// - Rows are shown once LAG bytes after them are parsed (the parser writes FEED bytes at a time),
//   or at the end; a row takes the groups that start before its end: their lines follow it (those
//   in the range), and they colour bytes from then on. A byte takes the colour of the first group
//   taken that holds it, else its cell's kind's.
// - Before the range and past it, groups are taken as they come (they colour, but get no lines);
//   at the end, every group left.
import { FEED, LAG, OFFSET_DIGITS, type DumpLayout } from '../../app/cli/inspect/dump-layout';
import { annotationLines, LINE_CONTINUATION, type SpanGroup } from '../../app/cli/inspect/line-text';
import { formatRow, kindSgrs } from '../../app/cli/inspect/row-text';
import { wrapLine } from '../../app/node/fit';
import { formatHexRows } from '../../shared/hex';
import type { SpanClass } from '../../shared/parser';
import { Sanitizer } from '../../shared/sanitize';

interface Group extends SpanGroup {
  len: number;
  count: number;
}

class TextDump {
  private readonly out: string[] = [];
  private readonly log: Group[] = [];
  private head = 0;
  private latest = -1;
  private bytes = new Uint8Array(0);
  /** The stream offset of bytes[0] (layout.streamBase), of the end of what was fed, of the rows shown up to. */
  private readonly base: number;
  private fed: number;
  private pos: number;
  /** The colour of continuation cells at the next row's start (its lead's: kindSgrs). */
  private leadSgr = '';
  /** Groups taken that may colour bytes from here on, in the order taken. */
  private active: { start: number; end: number; cls: SpanClass }[] = [];

  constructor(private readonly layout: DumpLayout) {
    this.base = layout.streamBase ?? 0;
    this.fed = this.base;
    this.pos = this.base;
  }

  /** The sanitizer's span callback. */
  readonly add = (cls: SpanClass, at: number, length: number, meaning: string, flags: number): void => {
    const offset = at + this.base;
    const { offset: from, windowEnd } = this.layout;
    if (offset >= windowEnd || offset + length <= from) return;
    const last = this.log[this.latest];
    if (this.latest >= this.head && last.start + last.len === offset && last.cls === cls && last.flags === flags && last.meaning === meaning) {
      last.len += length;
      last.count++;
      return;
    }
    let k = this.log.length;
    while (k > this.head && this.log[k - 1].start > offset) k--;
    this.log.splice(k, 0, { start: offset, len: length, count: 1, cls, flags, meaning });
    this.latest = k;
  };

  append(chunk: Uint8Array): void {
    const next = new Uint8Array(this.bytes.length + chunk.length);
    next.set(this.bytes);
    next.set(chunk, this.bytes.length);
    this.bytes = next;
    this.fed += chunk.length;
  }

  /** Takes the groups that start before `before`. */
  private take(before: number): Group[] {
    const from = this.head;
    while (this.head < this.log.length && this.log[this.head].start < before) this.head++;
    return this.log.slice(from, this.head);
  }

  /** Keeps the colours of `groups`, then drops those that end at or before `at`. */
  private keep(groups: Group[], at: number): void {
    for (const g of groups) this.active.push({ start: g.start, end: g.start + g.len, cls: g.cls });
    this.active = this.active.filter((a) => a.end > at);
  }

  private lines(groups: Group[]): void {
    const { offset, windowEnd, color, columns } = this.layout;
    const shown = groups.filter((g) => g.start >= offset && g.start < windowEnd);
    for (const line of annotationLines(shown, color)) for (const row of wrapLine(line, columns, LINE_CONTINUATION)) this.out.push(`${row}\n`);
  }

  advance(final: boolean): void {
    const { offset, windowEnd, width, color, columns } = this.layout;
    const limit = final ? Infinity : this.fed - LAG;
    if (this.pos < offset) {
      const to = Math.min(offset, this.fed);
      if (to > this.pos) {
        this.pos = to;
        const groups = this.take(to);
        this.lines(groups);
        this.keep(groups, to);
      }
      if (this.pos < offset) return;
    }
    while (this.pos < windowEnd) {
      const at = this.pos;
      let rowEnd = Math.min(at + width, windowEnd);
      if (rowEnd > limit) break;
      if (rowEnd > this.fed) rowEnd = this.fed;
      if (rowEnd <= at) break;
      const groups = this.take(rowEnd);
      this.keep(groups, at);
      const i = at - this.base;
      const context = this.bytes.subarray(Math.max(0, i - 3), i);
      const lookahead = this.bytes.subarray(rowEnd - this.base, Math.min(rowEnd + 3, this.fed) - this.base);
      // (Formatted from the stream's start, then moved: no byte precedes the stream.)
      const [local] = formatHexRows(this.bytes.subarray(i, rowEnd - this.base), i, { width, context, lookahead });
      const row = { ...local, offset: at };
      const spanAt = (x: number): SpanClass | undefined => this.active.find((a) => a.start <= x && x < a.end)?.cls;
      for (const line of formatRow(row, { width, offsetDigits: OFFSET_DIGITS, color, columns, spanAt, leadSgr: this.leadSgr })) this.out.push(`${line}\n`);
      this.leadSgr = kindSgrs(row, this.leadSgr).at(-1) ?? '';
      this.lines(groups);
      this.pos = rowEnd;
    }
    if (this.pos >= windowEnd || final) {
      if (this.pos >= windowEnd) this.pos = Math.max(this.pos, this.fed);
      const groups = this.take(final ? Infinity : this.pos);
      this.lines(groups);
      this.keep(groups, this.pos);
    }
  }

  text(): string {
    return this.out.join('');
  }
}

/**
 * The reference dump of `bytes` in `layout`, the parser fed `feed` bytes per write (as `airlock
 * inspect` feeds FEED), rows shown after each; as latin1 text.
 */
export function textDump(bytes: Uint8Array, layout: DumpLayout, feed = FEED): string {
  const dump = new TextDump(layout);
  const sanitizer = new Sanitizer({ onSpan: dump.add, reuseOutputBuffer: true });
  for (let i = 0; i < bytes.length; i += feed) {
    const chunk = bytes.subarray(i, i + feed);
    sanitizer.write(chunk);
    dump.append(chunk);
    dump.advance(false);
  }
  sanitizer.end();
  dump.advance(true);
  return Buffer.from(dump.text(), 'utf8').toString('latin1');
}
