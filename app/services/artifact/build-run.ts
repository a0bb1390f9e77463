// One run of the index build's loop over a raw file: read a page → hash it → sanitize it → what
// the page's end asks (a checkpoint, a page record, a hand-over) — from a start offset on, with
// the text, offset map and line starts written to column writers (sinks) and spans written or
// only counted. What the loop does at page edges is its subclass's: an index run (build-index-
// run.ts) or a replay of pages (replay.ts).
import { closeSync, constants as fsc, fstatSync, openSync, readSync } from 'node:fs';
import type { Hash } from 'node:crypto';
import { Sanitizer, SegmentKind } from '../../../shared/sanitize';
import { readUpTo } from '../../files/read-up-to';
import { LineColumn, MapColumn, MeaningTable, SpanColumn, SpanTally, type RawBytes } from './build-columns';
import type { SecretSink, SecretsSetup } from './build-secrets';
import type { Snap } from './build-snap';
import type { ColumnWriter } from './columns';
import { MAX_LINE_BYTES, type IndexSanitizerOptions } from './format';

const LF = 0x0a;

/** What text a replay's seed says came before (Snap.textKind), as a byte for SanitizerOptions.precedingText. */
export const PRECEDING_TEXT = [0x61, LF, 0x20];

/** What a run needs of the build. */
export interface RunOptions {
  readonly rawPath: string;
  readonly sanitizer: IndexSanitizerOptions;
  readonly pageBytes: number;
  readonly maxLineBytes?: number;
  readonly shouldCancel?: () => boolean;
  /** The redaction an index run records its secrets with (build-secrets.ts; absent: the built-in rules). */
  readonly secrets?: SecretsSetup;
}

/** Where a run's columns go: spans (null: counted only, through the Sanitizer's span log), text, map and lines. */
export interface RunColumns {
  readonly spans: ColumnWriter | null;
  readonly text: ColumnWriter;
  readonly map: ColumnWriter;
  readonly lines: ColumnWriter;
}

/** How a run starts. */
export interface RunStart {
  /** Raw offset of its first byte (a page start). */
  readonly at: number;
  /** What text came before (PRECEDING_TEXT; 0 from the file's start). */
  readonly precedingText?: number;
  /** The numbers spans give their meanings (default: in order of first appearance). */
  readonly meanings?: MeaningTable;
  /** Spans are counted by the bytes of their records, not written (a replay that keeps none). */
  readonly countSpans?: boolean;
  /** Told where each span begins (a minimap counted span by span). */
  readonly onSpanStart?: (cls: number, offset: number) => void;
  /** Hashes what it reads. */
  readonly hash?: Hash | null;
}

export class BuildCancelled extends Error {
  constructor() {
    super('indexing cancelled');
  }
}

/** The index build's loop, from one page start to the end of the file or to where its subclass stops it. */
export abstract class BuildRun implements RawBytes {
  readonly start: number;
  readonly size: number;
  readonly sanitizer: Sanitizer;
  readonly mapCol: MapColumn;
  readonly lineCol: LineColumn;
  /** Span records, or (a run that only counts spans) their tally. */
  readonly spanCol: SpanColumn | null;
  readonly tally: SpanTally | null;
  readonly meanings: MeaningTable;
  textBytes = 0;
  /** The last text byte emitted (-1: none yet). */
  protected lastText = -1;
  /** Where an index run's text goes to be scanned for secrets (a replay has none). */
  protected secretSink: SecretSink | null = null;
  protected readonly fd: number;
  private readonly hash: Hash | null;
  private readonly textOut: ColumnWriter;
  // The page being fed and the last bytes before it: terminators look one or two bytes around a span's end.
  private chunk = new Uint8Array(0);
  private chunkBase = 0;
  private readonly tail = new Uint8Array(16);
  private tailBase = 0;
  private tailLen = 0;

