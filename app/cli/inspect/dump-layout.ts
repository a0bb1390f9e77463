// What the dump's parts agree on: its layout, the meanings of the span log's kinds, and the
// feed and lag that decide where each span's lines go. Apart from the engine (engine.ts), so that
// what only feeds a dump (the parse thread, the slot ring) does not load the engine's module.

/** Digits in the offset column: enough for 4 GiB; longer offsets widen the column. */
export const OFFSET_DIGITS = 8;

/**
 * Rows wait until this many bytes after them have been parsed, so the spans that start in a row
 * and end within that distance (nearly all of them) are known when it is printed, and their
 * lines sit right under it. A span that ends later is annotated under the row where it became
 * known (an unterminated string: after the last row).
 */
export const LAG = 32 * 1024;

/**
 * Bytes parsed between two advances: the dump shows rows after each FEED bytes. What it shows
 * depends on it (a span that completes after the row it starts in was shown goes under a later
 * row; a run ends where its first span's row was shown), so every way of feeding the dump (one
 * thread or two) feeds it the same.
 */
export const FEED = 32 * 1024;

/** How the dump is laid out. */
export interface DumpLayout {
  /** The shown range: `[offset, windowEnd)` of the stream (`windowEnd` may be Infinity). */
  readonly offset: number;
  readonly windowEnd: number;
  /** Bytes per row. */
  readonly width: number;
  /** Colour with Airlock's own SGR. */
  readonly color: boolean;
  /** Terminal width, or Infinity when output is not a terminal (rows and lines then stay whole). */
  readonly columns: number;
  /**
   * Tests only: the stream offset of the first byte fed (0): spans and rows are where they would
   * be that far into a stream (offsets past 4 GiB without 4 GiB of input).
   */
  readonly streamBase?: number;
}

/** Where the meanings of a span log's kinds come from: the sanitizer that records it. */
export interface SpanMeanings {
  spanMeaning(id: number): string;
  readonly spanMeaningCount: number;
}
