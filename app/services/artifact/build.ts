// Builds one artifact's span index: reads the raw file in pages (never whole), runs the real
// Sanitizer (offset map on, every span), and writes the columns described in format.ts into
// `outDir`. Synchronous on purpose: it runs in a worker thread (worker.ts), where blocking reads
// are the fastest way through the file; `shouldCancel` is polled once per page.
//
// Segments (see the README's "Parallel build"): the file can be cut at page boundaries into
// segments, each indexed by a fresh Sanitizer of its own (in parallel threads: parallel.ts). A
// segment's run goes on past its end until it reaches a boundary where its state and the state of
// the run that owns that boundary are interchangeable (`Snap`, `matches`); the owner's output from
// there on is then exactly what one run over the whole file writes, shifted by known deltas, and
// `SegmentMerger` splices it on. A run that never finds such a boundary goes on to the end of the
// file, so the result never depends on where (or whether) a splice was found.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readSync, rmSync, writeFileSync, constants as fsc } from 'node:fs';
import { join } from 'node:path';
import { Sanitizer, SegmentKind, type OffsetMap, type RemovalReport } from '../../../shared/sanitize';
import { SpanClass, SpanFlag, SPAN_CLASS_COUNT } from '../../../shared/parser';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { readUpTo } from '../../node/read-up-to';
import { ColumnWriter, type MemoryBudget } from './columns';
import { concatF64, MAX_REPLAY_PAGES, PageField, pageRecord } from './pages';
import { trace } from './trace';
import {
  BLOCK_BYTES, blockCount, CHECKPOINT_FIELDS, CHECKPOINT_RECORD, FILE_ORDER, fineMinimap, INDEX_FORMAT, lazyMinimap, LINE_RECORD, MANIFEST, MAP_RECORD,
  MAX_LINE_BYTES, MAX_MEANINGS, SPAN_RECORD, SUMS, Term, type IndexFile, type IndexManifest, type IndexSanitizerOptions,
} from './format';

export interface BuildOptions {
  readonly rawPath: string;
  /** Empty private directory the files go into (the caller publishes it). */
  readonly outDir: string;
  readonly sha256: string;
  readonly sanitizer: IndexSanitizerOptions;
  readonly engine: string;
  readonly pageBytes: number;
  readonly maxLineBytes?: number;
  /** Hash the raw bytes while indexing and refuse a file whose digest is not its name (default true). */
  readonly verifyDigest?: boolean;
  /**
   * Segments to cut the file into (default 1: one run). In this thread they run one after the
   * other, last first (tests of the splice); parallel.ts runs them in worker threads.
   */
  readonly segments?: number;
  /**
   * Bytes of output a later segment's run keeps in memory for the merge (default
   * DEFAULT_MEMORY_BUDGET): what does not fit goes to files inside `outDir` and is read back.
   */
  readonly memoryBudget?: number;
  readonly onProgress?: (bytesDone: number, spans: number) => void;
  readonly shouldCancel?: () => boolean;
  /** Build a lazy index (pages.ts, lazy-build.ts) instead of writing every column. */
  readonly lazy?: boolean;
}

/** The number of `meaning` in an index's meaning table (`meanings`, `ids`), appended when new. */
function internMeaning(meaning: string, meanings: string[], ids: Map<string, number>): number {
  let id = ids.get(meaning);
  if (id === undefined) {
    if (meanings.length >= MAX_MEANINGS) throw new Error('too many distinct span meanings for the index format');
    id = meanings.length;
    meanings.push(meaning);
    ids.set(meaning, id);
  }
  return id;
}

export class BuildCancelled extends Error {
  constructor() {
    super('indexing cancelled');
  }
}

/** Output a later segment's run keeps in memory by default (the merge reads the rest from its files). */
export const DEFAULT_MEMORY_BUDGET = 1 << 30;

const LF = 0x0a;
/** First piece fed after a boundary the parser was not at rest at (doubling up to a page). */
const FIRST_PROBE = 256;

/** Streams the offset map's segments to map.bin with the OffsetMap's own coalescing rule. */
class MapColumn {
  has = false;
  tStart = 0;
  rStart = 0;
  rLen = 0;
  kind = 0;
  textEnd = 0;
  count = 0;
  monotonic = true;
  /** The open segment does not start before the one closed before it (what `monotonic` checked last). */
  lastPairOk = true;
  /** Added to the text offsets written (a placed run's: see SegmentRun.place). */
  tShift = 0;
  /** No span or stretch was reported since the last segment came (see Snap.neutral; with `counter`, spans are told by {@link spansAtAdd}). */
  quiet = false;
  /**
   * A lazy build's Sanitizer, which reports no span to the build: its span total when the last
   * segment came, so a span since then is seen at a boundary ({@link isQuiet}) without a callback.
   */
  counter: Sanitizer | null = null;
  spansAtAdd = 0;
  /** Raw start of the last segment that began before the one closed before it (`monotonic` from there on), or -1. */
  brokenAt = -1;

  /** `rawBase`: raw offset of the run's first byte (its Sanitizer counts from 0). */
  constructor(private readonly out: ColumnWriter, private readonly rawBase = 0) {}

  add(textPos: number, textLen: number, rawPos: number, rawLen: number, kind: SegmentKind): void {
    this.quiet = true;
    if (this.counter !== null) this.spansAtAdd = this.counter.spanTotal;
    rawPos += this.rawBase;
    if (this.has && kind === SegmentKind.Verbatim && this.kind === SegmentKind.Verbatim
      && this.rStart + this.rLen === rawPos && this.textEnd === textPos) {
      this.rLen += rawLen;
      this.textEnd += textLen;
      return;
    }
    this.begin(textPos, rawPos, rawLen, kind);
    this.textEnd = textPos + textLen;
  }

  /** Closes the open segment (if any) and opens this one: what `add` does for a segment it cannot merge. */
  begin(textPos: number, rawPos: number, rawLen: number, kind: SegmentKind): void {
    if (this.has) {
      this.lastPairOk = rawPos >= this.rStart;
      if (!this.lastPairOk) {
        this.monotonic = false;
        this.brokenAt = rawPos;
      }
      this.push();
    }
    this.has = true;
    this.tStart = textPos;
    this.rStart = rawPos;
    this.rLen = rawLen;
    this.kind = kind;
  }

  /** Nothing but text came since the last segment (Snap.neutral's `quiet`). */
  get isQuiet(): boolean {
    return this.quiet && (this.counter === null || this.counter.spanTotal === this.spansAtAdd);
  }

  /** Segments written plus the one still open. */
  get segments(): number {
    return this.count + (this.has ? 1 : 0);
  }

  /** The open segment ends at raw `rawEnd` and text `textEnd`: a verbatim run there would extend it. */
  mergeableAt(rawEnd: number, textEnd: number): boolean {
    return this.has && this.kind === SegmentKind.Verbatim && this.rStart + this.rLen === rawEnd && this.textEnd === textEnd;
  }

  finish(): void {
    if (this.has) this.push();
    this.has = false;
  }

  private push(): void {
    const at = this.out.reserve(MAP_RECORD) >> 3;
    const f = this.out.f64;
    f[at] = this.tStart + this.tShift;
    f[at + 1] = this.rStart;
    f[at + 2] = this.kind === SegmentKind.Replaced ? -this.rLen : this.rLen;
    this.count++;
  }
}

/** Display line starts: after every LF, and a cut (at a character start) every `max` bytes. */
class LineColumn {
  pos = 0;
  lineStart = 0;
  pending = 0;
  seekCut = false;
  count = 0;
  /** Added to the text offsets written (a placed run's). */
  shift = 0;

  constructor(private readonly out: ColumnWriter, private readonly max: number) {}

  scan(t: Uint8Array): void {
    const n = t.length;
    const buf = Buffer.from(t.buffer, t.byteOffset, n);
    const base = this.pos;
    let i = 0;
    while (i < n) {
      if (this.pending >= 0) {
        this.push(this.pending);
        this.lineStart = this.pending;
        this.pending = -1;
      }
      if (this.seekCut) {
        while (i < n && (t[i] & 0xc0) === 0x80) i++;
        if (i === n) break;
        this.seekCut = false;
        if (t[i] === LF) {
          i++;
          this.pending = base + i;
        } else {
          this.pending = base + i;
        }
        continue;
      }
      const cutAt = this.lineStart + this.max - base;
      const lf = buf.indexOf(LF, i);
      const stop = lf < 0 ? n : lf;
      if (cutAt <= stop) {
        i = Math.max(cutAt, i);
        this.seekCut = true;
        continue;
      }
      if (lf < 0) break;
      i = lf + 1;
      this.pending = base + i;
    }
    this.pos = base + n;
  }

  /**
   * What decides the line starts of the text still to come: a line start waiting (-1), else the
   * bytes since the current line began (the next cut is `max` bytes after its start).
   */
  get key(): number {
    return this.pending >= 0 ? -1 : this.pos - this.lineStart;
  }

  /** `nonEmpty`: the artifact had bytes, so it shows at least one (maybe empty) line. */
  finish(nonEmpty: boolean): void {
    if (this.count === 0 && nonEmpty) this.push(0);
  }

  push(textOffset: number): void {
    // reserve first: a flush may put a new buffer (and views) in place.
    const at = this.out.reserve(LINE_RECORD) >> 3;
    this.out.f64[at] = textOffset + this.shift;
    this.count++;
  }
}

/** Result the worker hands back to main. */
export interface BuildResult {
  readonly manifest: IndexManifest;
  /** Boundaries where a later segment's run took over (empty for one run, or when none could). */
  readonly splices: readonly number[];
  /** The later run wrote its part of the files in place (a placed build, see parallel.ts). */
  readonly placed?: boolean;
}

