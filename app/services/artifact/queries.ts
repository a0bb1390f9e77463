// Queries over an open index (reader.ts): spans by range, next/previous span, minimap, display
// lines with their pieces, raw offset -> line. All on positional, verified reads and binary search.
//
// Span order: spans are stored in the order the parser reported them, which is the order of their
// END offsets (non-decreasing). Start offsets ascend too, except that a C0 control executed inside
// a CSI/ESC/DCS header is reported before the sequence that contains it (it nests one level).
// Hence: binary search on ends, and scans that step over C0 runs before they stop (a non-C0 span X
// guarantees every later span starts at or after X's end; every earlier span starts before X's end).
import type { SecretInfo, SpanInfo, SpanValue, TextLine, TextPage, TextPiece, TextPosition } from '../../../shared/bridge/types';
import { SpanClass, SPAN_CLASS_COUNT, SPAN_CLASS_NAMES } from '../../../shared/parser';
import { Budget } from './budget';
import { CHECKPOINT_FIELDS, MAP_RECORD, SPAN_RECORD, TERMINATORS } from './format';
import type { IndexReader } from './reader';
import { secretsInText, type SecretRecord } from './secret-column';

/** Spans read per batch while scanning. */
const SCAN_BATCH = 4096;
/** Most span records one range query steps over before it gives up on a C0 run (bounded work). */
const SCAN_BUDGET = 1 << 20;
/** Chips shown for the removed spans between two text pieces; the rest are counted (`more`). */
export const MAX_CHIPS_PER_GAP = 64;

const MAX_SAFE_CODE = 0x7fffffff;
const utf8 = new TextDecoder('utf-8');

/**
 * A span as the index holds it: the bridge's SpanInfo and its value (`code`), which is raw
 * content and leaves main only under a grant (public.ts strips it from every other answer).
 */
export interface IndexedSpan extends SpanInfo {
  readonly code: number;
}

/** Decodes span `index` from `buf` at byte `at`. */
export function decodeSpan(r: IndexReader, buf: Buffer, at: number, index: number): IndexedSpan {
  const mt = buf.readUInt16LE(at + 20);
  const code = buf.readInt32LE(at + 16);
  return {
    index,
    offset: buf.readDoubleLE(at),
    length: buf.readDoubleLE(at + 8),
    cls: buf[at + 22],
    meaning: r.manifest.meanings[mt & 0xfff] ?? 'unknown',
    flags: buf[at + 23],
    code: code === MAX_SAFE_CODE ? Number.MAX_SAFE_INTEGER : code,
    terminator: TERMINATORS[mt >> 12] ?? null,
  };
}

/** Reads spans [from, from + count) as one buffer. */
async function spanBatch(r: IndexReader, from: number, count: number): Promise<Buffer> {
  return r.files['spans.bin'].read(from * SPAN_RECORD, count * SPAN_RECORD);
}

export async function spanAt(r: IndexReader, i: number): Promise<IndexedSpan> {
  return decodeSpan(r, await spanBatch(r, i, 1), 0, i);
}

async function spanEnd(r: IndexReader, i: number): Promise<number> {
  const b = await spanBatch(r, i, 1);
  return b.readDoubleLE(0) + b.readDoubleLE(8);
}

/**
 * First index in [lo, n) where the monotone `pred` holds (n if none), every index below `lo`
 * being known false. Gallops from `lo` before bisecting, so a search that starts from a nearby
 * checkpoint touches a few neighbouring blocks instead of ~log2(n) scattered ones (a cold
 * multi-GiB index answers in milliseconds, not a disk seek per step).
 */
async function firstTrue(lo: number, n: number, pred: (i: number) => Promise<boolean>): Promise<number> {
  let a = lo;
  let b = n;
  for (let step = 1; ; step *= 2) {
    const probe = a + step - 1;
    if (probe >= n) break;
    if (await pred(probe)) {
      b = probe;
      break;
    }
    a = probe + 1;
  }
  while (a < b) {
    const mid = Math.floor((a + b) / 2);
    if (await pred(mid)) b = mid;
    else a = mid + 1;
  }
  return a;
}

