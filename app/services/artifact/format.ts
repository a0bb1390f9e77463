// The on-disk format of an artifact's span index, `<vault>/index/<sha256>/`. One module so the
// worker that writes it and the reader that serves queries agree on every byte.
//
// Every file is little-endian binary written in 64 KiB blocks; the CRC-32 of each block is kept in
// `sums.bin` (whose own SHA-256 is in the manifest), so a truncated or altered file is detected at
// open (sizes, sums) or at the first read of a bad block, and the index is rebuilt, never trusted.
//
// A query reads four columns (spans, text, map, lines below), page by page: a page's share of each
// is stored, or made again on demand by re-sanitizing the page (pages.ts, replay.ts). Their layout:
// - spans            SPAN_RECORD bytes per span, in stream order (offsets ascending, no overlap):
//                    0 offset f64 | 8 length f64 | 16 code i32 | 20 meaning id u16 (low 12 bits)
//                    + terminator (high 4 bits) | 22 class u8 | 23 flags u8.
// - text             the sanitized UTF-8 text, exactly what the Sanitizer emitted.
// - map              offset map segments in text order, MAP_RECORD bytes: textStart f64 |
//                    rawStart f64 | rawLength f64, negated for a Replaced segment (lengths are >= 1)
//                    — the same segments the Sanitizer's OffsetMap holds (same coalescing rule).
// - lines            f64 text offset of each display line's start: after every LF, and a cut every
//                    MAX_LINE_BYTES text bytes (at a character boundary; such a line is `continued`).
//                    An artifact that is not empty has at least one line (line 0 at text offset 0).
//
// Files (FILE_ORDER, the order their sums are stored):
// - `manifest.json`  format version, sanitizer fingerprint, sanitizer options, raw size and digest,
//                    counts, the removal report, the meaning table, file sizes, sums digest.
// - `pages.bin`      the page table (pages.ts): per page of `pageBytes`, the column positions and
//                    the Sanitizer's state at its start, and where a stored page's columns are.
// - `stored-spans.bin`, `stored-text.bin`, `stored-map.bin`, `stored-lines.bin`: the columns of the
//                    stored pages, in page order (a small artifact stores every page; build.ts).
// - `minimap.bin`    u32 counts [class][bucket] of span starts; bucket width in the manifest.
// - `checkpoints.bin` CHECKPOINT_FIELDS f64 per page boundary: boundary | spans reported by the
//                    boundary (all ended by it: a lower bound for span searches) | resume offset |
//                    text offset | map segment count | line count | resume span. All but the
//                    resume pair are as of the boundary. `resume` is the first point at or after
//                    the boundary where the Parser is at rest (`Parser.atRest`: both readings —
//                    UTF-8 and 8-bit — in ground, no ambiguous stretch, sequence, split character
//                    or held joiner open), found by feeding the bytes after a busy boundary in
//                    growing pieces; `resume span` is the number of spans reported by then. A fresh
//                    Parser fed from `resume` reports exactly the spans from `resume span` on.
// - `secrets.bin`    the suspected secrets in the text (build-secrets.ts: the redaction stage of the
//                    capture, with the vault's allowlist), SECRET_RECORD bytes each, in text order,
//                    none overlapping: textStart f64 | textEnd f64 | rule f64 (index into the
//                    manifest's `secrets.rules`). Their raw ranges are the offset map's image.
// - `sums.bin`       u32 CRC-32 per 64 KiB block of each file above, files in FILE_ORDER.
//
// The meaning table numbers meanings as spans name them: sorted when pages are replayed (a replay
// and the pages stored after the build number them by it), else in order of first appearance.

/** Bump on any change to the layout above: older caches are rebuilt. */
export const INDEX_FORMAT = 6;

export const SPAN_RECORD = 24;
export const MAP_RECORD = 24;
export const LINE_RECORD = 8;
export const CHECKPOINT_FIELDS = 7;
export const CHECKPOINT_RECORD = CHECKPOINT_FIELDS * 8;

/** Raw bytes per page (and checkpoint distance) when the caller does not choose. */
export const DEFAULT_PAGE_BYTES = 128 << 10;
/** Longest display line in text bytes before it is cut (`continued`). */
export const MAX_LINE_BYTES = 4096;
/** Checksummed block size of every index file. */
export const BLOCK_BYTES = 64 << 10;
/** Fine minimap buckets at most (getMinimap sums them down to what the caller asks). */
export const MAX_FINE_BUCKETS = 1 << 16;
/** Meaning ids fit 12 bits; the meaning tables hold a few hundred strings. */
export const MAX_MEANINGS = 4095;

