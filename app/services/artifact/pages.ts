// The page table of an index (`pages.bin`): one record per raw page plus one for the end. A page's
// share of the spans, text, offset map and line columns is stored (every page of a small artifact,
// and pages a replay could not reach cheaply: no quiet boundary at rest within MAX_REPLAY_PAGES
// before them), or made again on demand by re-sanitizing it (replay.ts) from the start of the page
// named in its record, seeded with what the record holds of the Sanitizer's state there.
import type { Snap } from './build-snap';
import { LINE_RECORD, MAP_RECORD, SPAN_RECORD } from './format';

/** f64 fields of a page record. */
export const enum PageField {
  /** Column positions at the page's start: spans reported, text bytes, map segments closed, line starts. */
  Spans = 0,
  Text = 1,
  MapClosed = 2,
  Lines = 3,
  /** The page a replay of this one starts at (its first byte's page index), or -1: stored. */
  Restart = 4,
  /** 1 when a replay can start at this page's first byte (Snap.neutral). */
  Neutral = 5,
  /** The seed of a replay from here (Snap): what the text so far ended with, the line cutter, the open map segment. */
  TextKind = 6,
  LineKey = 7,
  SeekCut = 8,
  HasOpen = 9,
  OpenT = 10,
  OpenR = 11,
  /** Signed like map.bin: negative for a Replaced segment. */
  OpenLen = 12,
  /** Stored pages: where the page's bytes of spans, text, map and lines begin in the stored files; else -1. */
  StoredSpans = 13,
  StoredText = 14,
  StoredMap = 15,
  StoredLines = 16,
}

export const PAGE_FIELDS = 17;
/** The page table's file. */
export const PAGES_FILE = 'pages.bin';
export const PAGE_RECORD = PAGE_FIELDS * 8;

/**
 * Pages a replay may re-sanitize before the one it serves. A page further than this from the last
 * quiet boundary at rest is stored instead, so serving any page costs at most this many + 1 pages.
 */
export const MAX_REPLAY_PAGES = 3;

/** The stored columns: the bytes of stored pages only, in page order. */
export const STORED_FILES = ['stored-spans.bin', 'stored-text.bin', 'stored-map.bin', 'stored-lines.bin'] as const;

/** The four columns a page holds, in PageColumns order: file name, record size, page-table field, where a stored page's bytes begin. */
export const COLUMN_NAMES = ['spans.bin', 'text.bin', 'map.bin', 'lines.bin'] as const;
export const COLUMN_RECORD = [SPAN_RECORD, 1, MAP_RECORD, LINE_RECORD] as const;
export const COLUMN_FIELD = [PageField.Spans, PageField.Text, PageField.MapClosed, PageField.Lines] as const;
export const STORED_FIELD = [PageField.StoredSpans, PageField.StoredText, PageField.StoredMap, PageField.StoredLines] as const;

/** A page record from a run's state at the page's first byte (not stored: build.ts marks the pages it stores). */
export function pageRecord(s: Snap, mapClosed: number, restart: number): Float64Array {
  const r = new Float64Array(PAGE_FIELDS);
  r[PageField.Spans] = s.spans;
  r[PageField.Text] = s.text;
  r[PageField.MapClosed] = mapClosed;
  r[PageField.Lines] = s.lines;
  r[PageField.Restart] = restart;
  r[PageField.Neutral] = s.neutral ? 1 : 0;
  r[PageField.TextKind] = s.textKind;
  r[PageField.LineKey] = s.lineKey;
  r[PageField.SeekCut] = s.seekCut ? 1 : 0;
  r[PageField.HasOpen] = s.hasOpen ? 1 : 0;
  r[PageField.OpenT] = s.openT;
  r[PageField.OpenR] = s.openR;
  r[PageField.OpenLen] = s.openLen;
  for (const f of STORED_FIELD) r[f] = -1;
  return r;
}

/** The page table, read whole (136 bytes a MiB of raw). */
export class PageTable {
  constructor(readonly f: Float64Array, readonly pageBytes: number) {
    if (f.length % PAGE_FIELDS !== 0) throw new RangeError('torn page table');
  }

  /** Pages (records but the last, which holds the end's counts). */
  get pages(): number {
    return this.f.length / PAGE_FIELDS - 1;
  }

  get(page: number, field: PageField): number {
    return this.f[page * PAGE_FIELDS + field];
  }

  /** Where column `c` (PageColumns order) stands at the start of page `p`, in bytes. */
  columnStart(p: number, c: number): number {
    return this.get(p, COLUMN_FIELD[c]) * COLUMN_RECORD[c];
  }

  /** Bytes of column `c` that page `p` holds. */
  columnBytes(p: number, c: number): number {
    return this.columnStart(p + 1, c) - this.columnStart(p, c);
  }

  /** Whether some page is replayed (not stored). */
  replays(): boolean {
    for (let p = 0; p < this.pages; p++) if (this.get(p, PageField.Restart) >= 0) return true;
    return false;
  }

  /** The page a replay of page `p` starts at: its record's restart, or for a stored page the last page a replay can start at. */
  replayStart(p: number): number {
    const r = this.get(p, PageField.Restart);
    if (r >= 0) return r;
    let q = p;
    while (q > 0 && this.get(q, PageField.Neutral) !== 1) q--;
    return q;
  }

  /** The last page whose start has `field` at most `value` (columns grow page by page). */
  pageAt(field: PageField, value: number): number {
    let lo = 0;
    let hi = this.pages - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.get(mid, field) <= value) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}

/** Float64 arrays (page records, map records) end to end in one. */
export function concatF64(parts: readonly Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