/** Checkpoint field `f` of the last checkpoint at or below raw offset `raw` (or `fallback`). */
function checkpointAtRaw(r: IndexReader, raw: number, f: number, fallback: number): number {
  const k = Math.min(Math.floor(raw / r.manifest.pageBytes) - 1, r.manifest.counts.checkpoints - 1);
  return k >= 0 ? r.checkpoints[k * CHECKPOINT_FIELDS + f] : fallback;
}

/** Checkpoint field `f` of the last checkpoint whose text offset is at or below `t` (or `fallback`). */
function checkpointAtText(r: IndexReader, t: number, f: number, fallback: number): number {
  const cp = r.checkpoints;
  let lo = 0;
  let hi = r.manifest.counts.checkpoints;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cp[mid * CHECKPOINT_FIELDS + 3] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? cp[(lo - 1) * CHECKPOINT_FIELDS + f] : fallback;
}

/**
 * Whether a span of class `cls` may come before a span that holds it: a C0 control executed
 * inside a sequence, or text withheld inside one, is reported when met, and the sequence when it
 * completes. A scan in report order does not stop at such a span (a later one may still overlap).
 */
function reportedInside(cls: number): boolean {
  return cls === SpanClass.C0 || cls === SpanClass.Withheld;
}

/** First span index whose end is > x (spans.length if none). */
export async function firstEndAfter(r: IndexReader, x: number): Promise<number> {
  // Spans before a checkpoint's first span all ended by its boundary (<= x).
  const lo = Math.max(0, checkpointAtRaw(r, x, 1, 0));
  return firstTrue(lo, r.manifest.counts.spans, async (i) => (await spanEnd(r, i)) > x);
}

/**
 * Spans overlapping raw `[a, b)`, sorted by offset, at most `limit`; `more` counts the overlapping
 * spans past the limit (with `countMore` false the scan stops at the limit and `more` is a lower bound).
 */
export async function spansOverlapping(r: IndexReader, a: number, b: number, limit: number, countMore = true, budget = Budget.none): Promise<{ spans: IndexedSpan[]; more: number }> {
  const n = r.manifest.counts.spans;
  const out: IndexedSpan[] = [];
  let more = 0;
  let i = await firstEndAfter(r, a);
  let stepped = 0;
  outer: while (i < n && stepped < SCAN_BUDGET) {
    budget.check();
    const count = Math.min(SCAN_BATCH, n - i);
    const buf = await spanBatch(r, i, count);
    for (let k = 0; k < count; k++, i++, stepped++) {
      const at = k * SPAN_RECORD;
      const off = buf.readDoubleLE(at);
      const end = off + buf.readDoubleLE(at + 8);
      const cls = buf[at + 22];
      if (off < b && end > a) {
        if (out.length < limit) out.push(decodeSpan(r, buf, at, i));
        else more++;
      }
      if (!reportedInside(cls) && (end >= b || (!countMore && out.length >= limit))) break outer;
    }
  }
  out.sort((x, y) => x.offset - y.offset || y.length - x.length);
  return { spans: out, more };
}

/**
 * The values of the spans overlapping raw `[a, b)` that lie wholly inside `[lo, hi)` (a grant's
 * range), at most `limit`, by offset.
 */
export async function spanValues(r: IndexReader, a: number, b: number, lo: number, hi: number, limit: number, budget = Budget.none): Promise<SpanValue[]> {
  if (Math.max(a, lo) >= Math.min(b, hi)) return [];
  const { spans } = await spansOverlapping(r, Math.max(a, lo), Math.min(b, hi), limit, false, budget);
  return spans.filter((s) => s.offset >= lo && s.offset + s.length <= hi).map((s) => ({ index: s.index, offset: s.offset, code: s.code }));
}

export interface SpanFilter {
  readonly cls?: number;
  readonly meaning?: string;
}

/**
 * Next span (by offset) starting at or after `from` (dir 1), or the last one starting before
 * `from` (dir -1), matching `filter`. A class filter skips minimap buckets holding none of it.
 */
