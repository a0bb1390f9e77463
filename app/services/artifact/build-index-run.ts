// The index build's run (build-run.ts's loop): at every page start a page record (pages.ts), at
// every page end a checkpoint, the minimap counted, and the removal report. Its columns are either
// stored (every page's spans, text, map and lines written: an artifact small enough, build.ts) or
// only counted: a page is replayed from its record when a query needs it (replay.ts). A later run of
// a segmented build (build-parallel.ts) publishes its state at its own boundaries and, past its
// segment, hands over to the run that owns a boundary where both are alike (build-snap.ts).
import type { Hash } from 'node:crypto';
import { SPAN_CLASS_COUNT } from '../../../shared/parser';
import type { RemovalReport } from '../../../shared/sanitize';
import { BuildRun, type RunColumns, type RunOptions } from './build-run';
import { SecretSink, secretsPolicy, type SecretRunData } from './build-secrets';
import { matches, ownerOf, type Snap, type SnapshotTable } from './build-snap';
import { ColumnWriter } from './columns';
import { CHECKPOINT_FIELDS, CHECKPOINT_RECORD, fineMinimap, lazyMinimap } from './format';
import { concatF64, MAX_REPLAY_PAGES, pageRecord } from './pages';
import { trace } from './trace';

/** First piece fed after a boundary the parser was not at rest at (doubling up to a page). */
const FIRST_PROBE = 256;

/** Pages between the boundaries where a later run offers to take over (1 MiB of 128 KiB pages; see publish). */
const HAND_OVER_PAGES = 8;

/** Where an index run starts and what it writes. */
export interface IndexRunSpec {
  /** Its segment (0: the first, from the file's start) and the starts of all segments. */
  readonly index: number;
  readonly starts: readonly number[];
  /** Every page's columns go here (stored); null: they are counted, and pages replayed on demand. */
  readonly stored: RunColumns | null;
  /** Where its checkpoints go (a file, or memory a later run hands to the merge). */
  readonly checkpoints: ColumnWriter;
  /** The segmented build's table of boundary states, or null for one run. */
  readonly table: SnapshotTable | null;
  readonly hash?: Hash | null;
  /** How long to wait for the owner of a boundary to get there (0: it has been, or never will). */
  readonly waitMs?: number;
}

/** What a later run of a segmented build hands to the merge (plain data: it crosses threads). */
export interface RunOutcome {
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
  /** Its checkpoints. */
  readonly checkpoints: Uint8Array[];
  /** Its page records from its start on; the last is the end's when it ran to the end. */
  readonly pages: Float64Array;
  readonly minimap: Uint32Array;
  /** Per page record: the minimap counts (SPAN_CLASS_COUNT) of the bucket the page starts in, as of its start. */
  readonly miniAt: Uint32Array;
  readonly mapBrokenAt: number;
  /** Its secrets (build-secrets.ts), in its own text offsets. */
  readonly secrets: SecretRunData;
}

/** The buffers an outcome holds (to transfer, not copy, between threads). */
export function outcomeBuffers(x: RunOutcome): ArrayBuffer[] {
  return [
    ...x.checkpoints.map((c) => c.buffer as ArrayBuffer), x.pages.buffer as ArrayBuffer, x.minimap.buffer as ArrayBuffer, x.miniAt.buffer as ArrayBuffer,
    ...x.secrets.records.map((r) => r.buffer as ArrayBuffer), x.secrets.idle.buffer as ArrayBuffer,
  ];
}

/** An index run (see the top of this file). */
export class IndexRun extends BuildRun {
  readonly k: number;
  /** The end of its own segment. */
  readonly end: number;
  readonly mini: { buckets: number; bucketBytes: number };
  readonly minimap: Uint32Array;
  /** Page records, one per page start (then one for the end). */
  readonly pages: Float64Array[] = [];
  /** Each page start's minimap counts of the bucket it falls in, a row of SPAN_CLASS_COUNT per page record. */
  readonly miniAt: number[] = [];
  readonly checkpoints: ColumnWriter;
  stopAt: number | null = null;
  stopSnap: Snap | null = null;
  private readonly reports: Record<number, RemovalReport> = {};
  /** The last page whose start could begin a replay. */
  private lastNeutralPage = 0;
  /** Boundaries passed while the parser was not at rest: they wait for the first point where it is. */
  private readonly pendingCps: number[][] = [];
  private probe = FIRST_PROBE;

  constructor(o: RunOptions, private readonly spec: IndexRunSpec) {
    const k = spec.index;
    const stored = spec.stored;
    // Spans are counted where they begin: at the fine geometry in a stored index's minimap, coarser in a replayed one's (format.ts lazyMinimap).
    const spanStart: { count?: (cls: number, offset: number) => void } = {};
    const counted = {
      spans: null,
      text: ColumnWriter.memory('drop'),
      map: ColumnWriter.memory('drop'),
      lines: ColumnWriter.memory('drop'),
    };
    super(o, stored ?? counted, { at: spec.starts[k], hash: spec.hash, onSpanStart: (cls, offset) => spanStart.count!(cls, offset) });
    this.k = k;
    this.secretSink = new SecretSink(secretsPolicy(o.secrets));
    this.end = k + 1 < spec.starts.length ? spec.starts[k + 1] : this.size;
    this.checkpoints = spec.checkpoints;
    const mini = (this.mini = stored ? fineMinimap(this.size) : lazyMinimap(this.size));
    const minimap = (this.minimap = new Uint32Array(SPAN_CLASS_COUNT * mini.buckets));
    spanStart.count = (cls, offset) => {
      minimap[cls * mini.buckets + Math.floor(offset / mini.bucketBytes)]++;
    };
  }

  /** Where its text is scanned for secrets. */
  get secrets(): SecretSink {
    return this.secretSink!;
  }

