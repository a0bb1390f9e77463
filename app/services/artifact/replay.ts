// Re-sanitizes pages of an index (pages.ts): a ReplayRun (build-run.ts's loop) starts at a page
// whose first byte is a quiet boundary at rest, takes the building run's state there from the page
// record, and writes into memory exactly the spans, text, map segments and line starts that run
// counted for the pages that follow. What it writes is checked against the page table's counts,
// so a raw file that changed after indexing is caught, not served.
import { closeSync, constants as fsc, openSync } from 'node:fs';
import { readUpTo } from '../../files/read-up-to';
import { Sanitizer, SegmentKind } from '../../../shared/sanitize';
import { MeaningTable } from './build-columns';
import { BuildRun, PRECEDING_TEXT, type RunOptions } from './build-run';
import type { BuildOptions } from './build';
import { ColumnWriter } from './columns';
import type { IndexSanitizerOptions } from './format';
import { COLUMN_NAMES, PAGE_FIELDS, PageField, type PageTable } from './pages';

/** The column bytes of one page, exactly as the index's stored pages hold them. */
export interface PageColumns {
  readonly spans: Uint8Array;
  readonly text: Uint8Array;
  readonly map: Uint8Array;
  readonly lines: Uint8Array;
}

/** The four columns a replay can keep. */
export type ReplayColumn = (typeof COLUMN_NAMES)[number];

/** What a replay needs of the index it serves. */
export interface ReplaySource {
  readonly rawPath: string;
  readonly sha256: string;
  readonly sanitizerFingerprint: string;
  readonly sanitizer: IndexSanitizerOptions;
  readonly pageBytes: number;
  readonly maxLineBytes: number;
  readonly meanings: readonly string[];
  readonly table: PageTable;
}

const EMPTY = new Uint8Array(0);

/** A replay wrote other than the index says: the raw file is not the one indexed, or the index is damaged. */
export class ReplayMismatch extends Error {}

/**
 * A run from a page start seeded with the building run's state there (the page record, a quiet
 * boundary at rest: Snap.neutral), into memory; it marks where each column stands at every page
 * start, and stops at the first page start at or after `stopAfter`.
 */
class ReplayRun extends BuildRun {
  /** Each column's bytes written by the start of each page replayed (and by the end). */
  readonly marks: number[][] = [];
  readonly writers: ColumnWriter[];
  private readonly initialMeanings: number;

  constructor(o: RunOptions, record: Float64Array, meanings: readonly string[], start: number, private readonly stopAfter: number, keep?: readonly ReplayColumn[]) {
    const kept = (name: ReplayColumn): ColumnWriter => ColumnWriter.memory(keep === undefined || keep.includes(name) ? 'keep' : 'drop');
    const writers = COLUMN_NAMES.map(kept);
    super(o, { spans: writers[0], text: writers[1], map: writers[2], lines: writers[3] }, {
      at: start,
      precedingText: PRECEDING_TEXT[record[PageField.TextKind]],
      meanings: new MeaningTable(meanings),
      countSpans: keep !== undefined && !keep.includes('spans.bin'),
    });
    this.writers = writers;
    this.initialMeanings = meanings.length;
    // The map and line writers take the open segment and the line cutter's state from the record;
    // their text offsets shift by the text before (the Sanitizer counts from 0).
    const text = record[PageField.Text];
    const m = this.mapCol;
    m.count = record[PageField.MapClosed];
    m.has = record[PageField.HasOpen] === 1;
    m.tStart = record[PageField.OpenT] - text;
    m.rStart = record[PageField.OpenR];
    const len = record[PageField.OpenLen];
    m.rLen = Math.abs(len);
    m.kind = len < 0 ? SegmentKind.Replaced : SegmentKind.Verbatim;
    m.textEnd = 0;
    m.tShift = text;
    m.quiet = true;
    const l = this.lineCol;
    l.count = record[PageField.Lines];
    l.shift = text;
    const key = record[PageField.LineKey];
    // A line start waiting (key -1) is at the text's end; else the line began `key` bytes before it.
    l.pending = key < 0 ? 0 : -1;
    l.lineStart = key < 0 ? 0 : -key;
    l.seekCut = record[PageField.SeekCut] === 1;
  }

  /** Meanings it met that the index's table does not hold (a sign the raw file changed). */
  get unknownMeanings(): number {
    return this.meanings.meanings.length - this.initialMeanings;
  }

  protected override beforePage(pos: number): boolean {
    this.mark();
    return pos < this.stopAfter || pos === this.start;
  }

  protected override ended(): void {
    this.mapCol.finish();
    this.lineCol.finish(this.size > 0);
    this.mark();
  }

  private mark(): void {
    this.marks.push(this.writers.map((w) => w.bytes));
  }
}

/**
 * The columns of pages `from`..`to` (inclusive), replayed from the start of page `from`, which must
 * be a page a replay can start at (its record's Neutral, or page 0). `keep`: the columns kept (the
 * others come back empty; their lengths are still checked).
 */