export async function findSpan(r: IndexReader, from: number, dir: 1 | -1, filter: SpanFilter, budget = Budget.none): Promise<IndexedSpan | null> {
  const n = r.manifest.counts.spans;
  if (n === 0) return null;
  const meaningId = filter.meaning === undefined ? -1 : r.manifest.meanings.indexOf(filter.meaning);
  if (filter.meaning !== undefined && meaningId < 0) return null;
  const matches = (buf: Buffer, at: number): boolean =>
    (filter.cls === undefined || buf[at + 22] === filter.cls) && (meaningId < 0 || (buf.readUInt16LE(at + 20) & 0xfff) === meaningId);
  // A meaning alone still narrows the scan when only one class has it (report keys are `class: meaning`).
  let skipCls = filter.cls;
  if (skipCls === undefined && filter.meaning !== undefined) {
    const keys = Object.keys((r.manifest.report as { meanings?: Record<string, number> }).meanings ?? {});
    const classes = SPAN_CLASS_NAMES.map((name, c) => (keys.includes(`${name}: ${filter.meaning}`) ? c : -1)).filter((c) => c >= 0);
    if (classes.length === 1) skipCls = classes[0];
  }
  const buckets = skipCls !== undefined ? await minimapRow(r, skipCls) : null;
  const bw = r.manifest.minimap.bucketBytes;

  if (dir === 1) {
    let start = from;
    if (buckets) {
      let bk = Math.floor(from / bw);
      while (bk < buckets.length && buckets[bk] === 0) bk++;
      if (bk >= buckets.length) return null;
      start = Math.max(from, bk * bw);
    }
    let i = await firstEndAfter(r, start);
    let best: IndexedSpan | null = null;
    while (i < n) {
      budget.check();
      const count = Math.min(SCAN_BATCH, n - i);
      const buf = await spanBatch(r, i, count);
      for (let k = 0; k < count; k++, i++) {
        const at = k * SPAN_RECORD;
        const off = buf.readDoubleLE(at);
        const end = off + buf.readDoubleLE(at + 8);
        if (off >= from && matches(buf, at) && (!best || off < best.offset)) best = decodeSpan(r, buf, at, i);
        if (best && !reportedInside(buf[at + 22]) && end >= best.offset) return best;
      }
      if (buckets && !best) {
        // Jump over buckets with none of this class.
        const next = i < n ? await spanAt(r, i) : null;
        let bk = next ? Math.floor(next.offset / bw) : buckets.length;
        // A C0 or withheld span may sit inside a later sequence that starts in an earlier bucket: no skip there.
        if (next !== null && !reportedInside(next.cls) && bk < buckets.length && buckets[bk] === 0) {
          while (bk < buckets.length && buckets[bk] === 0) bk++;
          if (bk >= buckets.length) return null;
          i = Math.max(i, await firstEndAfter(r, bk * bw));
        }
      }
    }
    return best;
  }

  // Backward: the span with the greatest offset < from.
  let i = await firstEndAfter(r, from);
  // Spans at i.. that straddle `from` (and the C0 and withheld spans inside them) can still start before it.
  let best: IndexedSpan | null = null;
  {
    let j = i;
    while (j < n) {
      const buf = await spanBatch(r, j, 1);
      const off = buf.readDoubleLE(0);
      if (off < from && matches(buf, 0) && (!best || off > best.offset)) best = decodeSpan(r, buf, 0, j);
      if (!reportedInside(buf[22])) break;
      j++;
      if (j - i > SCAN_BATCH) break;
    }
  }
  while (i > 0) {
    budget.check();
    if (buckets && !best) {
      const lastOff = (await spanAt(r, i - 1)).offset;
      let bk = Math.floor(lastOff / bw);
      if (buckets[bk] === 0) {
        while (bk >= 0 && buckets[bk] === 0) bk--;
        if (bk < 0) return null;
        i = Math.min(i, await firstEndAfter(r, (bk + 1) * bw) + SCAN_BATCH);
        i = Math.min(i, n);
      }
    }
    const count = Math.min(SCAN_BATCH, i);
    const first = i - count;
    const buf = await spanBatch(r, first, count);
    for (let k = count - 1; k >= 0; k--) {
      const at = k * SPAN_RECORD;
      const off = buf.readDoubleLE(at);
      const end = off + buf.readDoubleLE(at + 8);
      if (best && end <= best.offset) return best;
      if (off < from && matches(buf, at) && (!best || off > best.offset)) best = decodeSpan(r, buf, at, first + k);
    }
    i = first;
  }
  return best;
}

