// Re-sanitizes pages of a lazy index (pages.ts): a SegmentRun in `replay` mode starts at a page
// whose first byte is a quiet boundary at rest, takes the building run's state there from the page
// record, and writes into memory exactly the spans, text, map segments and line starts that run
// wrote for the pages that follow. What it writes is checked against the page table's counts, so a
// raw file that changed after indexing is caught, not served.
import { closeSync, constants as fsc, openSync } from 'node:fs';
import { readUpTo } from '../../node/read-up-to';
import { Sanitizer } from '../../../shared/sanitize';
import { PRECEDING_TEXT, SegmentRun, type BuildOptions, type ReplayColumn } from './build';
import type { IndexSanitizerOptions } from './format';
import { COLUMN_NAMES, PAGE_FIELDS, PageField, type PageTable } from './pages';

/** The column bytes of one page, exactly as an eager index holds them. */
export interface PageColumns {
  readonly spans: Uint8Array;
  readonly text: Uint8Array;
  readonly map: Uint8Array;
  readonly lines: Uint8Array;
}

/** What a replay needs of the index it serves. */
export interface ReplaySource {
  readonly rawPath: string;
  readonly sha256: string;
  readonly engine: string;
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
 * The columns of pages `from`..`to` (inclusive), replayed from the start of page `from`, which must
 * be a page a replay can start at (its record's Neutral, or page 0). `keep`: the columns kept (the
 * others come back empty; their lengths are still checked).
 */
export function replayPages(src: ReplaySource, from: number, to: number, keep?: readonly ReplayColumn[]): PageColumns[] {
  const t = src.table;
  if (from < 0 || to < from || to >= t.pages) throw new RangeError(`no pages ${from}..${to} (internal error)`);
  if (from > 0 && t.get(from, PageField.Neutral) !== 1) throw new RangeError(`page ${from} cannot start a replay (internal error)`);
  const options: BuildOptions = {
    rawPath: src.rawPath, outDir: '', sha256: src.sha256, sanitizer: src.sanitizer, engine: src.engine, pageBytes: src.pageBytes,
    maxLineBytes: src.maxLineBytes, verifyDigest: false,
  };
  const record = t.f.subarray(from * PAGE_FIELDS, (from + 1) * PAGE_FIELDS);
  const run = new SegmentRun(options, {
    index: 0, starts: [from * src.pageBytes], dir: '', mode: 'replay', seed: { record, meanings: src.meanings }, stopAfter: (to + 1) * src.pageBytes, keep,
  }, null, null);
  try {
    run.run();
    if (run.unknownMeanings > 0) throw new ReplayMismatch('a replayed page holds a meaning the index does not know');
    const marks = run.marks;
    if (marks.length !== to - from + 2) throw new ReplayMismatch(`replay of pages ${from}..${to} ended after ${marks.length - 1} pages`);
    const w = [run.writers['spans.bin'], run.writers['text.bin'], run.writers['map.bin'], run.writers['lines.bin']];
    const out: PageColumns[] = [];
    for (let p = from; p <= to; p++) {
      const i = p - from;
      const cols = w.map((writer, c) => {
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
  const sanitizer = new Sanitizer({
    cr: src.sanitizer.cr, limits: src.sanitizer.limits, reuseOutputBuffer: true, precedingText: PRECEDING_TEXT[t.get(from, PageField.TextKind)],
  });
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
    const run = new SegmentRun({ ...o, outDir: '', verifyDigest: false }, {
      index: 0, starts: [0], dir: '', mode: 'replay', seed: { record, meanings: [] }, stopAfter: WARM_PAGES * o.pageBytes,
    }, null, null);
    try {
      run.run();
    } finally {
      run.dispose();
    }
  } catch {
    // Only a warm-up.
  }
}