/**
 * A run's state at a page boundary, as far as it decides the rest of the index: counts (where its
 * output stands in its files) and what later output depends on. Two runs at one boundary whose
 * snaps are both `neutral` and `matches` write the same from there on, shifted by the counts.
 *  - neutral: the Parser is at rest (`Sanitizer.parserAtRest`: a fresh Parser would go on the same)
 *    and the last thing the Sanitizer did was to emit text (`quiet`: a map segment came after the
 *    last span or stretch), so no line break or space is pending (those come from spans and
 *    stretches only and are resolved before any text). Overwrite mode: that text was an LF ending
 *    right at the boundary (the emulated line is empty then, as in a fresh Sanitizer).
 *  - textKind: what the Sanitizer reads of its text so far: at a line start (after LF or none yet),
 *    after a space, else other.
 *  - lineKey and seekCut: the display-line cutter's state; mergeable: the open map segment would
 *    take a verbatim run starting at the boundary.
 */
export interface Snap {
  neutral: boolean;
  fresh: boolean;
  textKind: number;
  lineKey: number;
  seekCut: boolean;
  mergeable: boolean;
  spans: number;
  text: number;
  mapClosed: number;
  hasOpen: boolean;
  openT: number;
  openR: number;
  /** Signed like map.bin: negative for a Replaced segment. */
  openLen: number;
  lines: number;
  cps: number;
}

const SNAP_FIELDS = 15;

/** Snaps of the page boundaries, written by the run that owns each, read by the run before (shared between threads). */
export class SnapshotTable {
  readonly status: Int32Array;
  readonly fields: Float64Array;

  constructor(readonly pages: number, buffers?: { status: SharedArrayBuffer | ArrayBuffer; fields: SharedArrayBuffer | ArrayBuffer }, shared = false) {
    const mk = (n: number) => (shared ? new SharedArrayBuffer(n) : new ArrayBuffer(n));
    this.status = new Int32Array(buffers?.status ?? mk(4 * (pages + 1)));
    this.fields = new Float64Array(buffers?.fields ?? mk(8 * SNAP_FIELDS * (pages + 1)));
  }

  get buffers(): { status: SharedArrayBuffer | ArrayBuffer; fields: SharedArrayBuffer | ArrayBuffer } {
    return { status: this.status.buffer, fields: this.fields.buffer };
  }

  put(page: number, s: Snap): void {
    const f = this.fields;
    const at = page * SNAP_FIELDS;
    f[at] = s.neutral ? 1 : 0;
    f[at + 1] = s.fresh ? 1 : 0;
    f[at + 2] = s.textKind;
    f[at + 3] = s.lineKey;
    f[at + 4] = s.seekCut ? 1 : 0;
    f[at + 5] = s.mergeable ? 1 : 0;
    f[at + 6] = s.spans;
    f[at + 7] = s.text;
    f[at + 8] = s.mapClosed;
    f[at + 9] = s.hasOpen ? 1 : 0;
    f[at + 10] = s.openT;
    f[at + 11] = s.openR;
    f[at + 12] = s.openLen;
    f[at + 13] = s.lines;
    f[at + 14] = s.cps;
    Atomics.store(this.status, page, s.neutral ? 1 : 2);
    if (this.status.buffer instanceof SharedArrayBuffer) Atomics.notify(this.status, page);
  }

  /** The snap of boundary `page`, or null while its owner has not been there. */
  get(page: number): Snap | null {
    if (Atomics.load(this.status, page) === 0) return null;
    const f = this.fields;
    const at = page * SNAP_FIELDS;
    return {
      neutral: f[at] === 1, fresh: f[at + 1] === 1, textKind: f[at + 2], lineKey: f[at + 3], seekCut: f[at + 4] === 1,
      mergeable: f[at + 5] === 1, spans: f[at + 6], text: f[at + 7], mapClosed: f[at + 8], hasOpen: f[at + 9] === 1,
      openT: f[at + 10], openR: f[at + 11], openLen: f[at + 12], lines: f[at + 13], cps: f[at + 14],
    };
  }

  /** Waits (shared tables only) up to `ms` for boundary `page`'s snap; null if it did not come. */
  wait(page: number, ms: number, cancelled: () => boolean): Snap | null {
    const shared = this.status.buffer instanceof SharedArrayBuffer;
    const until = performance.now() + ms;
    while (shared && Atomics.load(this.status, page) === 0 && !cancelled()) {
      const left = until - performance.now();
      if (left <= 0) break;
      Atomics.wait(this.status, page, 0, Math.min(left, 50));
    }
    return this.get(page);
  }
}

/** Two runs at one boundary write the same from there on (see Snap). */
export function matches(a: Snap, b: Snap): boolean {
  return a.neutral && b.neutral && a.textKind === b.textKind && a.lineKey === b.lineKey && a.seekCut === b.seekCut && a.mergeable === b.mergeable;
}

/**
 * Segment starts (page multiples, ascending, first 0) for `size` bytes cut into at most `n`
 * segments; the first takes `firstShare` of the pages (its thread also hashes and merges the rest).
 */
export function planSegments(size: number, pageBytes: number, n: number, firstShare = 1 / Math.max(1, n)): number[] {
  const pages = Math.ceil(size / pageBytes);
  const k = Math.max(1, Math.min(Math.floor(n), pages));
  const starts: number[] = [0];
  if (k === 1) return starts;
  const first = Math.min(pages - (k - 1), Math.max(1, Math.round(pages * firstShare)));
  for (let i = 1; i < k; i++) {
    const s = (first + Math.floor(((i - 1) * (pages - first)) / (k - 1))) * pageBytes;
    if (s > starts[starts.length - 1] && s < size) starts.push(s);
  }
  return starts;
}

export interface SegmentSpec {
  readonly index: number;
  /** Starts of all segments (segment k runs from starts[k]; its own boundaries end at starts[k + 1]). */
  readonly starts: readonly number[];
  /** Directory of its files: the index directory for segment 0, a private one inside it for the others. */
  readonly dir: string;
  /**
   * `eager` (default) writes every column; `lazy` writes the page table instead of spans, text, map
   * and lines (pages.ts); `replay` re-sanitizes pages of a lazy index into memory (replay.ts).
   */
  readonly mode?: RunMode;
  /** Replay: the page record of the page it starts at, and the index's meaning table. */
  readonly seed?: { readonly record: Float64Array; readonly meanings: readonly string[] };
  /** Replay: stop at the first page boundary at or after this raw offset (else at the end of the file). */
  readonly stopAfter?: number;
  /** Replay: the columns it keeps (default all four); the others are counted, not kept (a search keeps text and map). */
  readonly keep?: readonly ReplayColumn[];
}

export type RunMode = 'eager' | 'lazy' | 'replay';
/** The four columns a replay can keep. */
export type ReplayColumn = 'spans.bin' | 'text.bin' | 'map.bin' | 'lines.bin';

/** Pages between the boundaries where a later run of a lazy build offers to take over (1 MiB of 128 KiB pages; see publish). */
const LAZY_HAND_OVER_PAGES = 8;

/** What a replay's seed says the text so far ended with (Snap.textKind), as a byte for SanitizerOptions.precedingText. */
export const PRECEDING_TEXT = [0x61, LF, 0x20];

/** What a segment's run hands to the merge (plain data: it crosses threads). */
export interface SegmentOutcome {
  readonly index: number;
  readonly start: number;
  /** Boundary where the run handed over to the owner of that boundary, or null: it ran to the end of the file. */
  readonly stopAt: number | null;
  /** Its own state at `stopAt`, or its totals at the end of the file. */
  readonly stop: Snap;
  /** Report at `stopAt` (or complete, at the end). */
  readonly report: RemovalReport;
  /** Reports at its neutral boundaries (the merge needs the one it is spliced in at). */
  readonly reports: Record<number, RemovalReport>;
  readonly meanings: string[];
  /** The first bytes of each file, kept in memory (the file holds the rest). */
  readonly kept: Record<IndexFile, Uint8Array[]>;
  /** Set when the run switched to writing the index files itself (a placed build). */
  readonly placed?: PlacedOutput;
  /** A lazy build's run: what lazy-merge.ts splices. */
  readonly lazy?: LazyRunOutput;
}

/** What a later run of a lazy build hands to the merge (plain data). */
export interface LazyRunOutput {
  /** Its page records (pages.ts), from its start on; the last is the end's when it ran to the end. */
  readonly pages: Float64Array;
  readonly minimap: Uint32Array;
  /** Per page record: the minimap counts (SPAN_CLASS_COUNT) of the bucket the page starts in, as of its start. */
  readonly miniAt: Uint32Array;
  readonly mapBrokenAt: number;
}

/** The buffers an outcome holds (to transfer, not copy, between threads). */
export function keptBuffers(x: SegmentOutcome): ArrayBuffer[] {
  const out = Object.values(x.kept).flatMap((chunks) => chunks.map((c) => c.buffer as ArrayBuffer));
  if (x.placed) out.push(x.placed.minimap.buffer as ArrayBuffer);
  if (x.lazy) out.push(x.lazy.pages.buffer as ArrayBuffer, x.lazy.minimap.buffer as ArrayBuffer, x.lazy.miniAt.buffer as ArrayBuffer);
  return out;
}

/**
 * Placed build (two segments, see the README's "Parallel build"): the files whose bytes the last
 * run writes straight into the index files, at their final offsets, once segment 0 has stopped.
 */
export const PLACED_FILES = ['spans.bin', 'text.bin', 'map.bin', 'lines.bin', 'checkpoints.bin'] as const;
type PlacedFile = (typeof PLACED_FILES)[number];

/** What segment 0's run tells the last run when it stopped at `at` (one of the last run's boundaries): its counts there. */
export interface PlacePlan {
  readonly at: number;
  readonly spans: number;
  readonly text: number;
  readonly lines: number;
  readonly mapClosed: number;
  readonly mapHas: boolean;
  readonly cps: number;
  readonly meanings: readonly string[];
}

/** Where the last run switched to the index files (its own counts then) and what it wrote before: segment 0's thread copies that. */
export interface PlaceSwitch {
  readonly spans: number;
  readonly text: number;
  readonly lines: number;
  readonly mapClosed: number;
  readonly cps: number;
  /** Its meaning table then (the ids of the spans written before). */
  readonly meanings: readonly string[];
  readonly kept: Record<IndexFile, Uint8Array[]>;
}