/** Fine minimap counts of one class (cached per reader). */
const rows = new WeakMap<IndexReader, (Uint32Array | undefined)[]>();
export async function minimapRow(r: IndexReader, cls: number): Promise<Uint32Array> {
  let cache = rows.get(r);
  if (!cache) rows.set(r, (cache = []));
  const hit = cache[cls];
  if (hit) return hit;
  const b = r.manifest.minimap.buckets;
  const buf = await r.files['minimap.bin'].read(cls * b * 4, b * 4);
  const row = new Uint32Array(new Uint8Array(buf).buffer, 0, b);
  cache[cls] = row;
  return row;
}

/** Per-class counts in `buckets` equal buckets (a whole number of fine buckets each). */
export async function getMinimap(r: IndexReader, buckets: number): Promise<{ buckets: number; bucketBytes: number; counts: number[][] }> {
  const fine = r.manifest.minimap;
  const per = Math.max(1, Math.ceil(fine.buckets / buckets));
  const out = Math.ceil(fine.buckets / per);
  const counts: number[][] = [];
  for (let c = 0; c < SPAN_CLASS_COUNT; c++) {
    const row = await minimapRow(r, c);
    const sums = new Array<number>(out).fill(0);
    for (let k = 0; k < row.length; k++) sums[Math.floor(k / per)] += row[k];
    counts.push(sums);
  }
  return { buckets: out, bucketBytes: fine.bucketBytes * per, counts };
}

// ---- offset map and lines ------------------------------------------------------------------

export interface Segment {
  readonly index: number;
  readonly textStart: number;
  readonly rawStart: number;
  readonly rawLength: number;
  /** 0 verbatim, 1 replaced. */
  readonly kind: number;
  /** Text end (next segment's start, or the text length). */
  textEnd: number;
}

export async function segmentsFrom(r: IndexReader, first: number, count: number): Promise<Segment[]> {
  const n = r.manifest.counts.segments;
  const take = Math.min(count + 1, n - first);
  if (take <= 0) return [];
  const buf = await r.files['map.bin'].read(first * MAP_RECORD, take * MAP_RECORD);
  const out: Segment[] = [];
  for (let k = 0; k < take; k++) {
    const at = k * MAP_RECORD;
    const len = buf.readDoubleLE(at + 16);
    out.push({ index: first + k, textStart: buf.readDoubleLE(at), rawStart: buf.readDoubleLE(at + 8), rawLength: Math.abs(len), kind: len < 0 ? 1 : 0, textEnd: 0 });
  }
  for (let k = 0; k < out.length; k++) out[k].textEnd = k + 1 < out.length ? out[k + 1].textStart : r.manifest.counts.textBytes;
  return out.slice(0, Math.min(count, out.length));
}

async function segField(r: IndexReader, i: number, field: 0 | 1): Promise<number> {
  return (await r.files['map.bin'].read(i * MAP_RECORD + field * 8, 8)).readDoubleLE(0);
}

/** Last segment index whose field (0 textStart, 1 rawStart) is <= x, or -1. */
export async function lastSegAtOrBefore(r: IndexReader, x: number, field: 0 | 1): Promise<number> {
  // Segments that existed at a checkpoint started at or before it (in text, and in raw when monotonic).
  const known = field === 0 ? checkpointAtText(r, x, 4, 0) : r.manifest.monotonic ? checkpointAtRaw(r, x, 4, 0) : 0;
  const lo = Math.max(0, known - 1);
  return (await firstTrue(lo, r.manifest.counts.segments, async (i) => (await segField(r, i, field)) > x)) - 1;
}

export async function lineStart(r: IndexReader, line: number): Promise<number> {
  return line >= r.manifest.counts.lines ? r.manifest.counts.textBytes : r.files['lines.bin'].f64(line);
}

/** Display line holding text offset t. */
export async function lineOf(r: IndexReader, t: number): Promise<number> {
  const lo = Math.max(0, checkpointAtText(r, t, 5, 0) - 1);
  return Math.max(0, (await firstTrue(lo, r.manifest.counts.lines, async (i) => (await r.files['lines.bin'].f64(i)) > t)) - 1);
}

/** Raw offset just past the bytes that made text byte t. */
async function rawEndOfText(r: IndexReader, t: number): Promise<number> {
  const s = await lastSegAtOrBefore(r, t, 0);
  if (s < 0) return 0;
  const [seg] = await segmentsFrom(r, s, 1);
  return seg.kind === 0 ? seg.rawStart + (t - seg.textStart) + 1 : seg.rawStart + seg.rawLength;
}

