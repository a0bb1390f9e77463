// Builds one artifact's span index: reads the raw file in pages (never whole), runs the real
// Sanitizer (offset map on, every span), and writes the columns described in format.ts into
// `outDir`. Synchronous on purpose: it runs in a worker thread (worker.ts), where blocking reads
// are the fastest way through the file; `shouldCancel` is polled once per page.
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, writeFileSync, constants as fsc } from 'node:fs';
import { join } from 'node:path';
import { Sanitizer, SegmentKind, type OffsetMap } from '../../../shared/sanitize';
import { SpanClass, SpanFlag, SPAN_CLASS_COUNT } from '../../../shared/parser';
import { ColumnWriter } from './columns';
import {
  CHECKPOINT_FIELDS, CHECKPOINT_RECORD, FILE_ORDER, fineMinimap, INDEX_FORMAT, LINE_RECORD, MANIFEST, MAP_RECORD,
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
  readonly onProgress?: (bytesDone: number, spans: number) => void;
  readonly shouldCancel?: () => boolean;
}

export class BuildCancelled extends Error {
  constructor() {
    super('indexing cancelled');
  }
}

const LF = 0x0a;
/** First piece fed after a boundary the parser was not at rest at (doubling up to a page). */
const FIRST_PROBE = 256;

/** Streams the offset map's segments to map.bin with the OffsetMap's own coalescing rule. */
class MapColumn {
  private has = false;
  private tStart = 0;
  private rStart = 0;
  private rLen = 0;
  private kind = 0;
  private textEnd = 0;
  count = 0;
  monotonic = true;

  constructor(private readonly out: ColumnWriter) {}

  add(textPos: number, textLen: number, rawPos: number, rawLen: number, kind: SegmentKind): void {
    if (this.has && kind === SegmentKind.Verbatim && this.kind === SegmentKind.Verbatim
      && this.rStart + this.rLen === rawPos && this.textEnd === textPos) {
      this.rLen += rawLen;
      this.textEnd += textLen;
      return;
    }
    if (this.has) {
      if (rawPos < this.rStart) this.monotonic = false;
      this.push();
    }
    this.has = true;
    this.tStart = textPos;
    this.rStart = rawPos;
    this.rLen = rawLen;
    this.kind = kind;
    this.textEnd = textPos + textLen;
  }

  /** Segments written plus the one still open. */
  get segments(): number {
    return this.count + (this.has ? 1 : 0);
  }

  finish(): void {
    if (this.has) this.push();
    this.has = false;
  }

  private push(): void {
    const at = this.out.reserve(MAP_RECORD) >> 3;
    const f = this.out.f64;
    f[at] = this.tStart;
    f[at + 1] = this.rStart;
    f[at + 2] = this.kind === SegmentKind.Replaced ? -this.rLen : this.rLen;
    this.count++;
  }
}

/** Display line starts: after every LF, and a cut (at a character start) every `max` bytes. */
class LineColumn {
  private pos = 0;
  private lineStart = 0;
  private pending = 0;
  private seekCut = false;
  count = 0;

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

  /** `nonEmpty`: the artifact had bytes, so it shows at least one (maybe empty) line. */
  finish(nonEmpty: boolean): void {
    if (this.count === 0 && nonEmpty) this.push(0);
  }

  private push(textOffset: number): void {
    this.out.f64[this.out.reserve(LINE_RECORD) >> 3] = textOffset;
    this.count++;
  }
}

/** Result the worker hands back to main. */
export interface BuildResult {
  readonly manifest: IndexManifest;
}