/** What a placed run wrote into the index files, and what the manifest needs of it. */
export interface PlacedOutput {
  readonly files: Record<PlacedFile, { at: number; end: number; sums: number[] }>;
  /** Minimap counts of the spans it wrote placed. */
  readonly minimap: Uint32Array;
  /** Span ends never decrease among the spans it wrote placed. */
  readonly endsOrdered: boolean;
  /** Map raw starts ascend from the segment open when it switched on. */
  readonly monotonic: boolean;
  /** The index's meaning table (segment 0's, then new ones in order of first appearance). */
  readonly meanings: readonly string[];
}

/** How the last run of a placed build hears of the plan and tells of its switch (a message port in threads). */
export interface Placer {
  poll(): PlacePlan | null;
  announce(sw: PlaceSwitch): void;
}

/** One Sanitizer run from a segment's start on: columns to its files, snaps of its own boundaries. */
export class SegmentRun {
  readonly start: number;
  readonly end: number;
  readonly size: number;
  readonly writers: Record<IndexFile, ColumnWriter>;
  readonly mapCol: MapColumn;
  readonly lineCol: LineColumn;
  readonly mini: { buckets: number; bucketBytes: number };
  readonly minimap: Uint32Array;
  /** Count span starts into `minimap` (segment 0; the last run once placed). */
  private countMini: boolean;
  /** Placed: local meaning id -> the index's, and the index's table. */
  private remap: Int32Array | null = null;
  private globalMeanings: string[] = [];
  private globalIds = new Map<string, number>();
  private plan: PlacePlan | null = null;
  /** Placed: added to checkpoint fields [spans, text, map segments, lines]. */
  private cpShift: number[] | null = null;
  readonly meaningIds = new Map<string, number>();
  readonly meanings: string[] = [];
  spans = 0;
  textBytes = 0;
  cps = 0;
  lastEnd = 0;
  endsOrdered = true;
  stopAt: number | null = null;
  stopSnap: Snap | null = null;
  private lastText = -1;
  private readonly sanitizer: Sanitizer;
  private readonly reports: Record<number, RemovalReport> = {};
  private readonly fd: number;

  constructor(
    private readonly o: BuildOptions,
    private readonly spec: SegmentSpec,
    private readonly table: SnapshotTable | null,
    private readonly hash: ReturnType<typeof createHash> | null,
    /** How long to wait for the owner of a boundary to get there (0: it has been, or never will). */
    private readonly waitMs = 0,
    /** The last run of a placed build: how it hears where its output goes. */
    private placer: Placer | null = null,
  ) {
    const k = spec.index;
    this.start = spec.starts[k];
    this.fd = openSync(o.rawPath, fsc.O_RDONLY | fsc.O_NOFOLLOW);
    const writers: Partial<Record<IndexFile, ColumnWriter>> = {};
    try {
      this.size = fstatSync(this.fd).size;
      this.end = k + 1 < spec.starts.length ? spec.starts[k + 1] : this.size;
      const budget: MemoryBudget | null = k === 0 ? null : { left: o.memoryBudget ?? DEFAULT_MEMORY_BUDGET };
      const mode = spec.mode ?? 'eager';
      for (const name of FILE_ORDER) {
        const column = name !== 'minimap.bin' && name !== 'checkpoints.bin';
        const keep = column && (spec.keep === undefined || (spec.keep as readonly string[]).includes(name));
        // A later run of a lazy build hands its few checkpoints to the merge in memory, all of them
        // (no budget that could spill them to a file the merge does not read); its minimap is an array.
        writers[name] = mode === 'replay' ? ColumnWriter.memory(keep ? 'keep' : 'drop')
          : mode === 'lazy' && column ? ColumnWriter.memory('drop')
            : mode === 'lazy' && k > 0 ? ColumnWriter.memory(name === 'checkpoints.bin' ? 'keep' : 'drop')
              : new ColumnWriter(join(spec.dir, name), k === 0, budget);
      }
    } catch (err) {
      for (const w of Object.values(writers)) w?.abandon();
      closeSync(this.fd);
      throw err;
    }
    this.writers = writers as Record<IndexFile, ColumnWriter>;
    this.mapCol = new MapColumn(this.writers['map.bin'], this.start);
    this.lineCol = new LineColumn(this.writers['lines.bin'], o.maxLineBytes ?? MAX_LINE_BYTES);
    this.mini = spec.mode === 'lazy' ? lazyMinimap(this.size) : fineMinimap(this.size);
    // The minimap of an eager build's later segments is counted by the merge from their spans (a
    // placed run's by itself once placed); every run of a lazy build counts its own.
    const replay = spec.mode === 'replay';
    const lazy = spec.mode === 'lazy';
    this.minimap = new Uint32Array((k === 0 && !replay) || lazy || placer ? SPAN_CLASS_COUNT * this.mini.buckets : 0);
    this.countMini = (k === 0 && !replay) || lazy;
    if (spec.seed) this.seed(spec.seed.record, spec.seed.meanings);
    this.sanitizer = this.makeSanitizer();
  }

  /** Lazy build: the page table, a record per page start (then one for the end: writeEndRecord). */
  readonly pages: Float64Array[] = [];
  /** Replay: each column's bytes written by the start of each page replayed (and by the end). */
  readonly marks: number[][] = [];
  /** Lazy build: the last page whose start could begin a replay. */
  private lastNeutralPage = 0;
  /** Lazy build: each page start's minimap counts of the bucket it falls in, a row of SPAN_CLASS_COUNT per page record. */
  readonly miniAt: number[] = [];
  /** Lazy build: the Sanitizer's span counts by class after the last write, and now (countPiece). */
  private countsBefore = new Float64Array(SPAN_CLASS_COUNT);
  private countsNow = new Float64Array(SPAN_CLASS_COUNT);
  /** Lazy build: spans the listener counted itself since the last write (by class). */
  private readonly heard = new Float64Array(SPAN_CLASS_COUNT);
  private listener: ((cls: number, offset: number) => void) | null = null;
  private listening = false;
  /** Lazy build: bytes of the next write while listening (from FIRST_PROBE, doubling). */
  private probeBytes = FIRST_PROBE;

  /**
   * Lazy build, after a write of the bytes from raw `at` on (within one minimap bucket): the spans
   * reported meanwhile go to that bucket, but those the listener counted where they begin. It
   * listens next while the parser is not at rest (a span may then begin before the next write),
   * over writes of growing size (feed): most sequences open at a write's edge end a few bytes on.
   * Plain SGR the parser counts itself lie within one write, so they are never the listener's.
   */
  private countPiece(at: number): void {
    const now = this.countsNow;
    const before = this.countsBefore;
    const heard = this.heard;
    const mini = this.mini;
    this.sanitizer.spanCounts(now);
    const bucket = Math.min(mini.buckets - 1, Math.floor(at / mini.bucketBytes));
    for (let c = 0; c < SPAN_CLASS_COUNT; c++) {
      const d = now[c] - before[c] - heard[c];
      if (d !== 0) this.minimap[c * mini.buckets + bucket] += d;
      heard[c] = 0;
    }
    this.countsNow = before;
    this.countsBefore = now;
    this.spans = this.sanitizer.spanTotal;
    const rest = this.sanitizer.parserAtRest;
    if (rest === this.listening) {
      this.listening = !rest;
      this.sanitizer.listenSpans(this.listening ? this.listener : null);
      this.probeBytes = FIRST_PROBE;
    } else if (this.listening) {
      this.probeBytes *= 2;
    }
  }

  /**
   * Replay: takes the state of the run that built the index at this run's start from the page
   * record there (a quiet boundary at rest: Snap.neutral), so that from here on it writes exactly
   * what that run wrote. Text offsets shift by the text before (the Sanitizer counts from 0).
   */
  private seed(rec: Float64Array, meanings: readonly string[]): void {
    // Counts stay the run's own (the marks are what a replay reports); the map and line writers
    // shift the text offsets they write.
    const text = rec[PageField.Text];
    const m = this.mapCol;
    m.count = rec[PageField.MapClosed];
    m.has = rec[PageField.HasOpen] === 1;
    m.tStart = rec[PageField.OpenT] - text;
    m.rStart = rec[PageField.OpenR];
    const len = rec[PageField.OpenLen];
    m.rLen = Math.abs(len);
    m.kind = len < 0 ? SegmentKind.Replaced : SegmentKind.Verbatim;
    m.textEnd = 0;
    m.tShift = text;
    m.quiet = true;
    const l = this.lineCol;
    l.count = rec[PageField.Lines];
    l.shift = text;
    const key = rec[PageField.LineKey];
    // A line start waiting (key -1) is at the text's end; else the line began `key` bytes before it.
    l.pending = key < 0 ? 0 : -1;
    l.lineStart = key < 0 ? 0 : -key;
    l.seekCut = rec[PageField.SeekCut] === 1;
    this.globalMeanings = [...meanings];
    this.globalIds = new Map(meanings.map((mm, i) => [mm, i]));
    this.remap = new Int32Array(MAX_MEANINGS + 1).fill(-1);
  }

  /** Replay: meanings it met that the index's table does not hold (a sign the raw file changed). */
  get unknownMeanings(): number {
    return this.spec.seed ? this.globalMeanings.length - this.spec.seed.meanings.length : 0;
  }