/** The index's data files, in the order their sums are stored. */
export const FILE_ORDER = ['pages.bin', 'stored-spans.bin', 'stored-text.bin', 'stored-map.bin', 'stored-lines.bin', 'minimap.bin', 'checkpoints.bin', 'secrets.bin'] as const;
export type IndexFileName = (typeof FILE_ORDER)[number];
/** What a query reads (IndexReader.files): the four columns, the minimap and the checkpoints. */
export type IndexFile = 'spans.bin' | 'text.bin' | 'map.bin' | 'lines.bin' | 'minimap.bin' | 'checkpoints.bin' | 'secrets.bin';
export const MANIFEST = 'manifest.json';
export const SUMS = 'sums.bin';

/** How a string or sequence ended (stored in 4 bits). */
export const TERMINATORS = [null, 'BEL', 'ST', 'C1 ST', 'CAN', 'SUB', 'ESC', 'EOF', 'final', 'C1', 'interrupted'] as const;
export const enum Term { None = 0, Bel = 1, St = 2, C1St = 3, Can = 4, Sub = 5, Esc = 6, Eof = 7, Final = 8, C1 = 9, Interrupted = 10 }

/** Sanitizer options an index was built with (part of its identity). */
export interface IndexSanitizerOptions {
  readonly cr: 'newline' | 'overwrite';
  readonly limits: { maxCsiParamBytes: number; maxStringBytes: number; maxEscIntermediates: number };
}

export interface IndexCounts {
  readonly spans: number;
  readonly textBytes: number;
  readonly lines: number;
  readonly segments: number;
  readonly checkpoints: number;
}

export interface IndexManifest {
  readonly format: number;
  /** Fingerprint of the parser and sanitizer that built it (see sanitizerFingerprint). */
  readonly sanitizerFingerprint: string;
  readonly sha256: string;
  readonly size: number;
  readonly sanitizer: IndexSanitizerOptions;
  readonly pageBytes: number;
  readonly maxLineBytes: number;
  /** Pages a replay may re-sanitize before the one it serves (pages.ts MAX_REPLAY_PAGES). */
  readonly replayPages: number;
  readonly minimap: { readonly buckets: number; readonly bucketBytes: number };
  readonly counts: IndexCounts;
  /** Offset map raw starts ascend with text (newline mode); overwrite mode may reorder. */
  readonly monotonic: boolean;
  /** Span ends never decrease in stored order (what every span query's binary search relies on). */
  readonly endsOrdered: boolean;
  readonly meanings: readonly string[];
  readonly report: unknown;
  /** The secrets column: what made it (build-secrets.ts secretsKey), its rule table, and its counts. */
  readonly secrets: IndexSecrets;
  readonly files: Readonly<Record<IndexFileName, number>>;
  readonly sumsSha256: string;
  readonly builtMs: number;
  readonly createdAt: string;
}

/** The manifest's account of the secrets column (never a value). */
export interface IndexSecrets {
  readonly key: string;
  readonly rules: readonly string[];
  readonly count: number;
  readonly byRule: Readonly<Record<string, number>>;
}

/** A replayed index's minimap: LAZY_MINI_BUCKETS buckets, none narrower than LAZY_MINI_BYTES (see {@link lazyMinimap}). */
export const LAZY_MINI_BYTES = 1 << 10;
export const LAZY_MINI_BUCKETS = 16 << 10;

/**
 * The minimap geometry of an index whose pages are replayed: whole groups of fine buckets, about
 * LAZY_MINI_BUCKETS of them (16 times the renderer's 1,024 rows, so its sums come out even), at
 * least LAZY_MINI_BYTES wide. A 16 MiB artifact (the smallest such) gets 1 KiB buckets, 1 GiB
 * 64 KiB ones. An index that stores every page has fine buckets. Either way each span is counted
 * in the bucket it begins in (build-columns.ts SpanColumn, SpanTally).
 */
export function lazyMinimap(size: number): { buckets: number; bucketBytes: number } {
  const fine = fineMinimap(size).bucketBytes;
  const bucketBytes = fine * Math.ceil(Math.max(LAZY_MINI_BYTES, size / LAZY_MINI_BUCKETS) / fine);
  return { buckets: Math.max(1, Math.ceil(size / bucketBytes)), bucketBytes };
}

/** Fine minimap geometry for an artifact of `size` bytes (an index that stores every page). */
export function fineMinimap(size: number): { buckets: number; bucketBytes: number } {
  const bucketBytes = Math.max(1, Math.ceil(size / MAX_FINE_BUCKETS));
  return { buckets: Math.max(1, Math.ceil(size / bucketBytes)), bucketBytes };
}

/** Number of checksummed blocks of a file of `bytes`. */
export function blockCount(bytes: number): number {
  return Math.ceil(bytes / BLOCK_BYTES);
}