/** Builds the index; throws BuildCancelled when `shouldCancel` said so. */
export function buildIndex(o: BuildOptions): BuildResult {
  const started = performance.now();
  const pageBytes = o.pageBytes;
  const maxLine = o.maxLineBytes ?? MAX_LINE_BYTES;
  const fd = openSync(o.rawPath, fsc.O_RDONLY | fsc.O_NOFOLLOW);
  const writers: Partial<Record<IndexFile, ColumnWriter>> = {};
  try {
    const size = fstatSync(fd).size;
    for (const name of FILE_ORDER) writers[name] = new ColumnWriter(join(o.outDir, name));
    const spansOut = writers['spans.bin']!;
    const textOut = writers['text.bin']!;
    const checkOut = writers['checkpoints.bin']!;
    const mapCol = new MapColumn(writers['map.bin']!);
    const lineCol = new LineColumn(writers['lines.bin']!, maxLine);
    const mini = fineMinimap(size);
    const minimap = new Uint32Array(SPAN_CLASS_COUNT * mini.buckets);
    const meaningIds = new Map<string, number>();
    const meanings: string[] = [];
    let lastMeaning = '';
    let lastMeaningId = -1;

    // The page being fed and the last bytes before it: terminators look one or two bytes around a span's end.
    let chunk = new Uint8Array(0);
    let chunkBase = 0;
    const tail = new Uint8Array(16);
    let tailBase = 0;
    let tailLen = 0;
    const byteAt = (abs: number): number => {
      const k = abs - chunkBase;
      if (k >= 0 && k < chunk.length) return chunk[k];
      const t = abs - tailBase;
      return t >= 0 && t < tailLen ? tail[t] : -1;
    };

    let spans = 0;
    let textBytes = 0;
    let lastEnd = 0;
    let endsOrdered = true;
    // Boundaries passed while the parser was not at rest: they wait for the first point where it is.
    const pendingCps: number[][] = [];

    const terminator = (cls: number, end: number, flags: number, code: number): Term => {
      if (flags & SpanFlag.Unterminated) return Term.Eof;
      const last = byteAt(end - 1);
      if (cls === SpanClass.Esc || cls === SpanClass.Csi) {
        if (code !== 0 && last === code) return Term.Final;
        return interruption(byteAt(end));
      }
      if (last === 0x5c && byteAt(end - 2) === 0x1b) return Term.St;
      if (flags & SpanFlag.Malformed) {
        const why = interruption(byteAt(end));
        if (why !== Term.Interrupted) return why;
      }
      if (cls === SpanClass.Osc && last === 0x07) return Term.Bel;
      if (last === 0x9c) return Term.C1St;
      return interruption(byteAt(end));
    };

    const sanitizer = new Sanitizer({
      cr: o.sanitizer.cr,
      limits: o.sanitizer.limits,
      mapOffsets: true,
      reuseOutputBuffer: true,
      onSpan(cls, offset, length, meaning, flags, code) {
        let id = lastMeaningId;
        if (meaning !== lastMeaning) {
          let known = meaningIds.get(meaning);
          if (known === undefined) {
            if (meanings.length >= MAX_MEANINGS) throw new Error('too many distinct span meanings for the index format');
            known = meanings.length;
            meanings.push(meaning);
            meaningIds.set(meaning, known);
          }
          id = lastMeaningId = known;
          lastMeaning = meaning;
        }
        const term = cls >= SpanClass.Esc && cls <= SpanClass.Sos ? terminator(cls, offset + length, flags, code) : Term.None;
        const at = spansOut.reserve(SPAN_RECORD);
        const f = at >> 3;
        spansOut.f64[f] = offset;
        spansOut.f64[f + 1] = length;
        spansOut.i32[(at + 16) >> 2] = code > 0x7fffffff ? 0x7fffffff : code;
        spansOut.u16[(at + 20) >> 1] = id | (term << 12);
        spansOut.u8[at + 22] = cls;
        spansOut.u8[at + 23] = flags;
        minimap[cls * mini.buckets + Math.floor(offset / mini.bucketBytes)]++;
        if (offset + length < lastEnd) endsOrdered = false;
        else lastEnd = offset + length;
        spans++;
      },
    });
    // The Sanitizer keeps its OffsetMap in memory (25 bytes a segment: ~1 GB for a hostile GiB);
    // its public `add` is the one entry point segments come through, so stream them to disk instead.
    const map = sanitizer.map as OffsetMap;
    map.add = mapCol.add.bind(mapCol);

    /**
     * Writes the waiting checkpoints: the parser is at rest at raw offset `at` with `spans` reported,
     * so a fresh Parser fed from `at` reports exactly the spans from that index on.
     */
    const resolveCheckpoints = (at: number): void => {
      for (const cp of pendingCps) {
        cp[2] = at;
        cp[6] = spans;
        writeCheckpoint(cp);
      }
      pendingCps.length = 0;
    };
    const writeCheckpoint = (cp: number[]): void => {
      const at = checkOut.reserve(CHECKPOINT_RECORD) >> 3;
      for (let k = 0; k < CHECKPOINT_FIELDS; k++) checkOut.f64[at + k] = cp[k];
    };

    const hash = o.verifyDigest === false ? null : createHash('sha256');
    const page = new Uint8Array(pageBytes);
    let pos = 0;
    let probe = FIRST_PROBE;
    const emit = (text: Uint8Array): void => {
      if (text.length === 0) return;
      textOut.write(text);
      lineCol.scan(text);
      textBytes += text.length;
    };
    while (pos < size) {
      if (o.shouldCancel?.()) throw new BuildCancelled();
      let n = 0;
      while (n < pageBytes && pos + n < size) {
        const got = readSync(fd, page, n, Math.min(pageBytes - n, size - pos - n), pos + n);
        if (got === 0) break;
        n += got;
      }
      if (n === 0) throw new Error('the raw file ended early (changed while indexing?)');
      const view = n === pageBytes ? page : page.subarray(0, n);
      hash?.update(view);
      chunk = view;
      chunkBase = pos;
      if (pendingCps.length === 0) {
        emit(sanitizer.write(view));
      } else {
        // A boundary waits for the parser to come to rest: feed in growing pieces and look after each.
        let k = 0;
        while (k < n) {
          const piece = pendingCps.length > 0 ? Math.min(probe, n - k) : n - k;
          emit(sanitizer.write(k === 0 && piece === n ? view : view.subarray(k, k + piece)));
          k += piece;
          if (pendingCps.length > 0) {
            if (sanitizer.parserAtRest) resolveCheckpoints(pos + k);
            else probe = Math.min(probe * 2, pageBytes);
          }
        }
      }
      // Keep the last bytes of this page for terminators of spans that end in the next one.
      keepTail(view);
      pos += n;
      chunk = new Uint8Array(0);
      chunkBase = pos;
      if (pos < size) {
        // As of the boundary: every span reported so far ended by it (the queries' lower bound).
        const cp = [pos, spans, pos, textBytes, mapCol.segments, lineCol.count, spans];
        if (pendingCps.length === 0 && sanitizer.parserAtRest) writeCheckpoint(cp);
        else {
          if (pendingCps.length === 0) probe = FIRST_PROBE;
          pendingCps.push(cp);
        }
      }
      o.onProgress?.(pos, spans);
    }
    emit(sanitizer.end());
    if (pendingCps.length > 0) resolveCheckpoints(size);
    mapCol.finish();
    lineCol.finish(size > 0);
    if (hash) {
      const digest = hash.digest('hex');
      if (digest !== o.sha256) throw new Error('the raw bytes do not match their digest; not indexing them');
    }
    writers['minimap.bin']!.write(new Uint8Array(minimap.buffer));

    const files = {} as Record<IndexFile, number>;
    const sumParts: number[] = [];
    for (const name of FILE_ORDER) {
      const { bytes, sums } = writers[name]!.close();
      files[name] = bytes;
      sumParts.push(...sums);
    }
    const sumsBytes = new Uint8Array(Uint32Array.from(sumParts).buffer);
    writeFileSync(join(o.outDir, SUMS), sumsBytes, { mode: 0o600, flag: 'wx' });
    const report = sanitizer.getReport();
    const manifest: IndexManifest = {
      format: INDEX_FORMAT,
      engine: o.engine,
      sha256: o.sha256,
      size,
      sanitizer: o.sanitizer,
      pageBytes,
      maxLineBytes: maxLine,
      minimap: mini,
      counts: {
        spans,
        textBytes,
        lines: lineCol.count,
        segments: mapCol.count,
        checkpoints: files['checkpoints.bin'] / CHECKPOINT_RECORD,
      },
      monotonic: mapCol.monotonic,
      endsOrdered,
      meanings,
      report: { ...report, sha256: hash ? o.sha256 : report.sha256 },
      files,
      sumsSha256: createHash('sha256').update(sumsBytes).digest('hex'),
      builtMs: Math.round(performance.now() - started),
      createdAt: new Date().toISOString(),
    };
    writeFileSync(join(o.outDir, MANIFEST), JSON.stringify(manifest), { mode: 0o600, flag: 'wx' });
    return { manifest };

    function keepTail(view: Uint8Array): void {
      const keep = 8;
      if (view.length >= keep) {
        tail.set(view.subarray(view.length - keep));
        tailBase = chunkBase + view.length - keep;
        tailLen = keep;
        return;
      }
      // A short page: append to what is kept, then keep the last `keep` bytes of both.
      const joined = new Uint8Array(tailLen + view.length);
      joined.set(tail.subarray(0, tailLen));
      joined.set(view, tailLen);
      const from = Math.max(0, joined.length - keep);
      tail.set(joined.subarray(from));
      tailBase = chunkBase + view.length - (joined.length - from);
      tailLen = joined.length - from;
    }
  } finally {
    for (const w of Object.values(writers)) w?.abandon();
    closeSync(fd);
  }
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