  private makeSanitizer(): Sanitizer {
    const o = this.o;
    const spansOut = this.writers['spans.bin'];
    const mapCol = this.mapCol;
    const mini = this.mini;
    const minimap = this.minimap;
    const base = this.start;
    const meaningIds = this.meaningIds;
    const meanings = this.meanings;
    let lastMeaning = '';
    let lastMeaningId = -1;
    const lazyBuild = this.spec.mode === 'lazy';
    const countOnly = this.spec.keep !== undefined && !this.spec.keep.includes('spans.bin');
    const sanitizer = new Sanitizer({
      cr: o.sanitizer.cr,
      limits: o.sanitizer.limits,
      mapOffsets: true,
      reuseOutputBuffer: true,
      precedingText: this.spec.seed ? PRECEDING_TEXT[this.spec.seed.record[PageField.TextKind]] : 0,
      // A lazy build stores no span: it counts them per write (countPiece), from the Sanitizer's
      // counts; which meanings occur is in its report (lazy-build.ts meaningsOf).
      onSpan: lazyBuild ? undefined : (cls, offset, length, meaning, flags, code) => {
        mapCol.quiet = false;
        offset += base;
        let id = lastMeaningId;
        if (meaning !== lastMeaning) {
          id = lastMeaningId = internMeaning(meaning, meanings, meaningIds);
          lastMeaning = meaning;
        }
        if (countOnly) {
          // A replay that keeps no spans counts their bytes (its marks check them against the page table).
          spansOut.reserve(SPAN_RECORD);
          this.spans++;
          return;
        }
        const remap = this.remap;
        if (remap !== null) {
          const g = remap[id];
          id = g >= 0 ? g : (remap[id] = this.globalId(meaning));
        }
        const term = cls >= SpanClass.Esc && cls <= SpanClass.Sos ? this.terminator(cls, offset + length, flags, code) : Term.None;
        const at = spansOut.reserve(SPAN_RECORD);
        const f = at >> 3;
        spansOut.f64[f] = offset;
        spansOut.f64[f + 1] = length;
        spansOut.i32[(at + 16) >> 2] = code > 0x7fffffff ? 0x7fffffff : code;
        spansOut.u16[(at + 20) >> 1] = id | (term << 12);
        spansOut.u8[at + 22] = cls;
        spansOut.u8[at + 23] = flags;
        if (this.countMini) minimap[cls * mini.buckets + Math.floor(offset / mini.bucketBytes)]++;
        if (offset + length < this.lastEnd) this.endsOrdered = false;
        else this.lastEnd = offset + length;
        this.spans++;
      },
    });
    if (lazyBuild) {
      mapCol.counter = sanitizer;
      // Across a write edge the parser was not at rest at, a span may begin in an earlier bucket:
      // spans are heard one by one there, each counted in the bucket it starts in.
      const heard = this.heard;
      this.listener = (cls, offset) => {
        minimap[cls * mini.buckets + Math.floor((offset + base) / mini.bucketBytes)]++;
        heard[cls]++;
      };
    }
    // The Sanitizer keeps its OffsetMap in memory (25 bytes a segment: ~1 GB for a hostile GiB);
    // its public `add` is the one entry point segments come through, so stream them to disk instead.
    const map = sanitizer.map as OffsetMap;
    map.add = mapCol.add.bind(mapCol);
    // A stretch may leave a line break or space pending: the boundary after it is not neutral.
    const ambiguous = sanitizer.ambiguous.bind(sanitizer);
    sanitizer.ambiguous = (offset: number, length: number, flags: number) => {
      mapCol.quiet = false;
      ambiguous(offset, length, flags);
    };
    return sanitizer;
  }

  /** The index's id of `meaning` (placed: new ones after segment 0's, in order of first appearance). */
  private globalId(meaning: string): number {
    return internMeaning(meaning, this.globalMeanings, this.globalIds);
  }

  /**
   * Placed build: segment 0 stopped at plan.at, where this run took over. Once the map segment open
   * there and one more are closed (their records are what segment 0 stitches and copies), this run
   * hands what it wrote so far to segment 0's thread (which copies it on, shifted) and writes the
   * rest itself straight into the index files at the offsets one run would have written them to:
   * meaning ids, text offsets and counts shifted as the merge shifts them. Returns whether it did.
   */
  private tryPlace(plan: PlacePlan): boolean {
    const s = this.table?.get(plan.at / this.o.pageBytes);
    if (!s || !this.placer) throw new Error('index segments do not join (internal error)');
    const h = s.hasOpen ? 1 : 0;
    if (this.mapCol.count < s.mapClosed + h + 1) return false;
    const dSeg = plan.mapClosed + (plan.mapHas ? 1 : 0) - s.mapClosed - h;
    const shift: Record<PlacedFile, number> = {
      'spans.bin': (plan.spans - s.spans) * SPAN_RECORD,
      'text.bin': plan.text - s.text,
      'map.bin': dSeg * MAP_RECORD,
      'lines.bin': (plan.lines - s.lines) * LINE_RECORD,
      'checkpoints.bin': (plan.cps - s.cps) * CHECKPOINT_RECORD,
    };
    const kept = {} as Record<IndexFile, Uint8Array[]>;
    for (const name of FILE_ORDER) kept[name] = [];
    for (const name of PLACED_FILES) kept[name] = this.writers[name].detach();
    // The ids segment 0's thread gives the spans it copies (new meanings in order of first
    // appearance from plan.at on), so that the spans written from here on go on from them.
    this.globalMeanings = [...plan.meanings];
    this.globalIds = new Map(plan.meanings.map((m, i) => [m, i]));
    const remap = new Int32Array(MAX_MEANINGS + 1).fill(-1);
    const r = new ColumnSource(kept['spans.bin'], join(this.spec.dir, 'spans.bin'), s.spans * SPAN_RECORD, SPAN_RECORD << 14);
    try {
      let left = (this.spans - s.spans) * SPAN_RECORD;
      while (left > 0) {
        const piece = r.next(left);
        left -= piece.length;
        const u16 = new Uint16Array(piece.buffer, piece.byteOffset, piece.length >> 1);
        for (let w = 10; w < u16.length; w += 12) {
          const local = u16[w] & 0xfff;
          if (remap[local] < 0) remap[local] = this.globalId(this.meanings[local]);
        }
      }
    } finally {
      r.close();
    }
    for (const name of PLACED_FILES) this.writers[name].place(join(this.o.outDir, name), this.writers[name].bytes + shift[name]);
    this.mapCol.tShift = shift['text.bin'];
    this.lineCol.shift = shift['text.bin'];
    this.cpShift = [plan.spans - s.spans, plan.text - s.text, dSeg, plan.lines - s.lines];
    this.remap = remap;
    this.countMini = true;
    this.endsOrdered = true;
    this.lastEnd = -Infinity;
    // The pair (last record copied, segment open now) is this run's to check; pairs before it segment 0's.
    this.mapCol.monotonic = this.mapCol.lastPairOk;
    this.placer.announce({
      spans: this.spans, text: this.textBytes, lines: this.lineCol.count, mapClosed: this.mapCol.count, cps: this.cps,
      meanings: [...this.meanings], kept,
    });
    this.placer = null;
    return true;
  }

  // The page being fed and the last bytes before it: terminators look one or two bytes around a span's end.
  private chunk = new Uint8Array(0);
  private chunkBase = 0;
  private readonly tail = new Uint8Array(16);
  private tailBase = 0;
  private tailLen = 0;

  private byteAt(abs: number): number {
    const k = abs - this.chunkBase;
    if (k >= 0 && k < this.chunk.length) return this.chunk[k];
    const t = abs - this.tailBase;
    return t >= 0 && t < this.tailLen ? this.tail[t] : -1;
  }

  private terminator(cls: number, end: number, flags: number, code: number): Term {
    if (flags & SpanFlag.Unterminated) return Term.Eof;
    const last = this.byteAt(end - 1);
    if (cls === SpanClass.Esc || cls === SpanClass.Csi) {
      if (code !== 0 && last === code) return Term.Final;
      return interruption(this.byteAt(end));
    }
    if (last === 0x5c && this.byteAt(end - 2) === 0x1b) return Term.St;
    if (flags & SpanFlag.Malformed) {
      const why = interruption(this.byteAt(end));
      if (why !== Term.Interrupted) return why;
    }
    if (cls === SpanClass.Osc && last === 0x07) return Term.Bel;
    if (last === 0x9c) return Term.C1St;
    return interruption(this.byteAt(end));
  }

  /** This run's state at the boundary it just reached (`pos`, after the page before it). */
  snap(pos: number): Snap {
    const m = this.mapCol;
    const overwrite = this.o.sanitizer.cr === 'overwrite';
    const fresh = pos === this.start;
    const mergeable = m.mergeableAt(pos, this.textBytes);
    let neutral = fresh || (m.isQuiet && this.sanitizer.parserAtRest);
    if (neutral && overwrite && !fresh) neutral = mergeable && this.lastText === LF;
    const t = this.lastText;
    return {
      neutral,
      fresh,
      textKind: t < 0 || t === LF ? 1 : t === 0x20 ? 2 : 0,
      lineKey: this.lineCol.key,
      seekCut: this.lineCol.seekCut,
      mergeable,
      spans: this.spans,
      text: this.textBytes,
      mapClosed: m.count,
      hasOpen: m.has,
      openT: m.tStart,
      openR: m.rStart,
      openLen: m.kind === SegmentKind.Replaced ? -m.rLen : m.rLen,
      lines: this.lineCol.count,
      cps: this.cps,
    };
  }