  constructor(protected readonly o: RunOptions, columns: RunColumns, from: RunStart) {
    this.start = from.at;
    this.hash = from.hash ?? null;
    this.textOut = columns.text;
    this.fd = openSync(o.rawPath, fsc.O_RDONLY | fsc.O_NOFOLLOW);
    try {
      this.size = fstatSync(this.fd).size;
    } catch (err) {
      closeSync(this.fd);
      throw err;
    }
    this.mapCol = new MapColumn(columns.map, this.start);
    this.lineCol = new LineColumn(columns.lines, o.maxLineBytes ?? MAX_LINE_BYTES);
    this.meanings = from.meanings ?? new MeaningTable();
    const spanCol = (this.spanCol = columns.spans === null ? null : new SpanColumn(columns.spans, this.start, this, this.meanings, from.countSpans, from.onSpanStart));
    const tally = (this.tally = columns.spans === null ? new SpanTally(this.start, from.onSpanStart) : null);
    const map = this.mapCol;
    // The offset map's segments are streamed to its column, not kept in an OffsetMap (25 bytes a
    // segment, ~1 GB for a hostile GiB).
    this.sanitizer = new Sanitizer({
      cr: o.sanitizer.cr,
      limits: o.sanitizer.limits,
      reuseOutputBuffer: true,
      precedingText: from.precedingText ?? 0,
      spanLog: tally?.log,
      hooks: {
        onSpan: spanCol === null ? undefined : (cls, offset, length, meaning, flags, code) => {
          map.quiet = false;
          spanCol.add(cls, offset, length, meaning, flags, code);
        },
        onSegment: map.add,
        // A stretch may leave a line break or space pending: the boundary after it is not neutral.
        onAmbiguous: () => {
          map.quiet = false;
        },
      },
    });
    // Spans only counted: a span since the last segment is seen through the tally's total.
    map.counter = tally;
  }

  /** Spans reported so far. */
  get spans(): number {
    return this.spanCol?.spans ?? (this.tally as SpanTally).spans;
  }

  /** Runs from its start to the end of the file, or until {@link beforePage} or {@link afterPage} stops it. */
  run(progress?: (pos: number) => void): void {
    const { pageBytes } = this.o;
    const size = this.size;
    let pos = this.start;
    if (pos > 0) this.readBefore(pos);
    const page = new Uint8Array(pageBytes);
    while (pos < size) {
      if (this.o.shouldCancel?.()) throw new BuildCancelled();
      if (!this.beforePage(pos)) return;
      const n = readUpTo(this.fd, page, 0, Math.min(pageBytes, size - pos), pos);
      if (n === 0) throw new Error('the raw file ended early (changed while indexing?)');
      const view = n === pageBytes ? page : page.subarray(0, n);
      this.hash?.update(view);
      this.chunk = view;
      this.chunkBase = pos;
      this.feedPage(view, pos);
      // What a page's end asks sees the spans of the page counted.
      this.tally?.drain();
      // The last bytes of this page, for terminators of spans that end in the next one.
      this.keepTail(view);
      pos += n;
      this.chunk = new Uint8Array(0);
      this.chunkBase = pos;
      if (pos < size && this.afterPage(pos)) {
        progress?.(pos);
        return;
      }
      progress?.(pos);
    }
    this.emit(this.sanitizer.end());
    this.tally?.drain();
    this.ended();
  }

  /** At the start of the page at `pos`; false stops the run there. */
  protected beforePage(_pos: number): boolean {
    return true;
  }

  /** Sanitizes a page. */
  protected feedPage(view: Uint8Array, _pos: number): void {
    this.emit(this.sanitizer.write(view));
  }

  /** At a page boundary `pos` inside the file; true stops the run there (a hand-over). */
  protected afterPage(_pos: number): boolean {
    return false;
  }

  /** After the input ended (its last text emitted). */
  protected abstract ended(): void;

  /** Takes text the Sanitizer emitted. */
  protected emit(text: Uint8Array): void {
    if (text.length === 0) return;
    this.textOut.write(text);
    this.secretSink?.text(text);
    this.lineCol.scan(text);
    this.textBytes += text.length;
    this.lastText = text[text.length - 1];
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
    };
  }

  /** RawBytes: the byte at raw `abs` from the page being fed or the last bytes before it. */
  byteAt(abs: number): number {
    const k = abs - this.chunkBase;
    if (k >= 0 && k < this.chunk.length) return this.chunk[k];
    const t = abs - this.tailBase;
    return t >= 0 && t < this.tailLen ? this.tail[t] : -1;
  }

  dispose(): void {
    try {
      closeSync(this.fd);
    } catch {
      // closed already
    }
  }

  /** The bytes before a run that starts inside the file, for terminators of spans that start right at it. */
  private readBefore(pos: number): void {
    const keep = Math.min(8, pos);
    let got = 0;
    while (got < keep) {
      const n = readSync(this.fd, this.tail, got, keep - got, pos - keep + got);
      if (n === 0) throw new Error('the raw file ended early (changed while indexing?)');
      got += n;
    }
    this.tailBase = pos - keep;
    this.tailLen = keep;
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