/** Display lines [first, first + count) with their pieces. */
export async function getTextLines(r: IndexReader, first: number, count: number): Promise<TextPage> {
  const total = r.manifest.counts.lines;
  const lines: TextLine[] = [];
  if (first >= total) return { firstLine: first, totalLines: total, lines };
  const last = Math.min(total, first + count);
  const starts: number[] = [];
  {
    const buf = await r.files['lines.bin'].read(first * 8, (last - first) * 8);
    for (let k = 0; k < last - first; k++) starts.push(buf.readDoubleLE(k * 8));
    starts.push(await lineStart(r, last));
  }
  const textFrom = starts[0];
  const textTo = starts[starts.length - 1];
  const text = await r.files['text.bin'].read(textFrom, textTo - textFrom);
  const monotonic = r.manifest.monotonic;
  // Segments covering the page's text, read once.
  const s0 = Math.max(0, await lastSegAtOrBefore(r, textFrom, 0));
  const s1 = textTo > textFrom ? await lastSegAtOrBefore(r, textTo - 1, 0) : s0;
  const segs = r.manifest.counts.segments > 0 ? await segmentsFrom(r, s0, s1 - s0 + 1) : [];
  let si = 0;
  let rawCursor = textFrom === 0 ? 0 : await rawEndOfText(r, textFrom - 1);
  // The page's spans in one scan (a page of hostile lines holds thousands; one binary search each was slow).
  const pageRawEnd = last === total ? r.manifest.size : textTo > 0 ? await rawEndOfText(r, textTo - 1) : r.manifest.size;
  const feed = new SpanFeed(r, monotonic ? await spansOverlapping(r, rawCursor, pageRawEnd, PAGE_SPANS) : { spans: [], more: 1 });
  const secrets = await pageSecrets(r, textFrom, textTo);
  for (let li = first; li < last; li++) {
    const ts = starts[li - first];
    const te = starts[li - first + 1];
    const isLast = li === total - 1;
    const rawStart = rawCursor;
    const pieces: TextPiece[] = [];
    secrets.line(ts, pieces);
    while (si < segs.length && segs[si].textEnd <= ts) si++;
    for (let k = si; k < segs.length && segs[k].textStart < te; k++) {
      const seg = segs[k];
      const pts = Math.max(ts, seg.textStart);
      const pte = Math.min(te, seg.textEnd);
      if (pte <= pts) continue;
      const pr = seg.kind === 0 ? seg.rawStart + (pts - seg.textStart) : seg.rawStart;
      const prLen = seg.kind === 0 ? pte - pts : seg.rawLength;
      if (monotonic && pr > rawCursor) await addChips(feed, pieces, rawCursor, pr);
      const bytes = text.subarray(pts - textFrom, pte - textFrom);
      // A secret's text is not served: the stretches of the piece outside every secret are, and
      // each secret's own piece stands where its text begins (a replaced piece inside one is left out).
      const cut = seg.kind === 0
        ? (a: number, b: number) => pieces.push({ t: 'text', text: utf8.decode(text.subarray(a - textFrom, b - textFrom)), raw: pr + (a - pts), rawLength: b - a, direct: true })
        : null;
      if (!secrets.split(pts, pte, pieces, cut)) {
        if (seg.kind === 0) {
          pieces.push({ t: 'text', text: utf8.decode(bytes), raw: pr, rawLength: prLen, direct: true });
        } else if (bytes.length === 1 && (bytes[0] === 0x0a || bytes[0] === 0x20)) {
          pieces.push({ t: 'synthetic', text: bytes[0] === 0x0a ? '\n' : ' ', raw: pr, rawLength: prLen });
        } else {
          const chip = monotonic ? (await feed.take(pr, pr + prLen, 1)).spans[0] : undefined;
          if (chip && chip.cls === SpanClass.InvalidUtf8) pieces.push({ t: 'chip', span: chip });
          else pieces.push({ t: 'text', text: utf8.decode(bytes), raw: pr, rawLength: prLen, direct: false });
        }
      }
      if (pr + prLen > rawCursor) rawCursor = pr + prLen;
    }
    while (si < segs.length && segs[si].textEnd <= te) si++;
    // Overwrite mode: a line's text comes from anywhere in its raw bytes, in screen order, so the
    // spans removed there cannot sit between pieces; they follow the text, in raw order.
    if (!monotonic && rawCursor > rawStart) await addChips(new SpanFeed(r, { spans: [], more: 1 }), pieces, rawStart, rawCursor, trailingChip(rawStart));
    let rawEnd = rawCursor;
    if (isLast) {
      if (monotonic && r.manifest.size > rawCursor) await addChips(feed, pieces, rawCursor, r.manifest.size);
      rawEnd = Math.max(rawCursor, r.manifest.size);
    }
    const continued = ts > 0 && ts - 1 >= textFrom ? text[ts - 1 - textFrom] !== 0x0a : ts > 0 && (await r.files['text.bin'].read(ts - 1, 1))[0] !== 0x0a;
    lines.push({ line: li, textOffset: ts, rawStart, rawEnd, continued, pieces });
    rawCursor = rawEnd;
  }
  return { firstLine: first, totalLines: total, lines };
}