  /** Runs until the end of the file or the first boundary past its own where it can hand over. */
  run(progress?: (pos: number) => void): void {
    const o = this.o;
    const pageBytes = o.pageBytes;
    const size = this.size;
    const fd = this.fd;
    const sanitizer = this.sanitizer;
    const starts = this.spec.starts;
    const k = this.spec.index;
    const checkOut = this.writers['checkpoints.bin'];
    const textOut = this.writers['text.bin'];
    const lineCol = this.lineCol;
    const mapCol = this.mapCol;
    // Boundaries passed while the parser was not at rest: they wait for the first point where it is.
    const pendingCps: number[][] = [];
    const writeCheckpoint = (cp: number[]): void => {
      const at = checkOut.reserve(CHECKPOINT_RECORD) >> 3;
      const f = checkOut.f64;
      for (let i = 0; i < CHECKPOINT_FIELDS; i++) f[at + i] = cp[i];
      const d = this.cpShift;
      if (d) {
        f[at + 1] += d[0];
        f[at + 3] += d[1];
        f[at + 4] += d[2];
        f[at + 5] += d[3];
        f[at + 6] += d[0];
      }
      this.cps++;
    };
    /**
     * Writes the waiting checkpoints: the parser is at rest at raw offset `at` with `spans` reported,
     * so a fresh Parser fed from `at` reports exactly the spans from that index on.
     */
    const resolveCheckpoints = (at: number): void => {
      for (const cp of pendingCps) {
        cp[2] = at;
        cp[6] = this.spans;
        writeCheckpoint(cp);
      }
      pendingCps.length = 0;
    };
    const storeText = this.spec.mode !== 'lazy';
    const emit = (text: Uint8Array): void => {
      if (text.length === 0) return;
      if (storeText) textOut.write(text);
      lineCol.scan(text);
      this.textBytes += text.length;
      this.lastText = text[text.length - 1];
    };
    const lazy = this.spec.mode === 'lazy';
    const bucketBytes = this.mini.bucketBytes;
    /** Sanitizes `bytes` (from raw `at` on); a lazy build writes them a minimap bucket at a time and counts after each. */
    const feed = (bytes: Uint8Array, at: number): void => {
      if (!lazy) {
        emit(sanitizer.write(bytes));
        return;
      }
      let a = 0;
      while (a < bytes.length) {
        let b = Math.min(bytes.length, (Math.floor((at + a) / bucketBytes) + 1) * bucketBytes - at);
        // While listening, in growing pieces: it stops once the parser is at rest again.
        if (this.listening) b = Math.min(b, a + this.probeBytes);
        emit(sanitizer.write(a === 0 && b === bytes.length ? bytes : bytes.subarray(a, b)));
        this.countPiece(at + a);
        a = b;
      }
    };
    let pos = this.start;
    if (pos > 0) {
      // The bytes before the segment, for terminators of spans that start right at it.
      const keep = Math.min(8, pos);
      let got = 0;
      while (got < keep) {
        const n = readSync(fd, this.tail, got, keep - got, pos - keep + got);
        if (n === 0) throw new Error('the raw file ended early (changed while indexing?)');
        got += n;
      }
      this.tailBase = pos - keep;
      this.tailLen = keep;
    }
    if (k > 0 && this.table) this.publish(pos);
    const page = new Uint8Array(pageBytes);
    let probe = FIRST_PROBE;
    const tm = trace ? { read: 0, hash: 0, parse: 0, wait: 0 } : null;
    let tq = 0;
    trace?.(`segment ${k} run from ${pos}`);
    while (pos < size) {
      if (o.shouldCancel?.()) throw new BuildCancelled();
      if (this.spec.mode === 'lazy') this.writePage(pos);
      else if (this.spec.mode === 'replay') {
        this.mark();
        if (this.spec.stopAfter !== undefined && pos >= this.spec.stopAfter && pos > this.start) {
          this.stopAt = pos;
          return;
        }
      }
      if (this.placer) {
        this.plan ??= this.placer.poll();
        if (this.plan && this.tryPlace(this.plan)) trace?.(`segment ${k} placed at ${pos}`);
      }
      if (tm) tq = performance.now();
      const n = readUpTo(fd, page, 0, Math.min(pageBytes, size - pos), pos);
      if (n === 0) throw new Error('the raw file ended early (changed while indexing?)');
      const view = n === pageBytes ? page : page.subarray(0, n);
      if (tm) { const t = performance.now(); tm.read += t - tq; tq = t; }
      this.hash?.update(view);
      if (tm) { const t = performance.now(); tm.hash += t - tq; tq = t; }
      this.chunk = view;
      this.chunkBase = pos;
      if (pendingCps.length === 0) {
        feed(view, pos);
      } else {
        // A boundary waits for the parser to come to rest: feed in growing pieces and look after each.
        let at = 0;
        while (at < n) {
          const piece = pendingCps.length > 0 ? Math.min(probe, n - at) : n - at;
          feed(at === 0 && piece === n ? view : view.subarray(at, at + piece), pos + at);
          at += piece;
          if (pendingCps.length > 0) {
            if (sanitizer.parserAtRest) resolveCheckpoints(pos + at);
            else probe = Math.min(probe * 2, pageBytes);
          }
        }
      }
      if (tm) { const t = performance.now(); tm.parse += t - tq; tq = t; }
      // Keep the last bytes of this page for terminators of spans that end in the next one.
      this.keepTail(view);
      pos += n;
      this.chunk = new Uint8Array(0);
      this.chunkBase = pos;
      if (pos < size) {
        if (pos < this.end) {
          if (k > 0 && this.table) this.publish(pos);
        } else if (this.table && pendingCps.length === 0) {
          // Past its own segment: hand over where the owner of this boundary was in the same state.
          const owner = ownerOf(starts, pos);
          if (owner > k) {
            const mine = this.snap(pos);
            if (tm) tq = performance.now();
            const theirs = mine.neutral ? this.table.wait(pos / pageBytes, this.waitMs, () => o.shouldCancel?.() === true) : null;
            if (tm) tm.wait += performance.now() - tq;
            if (theirs && matches(mine, theirs)) {
              trace?.(`segment ${k} hands over at ${pos}: ${Object.entries(tm ?? {}).map(([a, b]) => `${a} ${Math.round(b)}`).join(', ')}`);
              this.stopAt = pos;
              this.stopSnap = mine;
              progress?.(pos);
              return;
            }
          }
        }
        // As of the boundary: every span reported so far ended by it (the queries' lower bound).
        const cp = [pos, this.spans, pos, this.textBytes, mapCol.segments, lineCol.count, this.spans];
        if (pendingCps.length === 0 && sanitizer.parserAtRest) writeCheckpoint(cp);
        else {
          if (pendingCps.length === 0) probe = FIRST_PROBE;
          pendingCps.push(cp);
        }
      }
      progress?.(pos);
    }
    emit(sanitizer.end());
    // Spans the end reports (strings left open) begin where the listener, on since the parser is not at rest, counts them.
    if (lazy) this.countPiece(Math.max(0, size - 1));
    if (this.spec.mode === 'replay') {
      mapCol.finish();
      lineCol.finish(size > 0);
      this.mark();
      return;
    }
    trace?.(`segment ${k} ran to the end: ${Object.entries(tm ?? {}).map(([a, b]) => `${a} ${Math.round(b)}`).join(', ')}`);
    if (pendingCps.length > 0) resolveCheckpoints(size);
    mapCol.finish();
    // Whether the artifact shows a line at all is the merge's call when there are segments.
    if (k === 0) lineCol.finish(size > 0);
    this.stopSnap = this.snap(size);
    if (this.spec.mode === 'lazy') this.writeEndRecord();
  }

  /** Replay: where each column stands (bytes written) at a page's start or at the end. */
  private mark(): void {
    const w = this.writers;
    this.marks.push([w['spans.bin'].bytes, w['text.bin'].bytes, w['map.bin'].bytes, w['lines.bin'].bytes]);
  }

  /** Lazy build: the record of the page that starts at `pos` (see pages.ts). */
  private writePage(pos: number): void {
    const page = pos / this.o.pageBytes;
    const s = this.snap(pos);
    if (s.neutral) this.lastNeutralPage = page;
    const restart = page - this.lastNeutralPage <= MAX_REPLAY_PAGES ? this.lastNeutralPage : -1;
    this.pages.push(pageRecord(s, this.mapCol.count, restart));
    const bucket = Math.min(this.mini.buckets - 1, Math.floor(pos / this.mini.bucketBytes));
    for (let c = 0; c < SPAN_CLASS_COUNT; c++) this.miniAt.push(this.minimap[c * this.mini.buckets + bucket]);
  }

  /** Lazy build: the last record, the counts at the end of the file (after the run ended). */
  private writeEndRecord(): void {
    const s = this.snap(this.size);
    // Counts only: no replay starts at the end, and every map segment is closed by then.
    this.pages.push(pageRecord({ ...s, neutral: false, hasOpen: false, openT: 0, openR: 0, openLen: 0 }, this.mapCol.count, -1));
  }

  private publish(pos: number): void {
    const s = this.snap(pos);
    // A hand-over needs this run's report there; building one costs, so a lazy build's small
    // pages offer a hand-over only every LAZY_HAND_OVER_PAGES.
    const page = pos / this.o.pageBytes;
    const every = this.spec.mode === 'lazy' ? LAZY_HAND_OVER_PAGES : 1;
    if (s.neutral && page % every === 0) this.reports[pos] = this.sanitizer.getReport();
    else s.neutral = false;
    this.table!.put(page, s);
  }

  /** The run's outcome (after run); closes its files unless it is segment 0 (the merge writes on into them). */
  outcome(): SegmentOutcome {
    return {
      index: this.spec.index,
      start: this.start,
      stopAt: this.stopAt,
      stop: this.stopSnap!,
      report: this.sanitizer.getReport(),
      reports: this.reports,
      meanings: this.meanings,
      kept: Object.fromEntries(FILE_ORDER.map((name) => [name, this.writers[name].kept])) as Record<IndexFile, Uint8Array[]>,
      lazy: this.spec.mode !== 'lazy' ? undefined : {
        pages: concatF64(this.pages), minimap: this.minimap, miniAt: Uint32Array.from(this.miniAt),
        mapBrokenAt: this.mapCol.brokenAt,
      },
      placed: this.remap === null ? undefined : {
        files: Object.fromEntries(PLACED_FILES.map((name) => [name, this.writers[name].placedPart()])) as PlacedOutput['files'],
        minimap: this.minimap,
        endsOrdered: this.endsOrdered,
        monotonic: this.mapCol.monotonic,
        meanings: this.globalMeanings,
      },
    };
  }

  /** Closes the files of a later segment (their sums are not needed: the merge copies them). */
  closeFiles(): void {
    for (const name of FILE_ORDER) this.writers[name].close();
  }

  dispose(): void {
    for (const w of Object.values(this.writers)) w.abandon();
    try {
      closeSync(this.fd);
    } catch {
      // closed already
    }
  }

  private keepTail(view: Uint8Array): void {
    const keep = 8;
    const tail = this.tail;
    if (view.length >= keep) {
      tail.set(view.subarray(view.length - keep));
      this.tailBase = this.chunkBase + view.length - keep;
      this.tailLen = keep;
      return;
    }
    // A short page: append to what is kept, then keep the last `keep` bytes of both.
    const joined = new Uint8Array(this.tailLen + view.length);
    joined.set(tail.subarray(0, this.tailLen));
    joined.set(view, this.tailLen);
    const from = Math.max(0, joined.length - keep);
    tail.set(joined.subarray(from));
    this.tailBase = this.chunkBase + view.length - (joined.length - from);
    this.tailLen = joined.length - from;
  }
}