export function replayPages(src: ReplaySource, from: number, to: number, keep?: readonly ReplayColumn[]): PageColumns[] {
  const t = src.table;
  if (from < 0 || to < from || to >= t.pages) throw new RangeError(`no pages ${from}..${to} (internal error)`);
  if (from > 0 && t.get(from, PageField.Neutral) !== 1) throw new RangeError(`page ${from} cannot start a replay (internal error)`);
  const record = t.f.subarray(from * PAGE_FIELDS, (from + 1) * PAGE_FIELDS);
  const run = new ReplayRun(src, record, src.meanings, from * src.pageBytes, (to + 1) * src.pageBytes, keep);
  try {
    run.run();
    if (run.unknownMeanings > 0) throw new ReplayMismatch('a replayed page holds a meaning the index does not know');
    const marks = run.marks;
    if (marks.length !== to - from + 2) throw new ReplayMismatch(`replay of pages ${from}..${to} ended after ${marks.length - 1} pages`);
    const out: PageColumns[] = [];
    for (let p = from; p <= to; p++) {
      const i = p - from;
      const cols = run.writers.map((writer, c) => {
        const lo = marks[i][c];
        const hi = marks[i + 1][c];
        const want = t.columnBytes(p, c);
        if (hi - lo !== want) throw new ReplayMismatch(`replayed page ${p} differs from the index (column ${c}: ${hi - lo} bytes, index ${want})`);
        return keep && !keep.includes(COLUMN_NAMES[c]) ? EMPTY : writer.contents(lo, hi);
      });
      out.push({ spans: cols[0], text: cols[1], map: cols[2], lines: cols[3] });
    }
    return out;
  } finally {
    run.dispose();
  }
}

/**
 * The sanitized text of pages `from`..`to` (inclusive), one array per page, replayed from the
 * start of page `from` (a page a replay can start at, as for {@link replayPages}) by a bare
 * Sanitizer: no offset map, no line cutter, no span callback (plain SGR is only counted), so it runs
 * at the Sanitizer's own speed, ~1.25x a full replay, for the text search that re-sanitizes a whole
 * artifact. The text is the same (none of those change it); its length at every page end is
 * checked against the page table. Returns null where it differs (the index's run fed a page in
 * pieces and emitted otherwise at the page's end): the caller then replays in full, which checks
 * every column and tells a changed raw file from that.
 */
export function replayText(src: ReplaySource, from: number, to: number): Uint8Array[] | null {
  const t = src.table;
  if (from < 0 || to < from || to >= t.pages) throw new RangeError(`no pages ${from}..${to} (internal error)`);
  if (from > 0 && t.get(from, PageField.Neutral) !== 1) throw new RangeError(`page ${from} cannot start a replay (internal error)`);
  // The text alone: no offset map, no span hook.
  const sanitizer = new Sanitizer({ cr: src.sanitizer.cr, limits: src.sanitizer.limits, reuseOutputBuffer: true, precedingText: PRECEDING_TEXT[t.get(from, PageField.TextKind)] });
  const fd = openSync(src.rawPath, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  try {
    const page = new Uint8Array(src.pageBytes);
    const out: Uint8Array[] = [];
    let textAt = t.get(from, PageField.Text);
    for (let p = from; p <= to; p++) {
      const pos = p * src.pageBytes;
      const want = t.get(p + 1, PageField.Text) - textAt;
      // The last page is shorter; its record's successor is the end record.
      const n = readUpTo(fd, page, 0, page.length, pos);
      let text = sanitizer.write(n === page.length ? page : page.subarray(0, n)).slice();
      if (p === t.pages - 1) {
        const rest = sanitizer.end();
        if (rest.length > 0) text = Buffer.concat([text, rest]);
      }
      if (text.length !== want) return null;
      out.push(text);
      textAt += want;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

/** Pages {@link warmReplay} runs: ~0.5 MiB, as much as a jump's replay. */
const WARM_PAGES = 4;

/**
 * Runs the replay code once on the first pages of an artifact and throws what it wrote away. A
 * lazy index's pages are replayed in the query worker, and the first replays in a thread run cold
 * code (a jump's spans took 50-90 ms where a warm replay takes 10-20): the query worker calls this
 * right after the query that opened a lazy index (query-host.ts). The seed is a fresh start (page
 * 0's state); nothing is checked or kept, and a failure (pruned bytes, a short file) only means no
 * warm-up.
 */
export function warmReplay(o: Omit<BuildOptions, 'outDir' | 'verifyDigest'>): void {
  const record = new Float64Array(PAGE_FIELDS);
  record[PageField.Neutral] = 1;
  record[PageField.TextKind] = 1;
  record[PageField.LineKey] = -1;
  try {
    const run = new ReplayRun(o, record, [], 0, WARM_PAGES * o.pageBytes);
    try {
      run.run();
    } finally {
      run.dispose();
    }
  } catch {
    // Only a warm-up.
  }
}