/**
 * The secrets of a page of lines, handed out in text order as its pieces are made: a secret's text
 * is left out of every piece, and the secret's own piece goes where its text begins (or, on the
 * lines a multi-line secret goes on over, at the line's start, `continued`).
 */
class PageSecrets {
  private k = 0;
  /** Secrets given a piece on the current line. */
  private placed = new Set<number>();

  constructor(private readonly list: readonly SecretInfo[]) {}

  /** A line starts at text offset `ts`: a secret begun on an earlier line that goes on here gets its piece first. */
  line(ts: number, pieces: TextPiece[]): void {
    this.placed = new Set();
    while (this.k < this.list.length && end(this.list[this.k]) <= ts) this.k++;
    const s = this.list[this.k];
    if (s && s.textOffset < ts) {
      pieces.push({ t: 'secret', secret: s, continued: true });
      this.placed.add(s.index);
    }
  }

  /**
   * Walks text `[a, b)` of one piece: `text(x, y)` for each stretch outside every secret (none for
   * a piece whose text is not to be cut: `text` null), and the piece of each secret that begins in
   * it in between. Returns false, doing nothing, when no secret touches `[a, b)`.
   */
  split(a: number, b: number, pieces: TextPiece[], text: ((x: number, y: number) => void) | null): boolean {
    let at = a;
    let touched = false;
    for (let i = this.k; i < this.list.length && this.list[i].textOffset < b; i++) {
      const s = this.list[i];
      if (end(s) <= a) continue;
      touched = true;
      if (s.textOffset > at) text?.(at, s.textOffset);
      if (!this.placed.has(s.index)) {
        pieces.push({ t: 'secret', secret: s, continued: false });
        this.placed.add(s.index);
      }
      at = Math.max(at, end(s));
    }
    if (touched && at < b) text?.(at, b);
    return touched;
  }
}

function end(s: SecretInfo): number {
  return s.textOffset + s.textLength;
}

/** The secrets that overlap text `[t0, t1)`, with their raw extents. */
async function pageSecrets(r: IndexReader, t0: number, t1: number): Promise<PageSecrets> {
  const list: SecretInfo[] = [];
  for (const s of await secretsInText(r, t0, t1)) list.push(await secretInfo(r, s));
  return new PageSecrets(list);
}

/** Spans one getTextLines call reads up front. */
const PAGE_SPANS = 50_000;

/**
 * Hands out the spans of raw ranges visited in ascending order from one prefetched list; when the
 * page held more spans than were prefetched, each range asks the index itself.
 */
class SpanFeed {
  private k = 0;
  private readonly spans: SpanInfo[];
  private readonly complete: boolean;

  constructor(private readonly r: IndexReader, pre: { spans: SpanInfo[]; more: number }) {
    this.spans = pre.spans;
    this.complete = pre.more === 0;
  }

  async take(a: number, b: number, limit: number): Promise<{ spans: SpanInfo[]; more: number }> {
    if (!this.complete) return spansOverlapping(this.r, a, b, limit);
    const list = this.spans;
    while (this.k < list.length && list[this.k].offset + list[this.k].length <= a) this.k++;
    const out: SpanInfo[] = [];
    let more = 0;
    let j = this.k;
    for (; j < list.length && list[j].offset < b; j++) {
      if (list[j].offset + list[j].length <= a) continue;
      if (out.length < limit) out.push(list[j]);
      else more++;
    }
    return { spans: out, more };
  }
}