/** The segment that owns raw offset `pos` (the last whose start is at or below it). */
export function ownerOf(starts: readonly number[], pos: number): number {
  let j = starts.length - 1;
  while (j > 0 && starts[j] > pos) j--;
  return j;
}

/** Directory of segment k's files inside the index directory being built. */
export function segmentDir(outDir: string, k: number): string {
  return k === 0 ? outDir : join(outDir, `.segment-${k}`);
}

/** Builds the index; throws BuildCancelled when `shouldCancel` said so. */
export function buildIndex(o: BuildOptions): BuildResult {
  const started = performance.now();
  const size = fstatSizeOf(o.rawPath);
  const starts = planSegments(size, o.pageBytes, o.segments ?? 1);
  const table = starts.length > 1 ? new SnapshotTable(Math.ceil(size / o.pageBytes)) : null;
  const outcomes: SegmentOutcome[] = [];
  const runs: SegmentRun[] = [];
  try {
    // Last first: every run past its own end then finds the snaps of the boundaries it reaches.
    for (let k = starts.length - 1; k >= 1; k--) {
      const dir = segmentDir(o.outDir, k);
      mkdirSync(dir, { mode: 0o700 });
      const run = new SegmentRun(o, { index: k, starts, dir }, table, null);
      runs.push(run);
      run.run();
      run.closeFiles();
      outcomes[k] = run.outcome();
    }
    const hash = o.verifyDigest === false ? null : createHash('sha256');
    const first = new SegmentRun(o, { index: 0, starts, dir: o.outDir }, table, hash);
    runs.push(first);
    first.run((pos) => o.onProgress?.(pos, first.spans));
    trace?.('segment 0 done');
    // Segment 0 hashed what it read; the rest of the file is read for the digest alone.
    if (hash && first.stopAt !== null) hashFile(o.rawPath, first.stopAt, size, hash, o.shouldCancel);
    trace?.('hashed');
    return finishIndex(o, first, outcomes, starts, table, hash?.digest('hex') ?? null, started);
  } finally {
    for (const r of runs) r.dispose();
  }
}