  /** Span ends never decrease in stored order (counted: the parser's order, which the queries take as it is). */
  get endsOrdered(): boolean {
    return this.spanCol?.endsOrdered ?? true;
  }

  override run(progress?: (pos: number) => void): void {
    if (this.k > 0 && this.spec.table) this.publish(this.start);
    trace?.(`segment ${this.k} run from ${this.start}`);
    super.run(progress);
    trace?.(`segment ${this.k} ${this.stopAt === null ? 'ran to the end' : `handed over at ${this.stopAt}`}`);
  }

  protected override beforePage(pos: number): boolean {
    const page = pos / this.o.pageBytes;
    const s = this.snap(pos);
    if (s.neutral) this.lastNeutralPage = page;
    this.secrets.pageStart();
    const restart = page - this.lastNeutralPage <= MAX_REPLAY_PAGES ? this.lastNeutralPage : -1;
    this.pages.push(pageRecord(s, this.mapCol.count, restart));
    const bucket = Math.min(this.mini.buckets - 1, Math.floor(pos / this.mini.bucketBytes));
    for (let c = 0; c < SPAN_CLASS_COUNT; c++) this.miniAt.push(this.minimap[c * this.mini.buckets + bucket]);
    return true;
  }

  protected override feedPage(view: Uint8Array, pos: number): void {
    const pending = this.pendingCps;
    if (pending.length === 0) {
      this.feed(view);
      return;
    }
    // A boundary waits for the parser to come to rest: feed in growing pieces and look after each.
    const n = view.length;
    for (let at = 0; at < n;) {
      const piece = pending.length > 0 ? Math.min(this.probe, n - at) : n - at;
      this.feed(at === 0 && piece === n ? view : view.subarray(at, at + piece));
      at += piece;
      if (pending.length > 0) {
        if (this.sanitizer.parserAtRest) this.resolveCheckpoints(pos + at);
        else this.probe = Math.min(this.probe * 2, this.o.pageBytes);
      }
    }
  }

  /** Sanitizes `bytes`. */
  private feed(bytes: Uint8Array): void {
    this.emit(this.sanitizer.write(bytes));
  }

  protected override afterPage(pos: number): boolean {
    const { table, starts } = this.spec;
    if (pos < this.end) {
      if (this.k > 0 && table) this.publish(pos);
    } else if (table && this.pendingCps.length === 0 && ownerOf(starts, pos) > this.k) {
      // Past its own segment: hand over where the owner of this boundary was in the same state.
      const mine = this.snap(pos);
      const theirs = mine.neutral ? table.wait(pos / this.o.pageBytes, this.spec.waitMs ?? 0, () => this.o.shouldCancel?.() === true) : null;
      if (theirs && matches(mine, theirs)) {
        this.stopAt = pos;
        this.stopSnap = mine;
        return true;
      }
    }
    // As of the boundary: every span reported so far ended by it (the queries' lower bound).
    const cp = [pos, this.spans, pos, this.textBytes, this.mapCol.segments, this.lineCol.count, this.spans];
    if (this.pendingCps.length === 0 && this.sanitizer.parserAtRest) this.writeCheckpoint(cp);
    else {
      if (this.pendingCps.length === 0) this.probe = FIRST_PROBE;
      this.pendingCps.push(cp);
    }
    return false;
  }

  protected override ended(): void {
    if (this.pendingCps.length > 0) this.resolveCheckpoints(this.size);
    this.secrets.end();
    this.mapCol.finish();
    // Whether the artifact shows a line at all is the merge's call when there are segments.
    if (this.k === 0) this.lineCol.finish(this.size > 0);
    this.stopSnap = this.snap(this.size);
    // The last record: the counts at the end (no replay starts there; every map segment is closed).
    this.pages.push(pageRecord({ ...this.stopSnap, neutral: false, hasOpen: false, openT: 0, openR: 0, openLen: 0 }, this.mapCol.count, -1));
  }

  private writeCheckpoint(cp: number[]): void {
    const out = this.checkpoints;
    const at = out.reserve(CHECKPOINT_RECORD) >> 3;
    for (let i = 0; i < CHECKPOINT_FIELDS; i++) out.f64[at + i] = cp[i];
  }

  /**
   * Writes the waiting checkpoints: the parser is at rest at raw offset `at` with `spans` reported,
   * so a fresh Parser fed from `at` reports exactly the spans from that index on.
   */
  private resolveCheckpoints(at: number): void {
    for (const cp of this.pendingCps) {
      cp[2] = at;
      cp[6] = this.spans;
      this.writeCheckpoint(cp);
    }
    this.pendingCps.length = 0;
  }

  /** A later run's state at one of its boundaries, for an earlier run to hand over at (with its report there, at every HAND_OVER_PAGES). */
  private publish(pos: number): void {
    const s = this.snap(pos);
    const page = pos / this.o.pageBytes;
    if (s.neutral && page % HAND_OVER_PAGES === 0) this.reports[pos] = this.sanitizer.getReport();
    else s.neutral = false;
    this.spec.table!.put(page, s);
  }

  /** What the merge takes of a later run (after it ran: its checkpoints, in memory, are closed). */
  outcome(): RunOutcome {
    this.checkpoints.close();
    return {
      index: this.k,
      start: this.start,
      stopAt: this.stopAt,
      stop: this.stopSnap!,
      report: this.sanitizer.getReport(),
      reports: this.reports,
      checkpoints: this.checkpoints.kept,
      pages: concatF64(this.pages),
      minimap: this.minimap,
      miniAt: Uint32Array.from(this.miniAt),
      mapBrokenAt: this.mapCol.brokenAt,
      secrets: this.secrets.outcome(),
    };
  }
}