/**
 * Chips for the removed spans in raw `[a, b)` (outermost spans only; C0 inside a CSI is part of
 * it), at most MAX_CHIPS_PER_GAP, the last one carrying how many more there are. `keep` leaves
 * spans out (overwrite mode's trailing chips: none from before the line, no invalid UTF-8).
 */
async function addChips(feed: SpanFeed, pieces: TextPiece[], a: number, b: number, keep?: (s: SpanInfo) => boolean): Promise<void> {
  // With a filter, fetch more than will show, so that left-out spans do not crowd out chips.
  const { spans, more } = await feed.take(a, b, keep ? MAX_CHIPS_PER_GAP * 2 : MAX_CHIPS_PER_GAP);
  let coveredTo = -1;
  let shown = 0;
  let hidden = more;
  for (const s of spans) {
    if (s.offset + s.length <= coveredTo || (keep && !keep(s))) continue; // nested inside the previous chip, or left out
    coveredTo = s.offset + s.length;
    if (shown < MAX_CHIPS_PER_GAP) {
      pieces.push({ t: 'chip', span: s });
      shown++;
    } else {
      hidden++;
    }
  }
  if (hidden > 0 && shown > 0) {
    const lastChip = pieces[pieces.length - 1] as { t: 'chip'; span: SpanInfo };
    pieces[pieces.length - 1] = { ...lastChip, more: hidden };
  }
}

/** Overwrite mode's chips after a line's text: its own spans, without invalid UTF-8 (its U+FFFD is in the text). */
function trailingChip(a: number): (s: SpanInfo) => boolean {
  return (s) => s.offset >= a && s.cls !== SpanClass.InvalidUtf8;
}

/** Where raw offset `raw` shows in the text: its line and piece. */
export async function textPositionOf(r: IndexReader, raw: number): Promise<TextPosition | null> {
  if (raw < 0 || raw >= r.manifest.size || r.manifest.counts.lines === 0) return null;
  let line: number;
  let kept = false;
  if (r.manifest.monotonic) {
    let s = await lastSegAtOrBefore(r, raw, 1);
    // Several segments can come from one raw byte (its U+FFFD, then a space or line break made
    // there): the byte belongs to the first, as in getTextLines.
    while (s > 0) {
      const [prev] = await segmentsFrom(r, s - 1, 1);
      if (raw >= prev.rawStart && raw < prev.rawStart + prev.rawLength) s--;
      else break;
    }
    const seg = s >= 0 ? (await segmentsFrom(r, s, 1))[0] : null;
    if (seg && raw < seg.rawStart + seg.rawLength) {
      kept = seg.kind === 0;
      line = await lineOf(r, seg.kind === 0 ? seg.textStart + (raw - seg.rawStart) : seg.textStart);
    } else {
      const next = s + 1 < r.manifest.counts.segments ? (await segmentsFrom(r, s + 1, 1))[0] : null;
      line = next ? await lineOf(r, next.textStart) : r.manifest.counts.lines - 1;
    }
  } else {
    // Overwrite mode: within a line the text comes from its raw bytes in screen order, but lines
    // follow each other in raw order, so a binary search on raw offsets lands on the right line
    // or the one before it; the segments of the lines around it are then checked exactly.
    const s = await lastSegAtOrBefore(r, raw, 1);
    const guess = s >= 0 ? await lineOf(r, (await segmentsFrom(r, s, 1))[0].textStart) : 0;
    line = guess;
    const found = await overwriteLineOf(r, raw, guess);
    if (found) {
      line = found.line;
      kept = found.kept;
    }
  }
  const page = await getTextLines(r, line, 1);
  const pieces = page.lines[0]?.pieces ?? [];
  // A kept byte can also lie inside a removed span (LF executed inside an unfinished sequence):
  // its text piece wins over the chip.
  if (kept) {
    const p = pieces.findIndex((q) => q.t === 'text' && raw >= q.raw && raw < q.raw + q.rawLength);
    if (p >= 0) return { line, piece: p, kept: true };
  }
  let best = 0;
  for (let p = 0; p < pieces.length; p++) {
    const q = pieces[p];
    const start = q.t === 'chip' ? q.span.offset : q.t === 'secret' ? q.secret.offset : q.raw;
    const len = q.t === 'chip' ? q.span.length : q.t === 'secret' ? q.secret.length : q.rawLength;
    if (raw >= start && raw < start + len) return { line, piece: p, kept: kept && q.t === 'text' };
    if (start <= raw) best = p;
  }
  return { line, piece: best, kept: false };
}