function fstatSizeOf(path: string): number {
  const fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  try {
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/** Hashes bytes [from, size) of a file in 256 KiB reads (they stay in the core's cache for the hash; the digest check of a segmented build). */
export function hashFile(path: string, from: number, size: number, hash: ReturnType<typeof createHash>, shouldCancel?: () => boolean): void {
  const fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  try {
    const buf = new Uint8Array(256 << 10);
    let pos = from;
    while (pos < size) {
      if (shouldCancel?.()) throw new BuildCancelled();
      const got = readSync(fd, buf, 0, Math.min(buf.length, size - pos), pos);
      if (got === 0) throw new Error('the raw file ended early (changed while indexing?)');
      hash.update(got === buf.length ? buf : buf.subarray(0, got));
      pos += got;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Splices the later segments' files onto segment 0's (still open), checks the digest, and writes
 * the sums and the manifest. `outcomes[k]` for k >= 1; `first` has run.
 */
export function finishIndex(
  o: BuildOptions, first: SegmentRun, outcomes: readonly (SegmentOutcome | undefined)[], starts: readonly number[], table: SnapshotTable | null,
  digest: string | null, started: number,
): BuildResult {
  const merger = new SegmentMerger(o, first, outcomes, starts, table);
  trace?.('merge starts');
  const report = merger.run();
  trace?.('merge done');
  return finishMerged(o, first, report, merger.splices, digest, started);
}

/** finishIndex letting the event loop turn during the merge (in the index worker: buffers read through are freed then). */
export async function finishIndexAsync(
  o: BuildOptions, first: SegmentRun, outcomes: readonly (SegmentOutcome | undefined)[], starts: readonly number[], table: SnapshotTable | null,
  digest: string | null, started: number,
): Promise<BuildResult> {
  const merger = new SegmentMerger(o, first, outcomes, starts, table);
  trace?.('merge starts');
  const report = await merger.runAsync();
  trace?.('merge done');
  return finishMerged(o, first, report, merger.splices, digest, started);
}

function finishMerged(o: BuildOptions, first: SegmentRun, report: RemovalReport, splices: readonly number[], digest: string | null, started: number): BuildResult {
  if (digest !== null && digest !== o.sha256) throw new Error('the raw bytes do not match their digest; not indexing them');
  first.writers['minimap.bin'].write(new Uint8Array(first.minimap.buffer));

  const { files, sumParts } = closeWriters(FILE_ORDER, first.writers);
  trace?.('files closed');
  return { manifest: writeManifest(o, summaryOf(first, files), sumParts, report, digest, started), splices };
}

/** Closes `writers` in `order` (the order sums.bin keeps): each file's size, and the block sums end to end. */
export function closeWriters<N extends string>(order: readonly N[], writers: Readonly<Record<N, ColumnWriter>>): { files: Record<N, number>; sumParts: number[] } {
  const files = {} as Record<N, number>;
  const sumParts: number[] = [];
  for (const name of order) {
    const { bytes, sums } = writers[name].close();
    files[name] = bytes;
    sumParts.push(...sums);
  }
  return { files, sumParts };
}

/** What a manifest says of the index besides the build's own options, digests and times. */
export interface IndexSummary {
  readonly size: number;
  readonly minimap: IndexManifest['minimap'];
  readonly counts: Omit<IndexManifest['counts'], 'checkpoints'>;
  readonly monotonic: boolean;
  readonly endsOrdered: boolean;
  readonly meanings: readonly string[];
  readonly files: IndexManifest['files'];
  readonly lazy?: IndexManifest['lazy'];
}

/** An eager build's summary, from the run whose writers hold every column (`files`: their sizes). */
function summaryOf(first: SegmentRun, files: IndexManifest['files']): IndexSummary {
  return {
    size: first.size, minimap: first.mini,
    counts: { spans: first.spans, textBytes: first.textBytes, lines: first.lineCol.count, segments: first.mapCol.count },
    monotonic: first.mapCol.monotonic, endsOrdered: first.endsOrdered, meanings: first.meanings, files,
  };
}

/** Writes sums.bin and the manifest of a build whose files are complete. */
export function writeManifest(o: BuildOptions, summary: IndexSummary, sumParts: number[], report: RemovalReport, digest: string | null, started: number): IndexManifest {
  const sumsBytes = new Uint8Array(Uint32Array.from(sumParts).buffer);
  writeFileSync(join(o.outDir, SUMS), sumsBytes, { mode: 0o600, flag: 'wx' });
  const { size, minimap, counts, monotonic, endsOrdered, meanings, files, lazy } = summary;
  const manifest: IndexManifest = {
    format: INDEX_FORMAT,
    engine: o.engine,
    sha256: o.sha256,
    size,
    sanitizer: o.sanitizer,
    pageBytes: o.pageBytes,
    maxLineBytes: o.maxLineBytes ?? MAX_LINE_BYTES,
    minimap,
    counts: { ...counts, checkpoints: (files['checkpoints.bin'] ?? 0) / CHECKPOINT_RECORD },
    monotonic,
    endsOrdered,
    meanings,
    report: { ...report, sha256: digest !== null ? o.sha256 : report.sha256 },
    files,
    ...(lazy ? { lazy } : {}),
    sumsSha256: createHash('sha256').update(sumsBytes).digest('hex'),
    builtMs: Math.round(performance.now() - started),
    createdAt: new Date().toISOString(),
  };
  writeFileSync(join(o.outDir, MANIFEST), JSON.stringify(manifest), { mode: 0o600, flag: 'wx' });
  trace?.('manifest written');
  return manifest;
}

/**
 * Placed build, segment 0's side once the last run switched (PlaceSwitch): copies what that run
 * wrote from the hand-over at `at` until its switch onto segment 0's files, shifted as the merge
 * shifts it, then closes segment 0's part of the placed files (their last block, unless whole, is
 * shared with the placed run: summed in finishPlaced). Returns those parts.
 */
export async function copyEarly(
  o: BuildOptions, first: SegmentRun, at: number, sw: PlaceSwitch, starts: readonly number[], table: SnapshotTable,
): Promise<Record<PlacedFile, { bytes: number; sums: number[] }>> {
  const s = table.get(at / o.pageBytes);
  if (!s) throw new Error('index segments do not join (internal error)');
  const end: Snap = { ...s, spans: sw.spans, text: sw.text, lines: sw.lines, mapClosed: sw.mapClosed, cps: sw.cps, hasOpen: false };
  const q: SegmentOutcome = { index: 1, start: starts[1], stopAt: null, stop: end, report: null as unknown as RemovalReport, reports: {}, meanings: [...sw.meanings], kept: sw.kept };
  const merger = new SegmentMerger(o, first, [], starts, table);
  await drainAsync(merger.appendEarly(q, s));
  const parts = {} as Record<PlacedFile, { bytes: number; sums: number[] }>;
  for (const name of PLACED_FILES) parts[name] = first.writers[name].close(true);
  return parts;
}

/**
 * Placed build: the last run `q` is done (it wrote its part of the placed files itself); adds its
 * counts, minimap, meanings and report to segment 0's, sums the blocks the two parts share, and
 * writes the manifest.
 */
export function finishPlaced(
  o: BuildOptions, first: SegmentRun, parts: Record<PlacedFile, { bytes: number; sums: number[] }>, q: SegmentOutcome, sw: PlaceSwitch, at: number,
  digest: string | null, started: number,
): BuildResult {
  const p = q.placed;
  const from = q.reports[at];
  if (!p || !from) throw new Error('index segments do not join (internal error)');
  const end = q.stop;
  first.spans += end.spans - sw.spans;
  first.textBytes += end.text - sw.text;
  first.lineCol.count += end.lines - sw.lines;
  first.mapCol.count += end.mapClosed - sw.mapClosed;
  first.cps += end.cps - sw.cps;
  const spansPart = p.files['spans.bin'];
  if (spansPart.end > spansPart.at) {
    // The first span the placed run wrote, against the last one before it.
    const rec = readAt(join(o.outDir, 'spans.bin'), spansPart.at, SPAN_RECORD);
    const f64 = new Float64Array(rec.buffer, rec.byteOffset, 2);
    if (f64[0] + f64[1] < first.lastEnd) first.endsOrdered = false;
  }
  first.endsOrdered &&= p.endsOrdered;
  first.mapCol.monotonic &&= p.monotonic;
  for (let i = 0; i < p.meanings.length; i++) {
    if (i < first.meanings.length) {
      if (first.meanings[i] !== p.meanings[i]) throw new Error('index segments do not join (internal error)');
    } else first.meanings.push(p.meanings[i]);
  }
  for (let i = 0; i < first.minimap.length; i++) first.minimap[i] += p.minimap[i];
  const report = combineReports([[first.outcome().report, null], [q.report, from]], q.start);
  rmSync(segmentDir(o.outDir, 1), { recursive: true, force: true });
  if (digest !== null && digest !== o.sha256) throw new Error('the raw bytes do not match their digest; not indexing them');
  first.writers['minimap.bin'].write(new Uint8Array(first.minimap.buffer));
  const files = {} as Record<IndexFile, number>;
  const sumParts: number[] = [];
  for (const name of FILE_ORDER) {
    if (name === 'minimap.bin') {
      const { bytes, sums } = first.writers[name].close();
      files[name] = bytes;
      sumParts.push(...sums);
      continue;
    }
    const mine = parts[name];
    const theirs = p.files[name];
    if (mine.bytes !== theirs.at) throw new Error('index segments do not join (internal error)');
    sumParts.push(...mine.sums);
    if (theirs.at % BLOCK_BYTES !== 0) {
      // The block both parts wrote into: read back (it is in the page cache).
      const b = theirs.at - (theirs.at % BLOCK_BYTES);
      sumParts.push(crc32(readAt(join(o.outDir, name), b, Math.min(BLOCK_BYTES, theirs.end - b))));
    }
    sumParts.push(...theirs.sums);
    files[name] = theirs.end;
  }
  let blocks = 0;
  for (const name of FILE_ORDER) blocks += blockCount(files[name]);
  if (blocks !== sumParts.length) throw new Error('index block sums do not add up (internal error)');
  trace?.('placed files closed');
  return { manifest: writeManifest(o, summaryOf(first, files), sumParts, report, digest, started), splices: [at], placed: true };
}

function readAt(path: string, at: number, n: number): Uint8Array {
  const fd = openSync(path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  try {
    const buf = new Uint8Array(n);
    let got = 0;
    while (got < n) {
      const k = readSync(fd, buf, got, n - got, at + got);
      if (k === 0) throw new Error('an index file ended early (internal error)');
      got += k;
    }
    return buf;
  } finally {
    closeSync(fd);
  }
}

/** Reads one file of a later segment front to back in large pieces: its kept buffers, then its file. */
class ColumnSource {
  private fd = -1;
  private pos: number;
  private buf: Uint8Array | null = null;
  private readonly keptBytes: number;
  /** Kept buffers before `done` (they end at `doneBytes`) were read through and, with `release`, freed. */
  private done = 0;
  private doneBytes = 0;

  /**
   * `release`: free each kept buffer once read through (the merge's: nothing else reads them), so
   * that the pages it held are the next ones the page cache takes for the index files.
   */
  constructor(
    private readonly kept: readonly Uint8Array[], private readonly path: string, from: number, private readonly bytes = 3 << 20,
    private readonly release = false,
  ) {
    this.pos = from;
    this.keptBytes = kept.reduce((n, c) => n + c.length, 0);
  }

  /** Next piece of at most `max` bytes (a view: of a kept buffer, or of this source's read buffer). */
  next(max: number): Uint8Array {
    if (this.release) this.releaseBefore(this.pos);
    if (this.pos < this.keptBytes) {
      // From the first buffer not read through (those before it may be freed: length 0).
      let base = this.doneBytes;
      for (let i = this.done; i < this.kept.length; i++) {
        const c = this.kept[i];
        if (this.pos < base + c.length) {
          const at = this.pos - base;
          const n = Math.min(max, c.length - at);
          this.pos += n;
          return c.subarray(at, at + n);
        }
        base += c.length;
      }
    }
    if (this.fd < 0) this.fd = openSync(this.path, fsc.O_RDONLY | fsc.O_NOFOLLOW);
    this.buf ??= new Uint8Array(this.bytes);
    const want = Math.min(max, this.buf.length);
    let got = 0;
    while (got < want) {
      const n = readSync(this.fd, this.buf, got, want - got, this.pos - this.keptBytes + got);
      if (n === 0) throw new Error('a segment file of the index ended early');
      got += n;
    }
    this.pos += got;
    return this.buf.subarray(0, got);
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    if (this.release) this.releaseBefore(Infinity);
  }

  private releaseBefore(pos: number): void {
    while (this.done < this.kept.length && this.doneBytes + this.kept[this.done].length <= pos) {
      const c = this.kept[this.done++];
      this.doneBytes += c.length;
      freeBuffer(c.buffer as ArrayBuffer);
    }
  }
}

let freePort: MessagePort | null = null;

/**
 * Frees an ArrayBuffer's memory without waiting for a GC: it is transferred into a port whose
 * other end is closed, and the message (and the memory) is dropped at the next turn of the event
 * loop. On a VM whose host takes back free pages, pages freed a moment ago are the cheap ones to
 * fill: copying kept output into the page cache is several times faster this way.
 */
function freeBuffer(b: ArrayBuffer): void {
  if (b.byteLength === 0) return;
  if (!freePort) {
    const channel = new MessageChannel();
    channel.port2.close();
    freePort = channel.port1;
    freePort.unref();
  }
  freePort.postMessage(null, [b]);
}

/** Runs a merge's steps to the end. */
function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Runs a merge's steps, letting the event loop turn every few pieces (buffers freed are dropped then). */
async function drainAsync<T>(steps: Generator<void, T>): Promise<T> {
  for (let n = 1; ; n++) {
    const r = steps.next();
    if (r.done) return r.value;
    if (n % 4 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Appends, run after run along the chain of hand-overs (segment 0 to the owner of the boundary it
 * stopped at, and so on), each run's output from the boundary it took over at, shifted: span
 * meanings renumbered in order of first appearance, text offsets, span, segment and line counts;
 * the open map segment at a hand-over stitched; the minimap, span-end order and map monotonicity
 * counted over the spliced columns. Returns the report of the whole file.
 */
class SegmentMerger {
  constructor(
    private readonly o: BuildOptions,
    private readonly first: SegmentRun,
    private readonly outcomes: readonly (SegmentOutcome | undefined)[],
    private readonly starts: readonly number[],
    private readonly table: SnapshotTable | null,
  ) {}

  readonly splices: number[] = [];

  /** The id of `meaning` in the whole index (new ones in order of first appearance). */
  private meaningId(meaning: string): number {
    return internMeaning(meaning, this.first.meanings, this.first.meaningIds);
  }

  run(): RemovalReport {
    return drain(this.steps());
  }

  runAsync(): Promise<RemovalReport> {
    return drainAsync(this.steps());
  }

  private *steps(): Generator<void, RemovalReport> {
    const first = this.first;
    const starts = this.starts;
    // Pieces of the whole report: [report at the end of the piece, report where it began].
    const pieces: [RemovalReport, RemovalReport | null][] = [[first.outcome().report, null]];
    let at = first.stopAt;
    let lastStart = 0;
    while (at !== null) {
      let j = starts.length - 1;
      while (j > 0 && starts[j] > at) j--;
      const q = this.outcomes[j];
      const from = q?.reports[at];
      const s = this.table?.get(at / this.o.pageBytes);
      if (j === 0 || !q || !from || !s) throw new Error('index segments do not join (internal error)');
      yield* this.append(q, s);
      this.splices.push(at);
      pieces.push([q.report, from]);
      lastStart = q.start;
      at = q.stopAt;
    }
    for (let k = 1; k < starts.length; k++) rmSync(segmentDir(this.o.outDir, k), { recursive: true, force: true });
    if (pieces.length === 1) return pieces[0][0];
    // The last run did not know whether the lines before it were empty; its map segment is still open.
    first.lineCol.finish(first.size > 0);
    first.mapCol.finish();
    return combineReports(pieces, lastStart);
  }

  /**
   * Placed build: appends run q's output from boundary B up to where it switched (`q.stop`: all of
   * it is in q's kept buffers and files, the map segment open then is not) and closes the map
   * segment open after that (more follow: q's, placed).
   */
  *appendEarly(q: SegmentOutcome, s: Snap): Generator<void> {
    yield* this.append(q, s, true);
    this.first.mapCol.finish();
  }

  /** Appends run q's output from boundary B, where `p` (the run before, ending at B) and `s` (q's snap at B) match. */
  private *append(q: SegmentOutcome, s: Snap, early = false): Generator<void> {
    const first = this.first;
    const dir = segmentDir(this.o.outDir, q.index);
    const end = q.stop;
    const dSpans = first.spans - s.spans;
    const dText = first.textBytes - s.text;
    const dLines = first.lineCol.count - s.lines;
    const dSeg = first.mapCol.segments - (s.mapClosed + (s.hasOpen ? 1 : 0));

    // Spans: meaning ids renumbered, minimap, end order.
    {
      const remap = new Int32Array(q.meanings.length).fill(-1);
      const out = first.writers['spans.bin'];
      let left = (end.spans - s.spans) * SPAN_RECORD;
      const r = new ColumnSource(q.kept['spans.bin'], join(dir, 'spans.bin'), s.spans * SPAN_RECORD, SPAN_RECORD << 17, true);
      const buckets = first.mini.buckets;
      const bucketBytes = first.mini.bucketBytes;
      const minimap = first.minimap;
      let lastEnd = first.lastEnd;
      let ordered = first.endsOrdered;
      try {
        while (left > 0) {
          const piece = r.next(left);
          left -= piece.length;
          const records = piece.length / SPAN_RECORD;
          const f64 = new Float64Array(piece.buffer, piece.byteOffset, piece.length >> 3);
          const u16 = new Uint16Array(piece.buffer, piece.byteOffset, piece.length >> 1);
          const u8 = piece;
          for (let i = 0, f = 0, w = 10; i < records; i++, f += 3, w += 12) {
            const v = u16[w];
            const local = v & 0xfff;
            let id = remap[local];
            if (id < 0) id = remap[local] = this.meaningId(q.meanings[local]);
            u16[w] = (v & 0xf000) | id;
            const offset = f64[f];
            const spanEnd = offset + f64[f + 1];
            if (spanEnd < lastEnd) ordered = false;
            else lastEnd = spanEnd;
            // Quotients below 2^16: `| 0` is the floor.
            minimap[u8[i * SPAN_RECORD + 22] * buckets + ((offset / bucketBytes) | 0)]++;
          }
          out.writeLarge(piece);
          yield;
        }
      } finally {
        r.close();
      }
      first.lastEnd = lastEnd;
      first.endsOrdered = ordered;
      first.spans += end.spans - s.spans;
    }
    trace?.('merged spans');

    // Text: as is.
    yield* copyRange(new ColumnSource(q.kept['text.bin'], join(dir, 'text.bin'), s.text, 4 << 20, true), end.text - s.text, first.writers['text.bin']);
    first.textBytes += end.text - s.text;
    trace?.('merged text');

    // Lines: text offsets shifted.
    {
      const r = new ColumnSource(q.kept['lines.bin'], join(dir, 'lines.bin'), s.lines * LINE_RECORD, LINE_RECORD << 17, true);
      let left = (end.lines - s.lines) * LINE_RECORD;
      try {
        while (left > 0) {
          const piece = r.next(left);
          left -= piece.length;
          const n = piece.length >> 3;
          const f64 = new Float64Array(piece.buffer, piece.byteOffset, n);
          for (let i = 0; i < n; i++) f64[i] += dText;
          first.writers['lines.bin'].writeLarge(piece);
          first.lineCol.count += n;
          yield;
        }
      } finally {
        r.close();
      }
    }
    trace?.('merged lines');

    // Map: the segment open at B is stitched (both runs had it open and mergeable) or dropped
    // (q's came before B); then q's segments, text offsets shifted. The last stays open (the next
    // hand-over or finish closes it).
    {
      const m = first.mapCol;
      const inFile = end.mapClosed;
      const total = inFile + (!early && q.stopAt !== null && end.hasOpen ? 1 : 0);
      let i = s.mapClosed;
      const r = new ColumnSource(q.kept['map.bin'], join(dir, 'map.bin'), i * MAP_RECORD, MAP_RECORD << 17, true);
      const out = first.writers['map.bin'];
      let piece: Float64Array = new Float64Array(0);
      let k = 0;
      /** Next record into rec (from the file, or q's open segment after its file's). */
      const rec = [0, 0, 0];
      const next = (): void => {
        if (i >= inFile) {
          rec[0] = end.openT;
          rec[1] = end.openR;
          rec[2] = end.openLen;
        } else {
          if (k >= piece.length) {
            const bytes = r.next((inFile - i) * MAP_RECORD);
            piece = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length >> 3);
            k = 0;
          }
          rec[0] = piece[k];
          rec[1] = piece[k + 1];
          rec[2] = piece[k + 2];
          k += 3;
        }
        i++;
      };
      try {
        if (s.hasOpen && i < total) {
          next();
          if (s.mergeable) m.rLen = rec[1] + Math.abs(rec[2]) - m.rStart;
        }
        if (i < total) {
          // Closes the open segment; every record but the last is written as it comes.
          let prevR = m.rStart;
          let has = m.has;
          let monotonic = m.monotonic;
          let t = m.tStart;
          let rs = m.rStart;
          let len = m.kind === SegmentKind.Replaced ? -m.rLen : m.rLen;
          let count = m.count;
          while (i < total) {
            if (i < inFile && k >= piece.length) {
              const bytes = r.next((inFile - i) * MAP_RECORD);
              piece = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length >> 3);
              k = 0;
            }
            const n = i < inFile ? (piece.length - k) / 3 : 0;
            if (n >= 2) {
              // A run of records: the open one, then all of these but the last (text offsets
              // shifted in place) are written; the last is open then.
              let pr = prevR;
              let mono = monotonic;
              let h = has;
              for (let j = k; j < piece.length; j += 3) {
                if (h && piece[j + 1] < pr) mono = false;
                h = true;
                piece[j] += dText;
                pr = piece[j + 1];
              }
              if (has) {
                const at = out.reserve(MAP_RECORD) >> 3;
                out.f64[at] = t;
                out.f64[at + 1] = rs;
                out.f64[at + 2] = len;
                count++;
              }
              out.writeLarge(new Uint8Array(piece.buffer, piece.byteOffset + k * 8, (n - 1) * MAP_RECORD));
              count += n - 1;
              const last = piece.length - 3;
              has = true;
              t = piece[last];
              rs = prevR = piece[last + 1];
              len = piece[last + 2];
              monotonic = mono;
              i += n;
              k = piece.length;
              yield;
              continue;
            }
            next();
            if (has) {
              if (rec[1] < prevR) monotonic = false;
              const at = out.reserve(MAP_RECORD) >> 3;
              out.f64[at] = t;
              out.f64[at + 1] = rs;
              out.f64[at + 2] = len;
              count++;
            }
            has = true;
            t = rec[0] + dText;
            rs = prevR = rec[1];
            len = rec[2];
          }
          m.count = count;
          m.monotonic = monotonic;
          m.has = true;
          m.tStart = t;
          m.rStart = rs;
          m.rLen = Math.abs(len);
          m.kind = len < 0 ? SegmentKind.Replaced : SegmentKind.Verbatim;
        }
      } finally {
        r.close();
      }
    }
    trace?.('merged map');

    // Checkpoints: counts shifted.
    {
      const count = end.cps - s.cps;
      const out = first.writers['checkpoints.bin'];
      const r = new ColumnSource(q.kept['checkpoints.bin'], join(dir, 'checkpoints.bin'), s.cps * CHECKPOINT_RECORD, CHECKPOINT_RECORD << 12, true);
      let left = count * CHECKPOINT_RECORD;
      try {
        while (left > 0) {
          const piece = r.next(left);
          left -= piece.length;
          const f64 = new Float64Array(piece.buffer, piece.byteOffset, piece.length >> 3);
          for (let c = 0; c < piece.length >> 3; c += CHECKPOINT_FIELDS) {
            const at = out.reserve(CHECKPOINT_RECORD) >> 3;
            out.f64[at] = f64[c];
            out.f64[at + 1] = f64[c + 1] + dSpans;
            out.f64[at + 2] = f64[c + 2];
            out.f64[at + 3] = f64[c + 3] + dText;
            out.f64[at + 4] = f64[c + 4] + dSeg;
            out.f64[at + 5] = f64[c + 5] + dLines;
            out.f64[at + 6] = f64[c + 6] + dSpans;
          }
        }
      } finally {
        r.close();
      }
      first.cps += count;
    }
  }
}

function* copyRange(r: ColumnSource, bytes: number, out: ColumnWriter): Generator<void> {
  try {
    let left = bytes;
    while (left > 0) {
      const piece = r.next(left);
      left -= piece.length;
      out.writeLarge(piece);
      yield;
    }
  } finally {
    r.close();
  }
}

/**
 * The report of the whole file from its pieces: every count is the sum over the pieces of (count
 * at the piece's end minus count where it began); the rest (mode, limits, what was withheld at
 * the end) comes from the last piece, whose offsets count from its run's start `lastStart`.
 */
export function combineReports(pieces: readonly (readonly [RemovalReport, RemovalReport | null])[], lastStart: number): RemovalReport {
  const last = pieces[pieces.length - 1][0];
  const out = structuredClone(last) as unknown as Record<string, unknown>;
  const add = (target: Record<string, unknown>, a: Record<string, unknown>, b: Record<string, unknown> | null, sign: number): void => {
    for (const key of Object.keys(a)) {
      const v = a[key];
      if (typeof v === 'number') target[key] = (target[key] as number) + sign * (v - ((b?.[key] as number | undefined) ?? 0));
      else if (v && typeof v === 'object' && key !== 'limits' && key !== 'meanings') {
        add(target[key] as Record<string, unknown>, v as Record<string, unknown>, (b?.[key] as Record<string, unknown> | undefined) ?? null, sign);
      }
    }
  };
  const zero = (target: Record<string, unknown>): void => {
    for (const key of Object.keys(target)) {
      const v = target[key];
      if (typeof v === 'number') target[key] = 0;
      else if (v && typeof v === 'object' && key !== 'limits' && key !== 'meanings') zero(v as Record<string, unknown>);
    }
  };
  zero(out);
  const meanings = new Map<string, number>();
  for (const [end, from] of pieces) {
    add(out, end as unknown as Record<string, unknown>, from as unknown as Record<string, unknown> | null, 1);
    for (const [key, n] of Object.entries(end.meanings)) meanings.set(key, (meanings.get(key) ?? 0) + n - (from?.meanings[key] ?? 0));
  }
  const r = out as unknown as RemovalReport;
  r.version = last.version;
  r.withheld_from = last.withheld_from === null ? null : last.withheld_from + lastStart;
  const entries = [...meanings].filter(([, n]) => n > 0).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  r.meanings = Object.fromEntries(entries);
  return r;
}

/** Why a sequence stopped before its grammar ended it, from the byte after it. */
function interruption(next: number): Term {
  if (next === 0x18) return Term.Can;
  if (next === 0x1a) return Term.Sub;
  if (next === 0x1b) return Term.Esc;
  if ((next >= 0x80 && next <= 0x9f) || next === 0xc2) return Term.C1;
  return Term.Interrupted;
}

export { CHECKPOINT_FIELDS };