/** Display lines on each side of the guess that {@link overwriteLineOf} checks. */
const OVERWRITE_LINE_REACH = 4;

/**
 * Overwrite mode: the display line near `guess` one of whose segments holds raw offset `raw`,
 * and whether that byte is kept text; null when none does (the byte was removed or overwritten).
 */
async function overwriteLineOf(r: IndexReader, raw: number, guess: number): Promise<{ line: number; kept: boolean } | null> {
  const from = Math.max(0, guess - OVERWRITE_LINE_REACH);
  const to = Math.min(r.manifest.counts.lines, guess + OVERWRITE_LINE_REACH + 1);
  const textFrom = await lineStart(r, from);
  const textTo = await lineStart(r, to);
  let k = Math.max(0, await lastSegAtOrBefore(r, textFrom, 0));
  while (k < r.manifest.counts.segments) {
    const batch = await segmentsFrom(r, k, 1024);
    for (const seg of batch) {
      if (seg.textStart >= textTo) return null;
      if (raw >= seg.rawStart && raw < seg.rawStart + seg.rawLength && seg.textEnd > textFrom) {
        return { line: await lineOf(r, seg.kind === 0 ? seg.textStart + (raw - seg.rawStart) : seg.textStart), kept: seg.kind === 0 };
      }
    }
    if (batch.length === 0) break;
    k += batch.length;
  }
  return null;
}

/**
 * The raw bytes a text range came from, `[lowest, highest)` over the map segments it covers: in
 * newline mode one stretch (removed spans inside it included); in overwrite mode, where a line's
 * text is taken from its raw bytes in screen order, the stretch that holds them all.
 */
export async function rawExtentOfText(r: IndexReader, t0: number, t1: number): Promise<[number, number]> {
  let lo = Infinity;
  let hi = -Infinity;
  let s = Math.max(0, await lastSegAtOrBefore(r, t0, 0));
  for (;;) {
    const segs = await segmentsFrom(r, s, 256);
    if (segs.length === 0) break;
    for (const seg of segs) {
      if (seg.textStart >= t1) return lo <= hi ? [lo, hi] : [0, 0];
      if (seg.textEnd <= t0) continue;
      const a = seg.kind === 0 ? seg.rawStart + Math.max(0, t0 - seg.textStart) : seg.rawStart;
      const b = seg.kind === 0 ? seg.rawStart + Math.min(seg.rawLength, t1 - seg.textStart) : seg.rawStart + seg.rawLength;
      lo = Math.min(lo, a);
      hi = Math.max(hi, b);
    }
    s += segs.length;
  }
  return lo <= hi ? [lo, hi] : [0, 0];
}

/** A record as the bridge shows it: rule, raw extent, text extent (no value). */
export async function secretInfo(r: IndexReader, s: SecretRecord): Promise<SecretInfo> {
  const [raw, rawEnd] = await rawExtentOfText(r, s.start, s.end);
  return { index: s.index, rule: s.rule, offset: raw, length: rawEnd - raw, textOffset: s.start, textLength: s.end - s.start };
}

/** Text offset -> raw offset (for search hits), with a forward-moving cursor over the map. */
export class MapCursor {
  private segs: Segment[] = [];
  private k = 0;
  private next = 0;

  constructor(private readonly r: IndexReader) {}

  async rawOf(t: number): Promise<number> {
    if (this.segs.length === 0 || t < this.segs[0].textStart) {
      this.next = Math.max(0, await lastSegAtOrBefore(this.r, t, 0));
      this.segs = await segmentsFrom(this.r, this.next, 1024);
      this.next += this.segs.length;
      this.k = 0;
    }
    for (;;) {
      while (this.k < this.segs.length && this.segs[this.k].textEnd <= t) this.k++;
      if (this.k < this.segs.length) break;
      if (this.next >= this.r.manifest.counts.segments) return -1;
      this.segs = await segmentsFrom(this.r, this.next, 1024);
      this.next += this.segs.length;
      this.k = 0;
    }
    const seg = this.segs[this.k];
    return seg.kind === 0 ? seg.rawStart + (t - seg.textStart) : seg.rawStart;
  }
}
