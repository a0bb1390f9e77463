// AssemblyScript. The annotation lines of the spans a row takes, as AnnotationWriter writes them
// (app/cli/inspect/annotate.ts), in order of their first offsets:
//
//   `          ^ 00000036 csi             437 B  SGR select graphic rendition [oversized]`
//   `          ^ 00001330 c0                1 B each  8x BEL bell  (every 2 B to 0000133e)`
//   `          ^ 00001330 c0                1 B each  3x BEL bell  (at 00001330 00001333 00001334)`
//
// a group (a span, or a run of equal adjacent spans) under the row where it starts; single spans
// alike in class, meaning, flags and length coalesce into one line. Everything but the offsets
// and the length repeats from line to line, so a line is composed (and, on a terminal, cut) once
// per kind and kept in a cache with the places of its numbers, then copied and the numbers written.
import {
  T_CLASS, T_FLAGS, T_HEAD, T_HEAD_LEN, T_LINE_CONT, T_LINE_CONT_LEN, T_MEANING, T_MEANING_TEXT, T_WORDS,
  W_AT, W_B_TO, W_EACH, W_EVERY,
} from './layout';
import { alloc } from './heap';
import { put, spaces, writeDecimal, writeField6, writeHex, writeHex8 } from './text';
import { textWidth, wrapLine } from './wrap';

const LF: u8 = 0x0a;
/** Lengths below this are written in the line's 6-column field. */
const LENGTH_FIELD_MAX: f64 = 1e6;
/** Offsets from here on have more than 8 digits: such lines are composed each time. */
const WIDE_OFFSET: f64 = 4294967296;

/** Kinds of line. */
const LINE_SINGLE: i32 = 0;
const LINE_EVERY: i32 = 1;
const LINE_AT: i32 = 2;

/** Bytes that stand for a number's digits in a cached line (no line holds them otherwise). */
const MARK_OFFSET: u8 = 1;
const MARK_LENGTH: u8 = 2;
const MARK_LAST: u8 = 3;
const MARK_AT: u8 = 4;

/** The line cache: direct-mapped slots of LC_BYTES (key, places of the numbers, text). */
const LC_SLOTS: i32 = 1024;
const LC_BYTES: usize = 1024;
/** Most offsets of an `at` line a slot keeps places for; most bytes of its text. */
const LC_AT: i32 = 48;
const LC_TEXT_AT: usize = 144;
const LC_TEXT: usize = LC_BYTES - LC_TEXT_AT;
const NONE: u16 = 0xffff;

// The span log and the buckets of a take (index.ts lays them out).
let logStart: usize = 0;
let logLen: usize = 0;
let logCount: usize = 0;
let logKind: usize = 0;
let bucketOf: usize = 0;
let bFirst: usize = 0;
let bSize: usize = 0;
let bPrev: usize = 0;
let bStride: usize = 0;
let bEven: usize = 0;
let bKey: usize = 0;
let bLen: usize = 0;
let bCap: i32 = 0;
let cache: usize = 0;
/** The cache slot of a group's line (a line of its own) by its kind, count and length digits: 1024 entries of 32 bytes (kind, digits, count, slot). */
let oneMemo: usize = 0;
/** A line composed before it is cut; a line kept in the cache, composed and cut; their size. */
let lineBuf: usize = 0;
let keepBuf: usize = 0;
let lineCap: usize = 0;
let FROM: f64 = 0;
let TO: f64 = Infinity;
/** The terminal's width, or 0 when lines are never cut. */
let COLUMNS: i32 = 0;

// The lines of a take still to write: groups [lineFrom, lineTo), their buckets, the next one.
let pending: bool = false;
let lineFrom: i32 = 0;
let lineTo: i32 = 0;
let buckets: i32 = 0;
let nextBucket: i32 = 0;
/** Bytes the next line may take, when {@link writeLines} stopped for room. */
let wanted: usize = 0;

// The shape of the last take of many groups whose lines were all copied from the cache in one
// go: per group its start (less the first's), length, count and kind, and the text of its lines
// with where each offset is in it (and the offset, less the first start). A take of the same
// shape (BEL, BS, BEL, … every row alike) has the same lines but for the offsets: copied, and
// the offsets written. Takes of fewer groups are cheap to write afresh and keep no shape.
const SHAPE_MIN: i32 = 4;
const SHAPE_MAX: i32 = 64;
const SHAPE_TEXT: usize = 8192;
const SHAPE_PATCHES: i32 = 256;
let shapeN: i32 = 0;
let shapeRel: usize = 0;
let shapeLen: usize = 0;
let shapeCount: usize = 0;
let shapeKind: usize = 0;
let shapeText: usize = 0;
let shapeTextLen: usize = 0;
let patchPos: usize = 0;
let patchRel: usize = 0;
/** The offsets of the take being written (kept as the shape's patches when its shape is kept). */
let recPos: usize = 0;
let recRel: usize = 0;
let patches: i32 = 0;
let shapePatches: i32 = 0;
/** The take being written: whether its shape may be kept, where its lines began, its first start. */
let recording: bool = false;
let recordFrom: usize = 0;
let recordBase: f64 = 0;

/** Lines show spans starting in `[from, to)`, cut to `columns` (0: never cut). */
export function setLineLayout(from: f64, to: f64, columns: i32): void {
  FROM = from;
  TO = to;
  COLUMNS = columns;
  setBucketCapacity(256);
  setLineCapacity(65536);
  shapeRel = alloc(<usize>SHAPE_MAX << 3);
  shapeLen = alloc(<usize>SHAPE_MAX << 3);
  shapeCount = alloc(<usize>SHAPE_MAX << 3);
  shapeKind = alloc(<usize>SHAPE_MAX << 2);
  shapeText = alloc(SHAPE_TEXT);
  patchPos = alloc(<usize>SHAPE_PATCHES << 2);
  patchRel = alloc(<usize>SHAPE_PATCHES << 3);
  recPos = alloc(<usize>SHAPE_PATCHES << 2);
  recRel = alloc(<usize>SHAPE_PATCHES << 3);
  cache = alloc(<usize>LC_SLOTS * LC_BYTES);
  // Both start zero (alloc), which no key matches: a line's key has a length key of -digits or
  // of a length past the field (never 0), a memo's digits are 1 or more.
  oneMemo = alloc(1024 << 5);
}

/** Where the span log's arrays are (after the log moved, too). */
export function setLineLog(start: usize, len: usize, count: usize, kind: usize): void {
  logStart = start;
  logLen = len;
  logCount = count;
  logKind = kind;
}

function setLineCapacity(n: usize): void {
  lineCap = n;
  lineBuf = alloc(n);
  keepBuf = alloc(n);
}

function setBucketCapacity(n: i32): void {
  const m = <usize>n;
  bucketOf = alloc(m << 2);
  bFirst = alloc(m << 2);
  bSize = alloc(m << 2);
  bPrev = alloc(m << 3);
  bStride = alloc(m << 3);
  bEven = alloc(m);
  bKey = alloc(m << 2);
  bLen = alloc(m << 3);
  bCap = n;
}

/** Whether lines of a take are still to be written. */
export function linesPending(): bool {
  return pending;
}

/** Bytes of output the next line needs, when {@link writeLines} returned with lines pending. */
export function roomWanted(): usize {
  return wanted;
}

/**
 * Sorts the groups `[from, to)` of a take (log entries, in start order) that start in the range
 * into buckets, one per line, in order of first appearance; {@link writeLines} writes them. A
 * bucket is one run, or the single spans alike in class, flags, meaning and length.
 */
export function startLines(from: i32, to: i32): void {
  while (from < to && load<f64>(logStart + (<usize>from << 3)) < FROM) from++;
  while (to > from && load<f64>(logStart + (<usize>(to - 1) << 3)) >= TO) to--;
  if (to <= from) return;
  recording = to - from >= SHAPE_MIN && to - from <= SHAPE_MAX;
  recordFrom = 0;
  recordBase = load<f64>(logStart + (<usize>from << 3));
  patches = 0;
  if (to - from > bCap) setBucketCapacity(max(to - from, bCap * 2));
  lineFrom = from;
  lineTo = to;
  nextBucket = 0;
  pending = true;
  if (to - from == 1) {
    // One group, one line (the commonest take).
    store<i32>(bFirst, from);
    store<i32>(bSize, 1);
    store<f64>(bPrev, load<f64>(logStart + (<usize>from << 3)));
    store<i32>(bucketOf, 0);
    buckets = 1;
    return;
  }
  let nb = 0;
  for (let k = from; k < to; k++) {
    const s = load<f64>(logStart + (<usize>k << 3));
    const len = load<f64>(logLen + (<usize>k << 3));
    // A run (count > 1) never coalesces: it gets a key no single span has.
    const key = load<f64>(logCount + (<usize>k << 3)) == 1 ? load<i32>(logKind + (<usize>k << 2)) : -1 - k;
    let b = 0;
    while (b < nb && !(load<i32>(bKey + (<usize>b << 2)) == key && load<f64>(bLen + (<usize>b << 3)) == len)) b++;
    if (b == nb) {
      nb++;
      store<i32>(bFirst + (<usize>b << 2), k);
      store<i32>(bSize + (<usize>b << 2), 1);
      store<f64>(bStride + (<usize>b << 3), 0);
      store<u8>(bEven + <usize>b, 1);
      store<i32>(bKey + (<usize>b << 2), key);
      store<f64>(bLen + (<usize>b << 3), len);
    } else {
      const gap = s - load<f64>(bPrev + (<usize>b << 3));
      const size = load<i32>(bSize + (<usize>b << 2));
      if (size == 1) store<f64>(bStride + (<usize>b << 3), gap);
      else if (gap != load<f64>(bStride + (<usize>b << 3))) store<u8>(bEven + <usize>b, 0);
      store<i32>(bSize + (<usize>b << 2), size + 1);
    }
    store<f64>(bPrev + (<usize>b << 3), s);
    store<i32>(bucketOf + (<usize>(k - from) << 2), b);
  }
  buckets = nb;
}

/**
 * Writes the pending lines at `p`, while each fits before `end`; returns the new end. Lines are
 * still pending when one did not fit ({@link roomWanted} says how much it needs).
 */
export function writeLines(p: usize, end: usize): usize {
  // The lines of a take kept as a shape are written in one call.
  if (recording) {
    if (recordFrom == 0) recordFrom = p;
    else recording = false;
  }
  while (nextBucket < buckets) {
    const b = nextBucket;
    const k = load<i32>(bFirst + (<usize>b << 2));
    const size = <f64>load<i32>(bSize + (<usize>b << 2));
    const kind = size == 1 ? LINE_SINGLE : size > 2 && load<u8>(bEven + <usize>b) == 1 ? LINE_EVERY : LINE_AT;
    const meaning = <usize>(load<i32>(logKind + (<usize>k << 2)) >>> 10);
    // Head, numbers and words, the meaning and flags, an offset per span of an `at` line; cut,
    // each piece may begin a further visual row.
    let bound: usize = <usize>load<i32>(T_MEANING + (meaning << 3) + 4) + 512 + (kind == LINE_AT ? <usize>size * 17 : 0);
    if (COLUMNS != 0) bound = bound * 14 + 64;
    if (p + bound > end) {
      wanted = bound;
      recording = false;
      return p;
    }
    if (bound > lineCap) setLineCapacity(bound);
    const cached = load<f64>(bPrev + (<usize>b << 3)) < WIDE_OFFSET ? cachedLine(b, k, kind, size) : 0;
    if (cached != 0) {
      p = copyLine(p, cached, b, k, kind);
    } else {
      p = freshLine(p, b, k, kind, size, false);
      recording = false;
    }
    nextBucket++;
  }
  pending = false;
  if (recording) keepShape(recordFrom, p);
  return p;
}

/**
 * The line of a take of one group (the commonest take: a row with one SGR, or a run of them) at
 * `p`, when its line is in the cache (found by the memo of its kind, count and length digits) and
 * fits before `end`: copied, its offset and length written. Returns the end, or 0 (then
 * startLines and writeLines write the take's lines).
 */
export function oneLine(from: i32, to: i32, p: usize, end: usize): usize {
  if (to - from != 1) return 0;
  const slot = memoSlot(from);
  if (slot == 0 || p + <usize>load<u16>(slot, 32) + 16 > end) return 0;
  return copyMemo(p, from, slot);
}

/**
 * The lines of a take of two or three groups each of which has a line of its own (no two single
 * spans alike in kind and length, which would share one), in order (the next commonest takes: a
 * row with two or three SGR), when each line is in the cache as for {@link oneLine}: copied.
 * Returns the end, or 0.
 */
export function fewLines(from: i32, to: i32, p: usize, end: usize): usize {
  const n = to - from;
  if (n < 2 || n > 3) return 0;
  for (let a = from; a < to - 1; a++) {
    if (load<f64>(logCount + (<usize>a << 3)) != 1) continue;
    const kind = load<i32>(logKind + (<usize>a << 2));
    const len = load<f64>(logLen + (<usize>a << 3));
    for (let b = a + 1; b < to; b++) {
      if (load<f64>(logCount + (<usize>b << 3)) == 1 && load<i32>(logKind + (<usize>b << 2)) == kind && load<f64>(logLen + (<usize>b << 3)) == len) return 0;
    }
  }
  const s0 = memoSlot(from);
  if (s0 == 0) return 0;
  const s1 = memoSlot(from + 1);
  if (s1 == 0) return 0;
  const s2 = n == 3 ? memoSlot(from + 2) : 0;
  if (n == 3 && s2 == 0) return 0;
  const total = <usize>load<u16>(s0, 32) + <usize>load<u16>(s1, 32) + (s2 != 0 ? <usize>load<u16>(s2, 32) : 0);
  if (p + total + 16 > end) return 0;
  p = copyMemo(p, from, s0);
  p = copyMemo(p, from + 1, s1);
  return s2 != 0 ? copyMemo(p, from + 2, s2) : p;
}

/**
 * The memo entry of the line of a group (a single span, or a run of `count`) of kind `packed`
 * whose length has `digits` digits: a kind's groups differ in both (SGR of 4 B and of 11 B, one
 * or a run of two), and each has an entry of its own.
 */
function memoOf(packed: i32, digits: i32, count: f64): usize {
  const h = (<u32>packed * 0x9e3779b1) ^ (<u32>digits * 0x85ebca6b) ^ (<u32>(<i64>count) * 0xc2b2ae35);
  return oneMemo + (<usize>(h >>> 22) << 5);
}

/**
 * The cache slot of log group `k`'s line as a line of its own, by the memo of its kind, count
 * and length digits; 0 when it is not there (or the group starts outside the range or past 2^32,
 * or its length does not fit the line's field).
 */
function memoSlot(k: i32): usize {
  const ki = <usize>k;
  const start = load<f64>(logStart + (ki << 3));
  if (start < FROM || start >= TO || start >= WIDE_OFFSET) return 0;
  const len = load<f64>(logLen + (ki << 3));
  if (len >= LENGTH_FIELD_MAX) return 0;
  const count = load<f64>(logCount + (ki << 3));
  const packed = load<i32>(logKind + (ki << 2));
  const digits = decimalDigits(len);
  const slot = memoHit(memoOf(packed, digits, count), packed, digits, count);
  return slot == 0 || load<u16>(slot, 32) == 0 ? 0 : slot;
}

/**
 * The cache slot memo entry `memo` names for the line of a group of kind `packed`, `count` and
 * length digits `digits`, when the entry is that group's and the slot still holds its line (it
 * may have taken another since); else 0.
 */
function memoHit(memo: usize, packed: i32, digits: i32, count: f64): usize {
  if (load<i32>(memo) != packed || load<i32>(memo, 4) != digits || load<f64>(memo, 8) != count) return 0;
  const slot = <usize>load<u32>(memo, 16);
  if (slot == 0 || load<i32>(slot) != LINE_SINGLE || load<i32>(slot, 4) != packed || load<f64>(slot, 8) != count || load<f64>(slot, 24) != -<f64>digits) return 0;
  return slot;
}

/** Group `k`'s line from its cache slot at `p` (16 bytes past the end may be written over): its offset and length written in. Returns the end. */
function copyMemo(p: usize, k: i32, slot: usize): usize {
  const ki = <usize>k;
  const length = <usize>load<u16>(slot, 32);
  for (let j: usize = 0; j < length; j += 16) v128.store(p + j, v128.load(slot + LC_TEXT_AT + j));
  writeHex8(p + <usize>load<u16>(slot, 34), load<f64>(logStart + (ki << 3)));
  // (The slot's length key is minus the digits of the lengths it is for.)
  const lenPos = load<u16>(slot, 36);
  if (lenPos != NONE) writeDigits(p + <usize>lenPos, load<f64>(logLen + (ki << 3)), <i32>-load<f64>(slot, 24));
  return p + length;
}

/** Keeps the shape of the take whose lines are `[from, to)` of the output (see shapeN). */
function keepShape(from: usize, to: usize): void {
  recording = false;
  if (to - from > SHAPE_TEXT) {
    shapeN = 0;
    return;
  }
  for (let k = lineFrom; k < lineTo; k++) {
    const g = <usize>(k - lineFrom);
    store<f64>(shapeRel + (g << 3), load<f64>(logStart + (<usize>k << 3)) - recordBase);
    store<f64>(shapeLen + (g << 3), load<f64>(logLen + (<usize>k << 3)));
    store<f64>(shapeCount + (g << 3), load<f64>(logCount + (<usize>k << 3)));
    store<i32>(shapeKind + (g << 2), load<i32>(logKind + (<usize>k << 2)));
  }
  memory.copy(shapeText, from, to - from);
  shapeTextLen = to - from;
  memory.copy(patchPos, recPos, <usize>patches << 2);
  memory.copy(patchRel, recRel, <usize>patches << 3);
  shapePatches = patches;
  shapeN = lineTo - lineFrom;
}

/**
 * The lines of the take `[from, to)` (log groups) at `p` when it has the shape kept (see
 * shapeN) and they fit before `end`: the kept text copied, its offsets written. Returns the end,
 * or 0 when it has another shape (then {@link startLines} and {@link writeLines} write them).
 */
export function shapeLines(from: i32, to: i32, p: usize, end: usize): usize {
  if (to - from < shapeN || shapeN == 0) return 0;
  while (from < to && load<f64>(logStart + (<usize>from << 3)) < FROM) from++;
  while (to > from && load<f64>(logStart + (<usize>(to - 1) << 3)) >= TO) to--;
  if (to - from != shapeN || p + shapeTextLen > end) return 0;
  const base = load<f64>(logStart + (<usize>from << 3));
  for (let k = from; k < to; k++) {
    const g = <usize>(k - from);
    if (load<i32>(logKind + (<usize>k << 2)) != load<i32>(shapeKind + (g << 2)) ||
        load<f64>(logStart + (<usize>k << 3)) - base != load<f64>(shapeRel + (g << 3)) ||
        load<f64>(logLen + (<usize>k << 3)) != load<f64>(shapeLen + (g << 3)) ||
        load<f64>(logCount + (<usize>k << 3)) != load<f64>(shapeCount + (g << 3))) return 0;
  }
  // Every offset of the lines is a group's start (or the last of a bucket's): below 2^32 when the last start is.
  if (load<f64>(logStart + (<usize>(to - 1) << 3)) >= WIDE_OFFSET) return 0;
  memory.copy(p, shapeText, shapeTextLen);
  for (let j = 0; j < shapePatches; j++) {
    writeHex8(p + <usize>load<u32>(patchPos + (<usize>j << 2)), load<f64>(patchRel + (<usize>j << 3)) + base);
  }
  return p + shapeTextLen;
}

/** Composes the line of bucket `b` at `p` (cut when the terminal is narrower); returns the end. */
function freshLine(p: usize, b: i32, k: i32, kind: i32, size: f64, template: bool): usize {
  if (COLUMNS == 0) return composeLine(p, b, k, kind, size, template);
  const last = composeLine(lineBuf, b, k, kind, size, template) - 1;
  if (textWidth(lineBuf, last) <= COLUMNS) return put(p, lineBuf, last + 1 - lineBuf);
  return wrapLine(lineBuf, last, COLUMNS, T_LINE_CONT, <usize>load<u8>(T_LINE_CONT_LEN), 12, p);
}

/**
 * The slot of the cache that holds bucket `b`'s line (its first group `k`), filled now if it did
 * not; 0 when the line cannot be kept (too long, or a number cut across visual rows).
 */
function cachedLine(b: i32, k: i32, kind: i32, size: f64): usize {
  const ki = <usize>k;
  const packed = load<i32>(logKind + (ki << 2));
  // The line of one group (a span or a run: the commonest by far): found by its kind, count and
  // length's digit count, in a memo of the slot its line has, before the general key.
  let memo: usize = 0;
  if (kind == LINE_SINGLE) {
    const len = load<f64>(logLen + (ki << 3));
    const count = load<f64>(logCount + (ki << 3));
    const digits = len < LENGTH_FIELD_MAX ? decimalDigits(len) : 0;
    memo = memoOf(packed, digits, count);
    const hit = digits != 0 ? memoHit(memo, packed, digits, count) : 0;
    if (hit != 0) return load<u16>(hit, 32) == 0 ? 0 : hit;
    store<i32>(memo, packed);
    store<i32>(memo, digits, 4);
    store<f64>(memo, count, 8);
    store<u32>(memo, 0, 16);
  }
  const slot = cachedSlot(b, k, kind, size, packed);
  if (memo != 0) store<u32>(memo, <u32>slot, 16);
  return load<u16>(slot, 32) == 0 ? 0 : slot;
}

/** The cache slot of bucket `b`'s line (its text length 0 when it cannot be kept), filled now if it did not hold it. */
function cachedSlot(b: i32, k: i32, kind: i32, size: f64, packed: i32): usize {
  const ki = <usize>k;
  const n = kind == LINE_SINGLE ? load<f64>(logCount + (ki << 3)) : size;
  const stride = kind == LINE_EVERY ? load<f64>(bStride + (<usize>b << 3)) : 0;
  const len = load<f64>(logLen + (ki << 3));
  const lenKey = len < LENGTH_FIELD_MAX ? -<f64>decimalDigits(len) : len;
  let h = (<u32>(kind + 1) * 0x9e3779b1) ^ (<u32>packed * 0x85ebca6b) ^ (<u32>(<i64>n) * 0xc2b2ae35) ^ (<u32>(<i64>stride) * 0x27d4eb2f) ^ (<u32>(<i64>lenKey) * 0x165667b1);
  h ^= h >>> 15;
  const slot = cache + <usize>((h * 0x2c1b3c6d) >>> 22) * LC_BYTES;
  if (load<i32>(slot) == kind && load<i32>(slot, 4) == packed && load<f64>(slot, 8) == n && load<f64>(slot, 16) == stride && load<f64>(slot, 24) == lenKey) return slot;
  store<i32>(slot, kind);
  store<i32>(slot, packed, 4);
  store<f64>(slot, n, 8);
  store<f64>(slot, stride, 16);
  store<f64>(slot, lenKey, 24);
  store<u16>(slot, 0, 32);
  const text = slot + LC_TEXT_AT;
  if (kind == LINE_AT && size > <f64>LC_AT) return slot;
  // The line with markers for its numbers, cut as any line of these digit counts is cut.
  const length = freshLine(keepBuf, b, k, kind, size, true) - keepBuf;
  if (length > LC_TEXT) return slot;
  memory.copy(text, keepBuf, length);
  let offsetPos = NONE;
  let lenPos = NONE;
  let lastPos = NONE;
  let ats = 0;
  let j: usize = 0;
  while (j < length) {
    const m = load<u8>(text + j);
    if (m < MARK_OFFSET || m > MARK_AT) {
      j++;
      continue;
    }
    // A number's markers, which must be contiguous (a cut through a number: not kept).
    let e = j;
    while (e < length && load<u8>(text + e) == m) e++;
    const run = e - j;
    if (m == MARK_LENGTH) {
      if (lenPos != NONE || run != <usize>(-lenKey)) return slot;
      lenPos = <u16>j;
    } else {
      if (run % 8 != 0) return slot;
      for (let r: usize = 0; r < run; r += 8) {
        const at = <u16>(j + r);
        if (m == MARK_OFFSET) {
          if (offsetPos != NONE) return slot;
          offsetPos = at;
        } else if (m == MARK_LAST) {
          if (lastPos != NONE) return slot;
          lastPos = at;
        } else {
          if (ats == LC_AT) return slot;
          store<u16>(slot + 44 + (<usize>ats << 1), at);
          ats++;
        }
      }
    }
    j = e;
  }
  if (offsetPos == NONE || (kind == LINE_EVERY && lastPos == NONE) || (kind == LINE_AT && <f64>ats != size)) return slot;
  store<u16>(slot, offsetPos, 34);
  store<u16>(slot, lenPos, 36);
  store<u16>(slot, lastPos, 40);
  store<u16>(slot, <u16>ats, 42);
  store<u16>(slot, <u16>length, 32);
  return slot;
}

/** Bucket `b`'s line from its cached slot: the text copied, its numbers written. */
function copyLine(p: usize, slot: usize, b: i32, k: i32, kind: i32): usize {
  const length = <usize>load<u16>(slot, 32);
  // 16 bytes at a time (a line is short; what is written past it is overwritten after).
  for (let j: usize = 0; j < length; j += 16) v128.store(p + j, v128.load(slot + LC_TEXT_AT + j));
  const ki = <usize>k;
  offsetAt(p + <usize>load<u16>(slot, 34), load<f64>(logStart + (ki << 3)));
  const lenPos = load<u16>(slot, 36);
  if (lenPos != NONE) {
    const len = load<f64>(logLen + (ki << 3));
    writeDigits(p + <usize>lenPos, len, decimalDigits(len));
  }
  if (kind == LINE_EVERY) {
    offsetAt(p + <usize>load<u16>(slot, 40), load<f64>(bPrev + (<usize>b << 3)));
  } else if (kind == LINE_AT) {
    let t: usize = 0;
    for (let j = lineFrom; j < lineTo; j++) {
      if (load<i32>(bucketOf + (<usize>(j - lineFrom) << 2)) != b) continue;
      offsetAt(p + <usize>load<u16>(slot + 44 + (t << 1)), load<f64>(logStart + (<usize>j << 3)));
      t++;
    }
  }
  return p + length;
}

/** An offset of a line copied from the cache: its 8 digits at `p`, noted for the take's shape. */
function offsetAt(p: usize, v: f64): void {
  writeHex8(p, v);
  if (recording) {
    if (patches == SHAPE_PATCHES) {
      recording = false;
      return;
    }
    store<u32>(recPos + (<usize>patches << 2), <u32>(p - recordFrom));
    store<f64>(recRel + (<usize>patches << 3), v - recordBase);
    patches++;
  }
}

/** Decimal digits of `v` (an integer). */
function decimalDigits(v: f64): i32 {
  if (v < 1e4) return v < 10 ? 1 : v < 100 ? 2 : v < 1e3 ? 3 : 4;
  let n = 5;
  for (let x = v / 1e5; x >= 1; x /= 10) n++;
  return n;
}

/** The `digits` decimal digits of `v` (below 10^6) at `p`. */
function writeDigits(p: usize, v: f64, digits: i32): void {
  let x = <u32>v;
  for (let q = p + <usize>digits; q > p; ) {
    q--;
    const d = x / 10;
    store<u8>(q, <u8>(0x30 + (x - d * 10)));
    x = d;
  }
}

/** `n` copies of marker `m` at `p`; returns the end. */
function marks(p: usize, m: u8, n: i32): usize {
  for (let k = 0; k < n; k++) store<u8>(p + <usize>k, m);
  return p + <usize>n;
}

/** An offset at `p`: its digits, or markers for them. */
function offsetText(p: usize, v: f64, template: bool, m: u8): usize {
  return template ? marks(p, m, 8) : writeHex(p, v, 8);
}

/** Writes fixed word `w` of T_WORDS at `p`; returns the end. */
function word(p: usize, w: usize): usize {
  const at = T_WORDS + (w << 4);
  return put(p, at, <usize>load<u8>(at + 15));
}

/** The line of bucket `b` (first group `k`) at `p`, with its LF; `template`: markers for its offsets and length field. Returns the end. */
function composeLine(p: usize, b: i32, k: i32, kind: i32, size: f64, template: bool): usize {
  const ki = <usize>k;
  const start = load<f64>(logStart + (ki << 3));
  const len = load<f64>(logLen + (ki << 3));
  const packed = load<i32>(logKind + (ki << 2));
  const cls = <usize>(packed & 15);
  const flags = <usize>((packed >>> 4) & 63);
  const meaning = <usize>(packed >>> 10);
  p = put(p, T_HEAD, <usize>load<u8>(T_HEAD_LEN));
  p = offsetText(p, start, template, MARK_OFFSET);
  p = put(p, T_CLASS + (cls << 4), <usize>load<u8>(T_CLASS + (cls << 4) + 15));
  if (len >= LENGTH_FIELD_MAX) p = writeDecimal(p, len);
  else if (template) p = marks(spaces(p, 6 - decimalDigits(len)), MARK_LENGTH, decimalDigits(len));
  else p = writeField6(p, len);
  store<u16>(p, 0x4220); // ` B`
  p += 2;
  const n = kind == LINE_SINGLE ? load<f64>(logCount + (ki << 3)) : size;
  p = kind == LINE_SINGLE ? spaces(p, 2) : word(p, W_EACH);
  if (n > 1 || kind != LINE_SINGLE) {
    p = writeDecimal(p, n);
    store<u16>(p, 0x2078); // `x `
    p += 2;
  }
  p = put(p, T_MEANING_TEXT + <usize>load<i32>(T_MEANING + (meaning << 3)), <usize>load<i32>(T_MEANING + (meaning << 3) + 4));
  const flag = T_FLAGS + (flags << 8);
  p = put(p, flag, <usize>load<u16>(flag + 254));
  if (kind == LINE_EVERY) {
    p = word(p, W_EVERY);
    p = writeDecimal(p, load<f64>(bStride + (<usize>b << 3)));
    p = word(p, W_B_TO);
    p = offsetText(p, load<f64>(bPrev + (<usize>b << 3)), template, MARK_LAST);
    store<u8>(p, 0x29);
    p++;
  } else if (kind == LINE_AT) {
    p = word(p, W_AT);
    for (let j = lineFrom; j < lineTo; j++) {
      if (load<i32>(bucketOf + (<usize>(j - lineFrom) << 2)) != b) continue;
      store<u8>(p, 0x20);
      p = offsetText(p + 1, load<f64>(logStart + (<usize>j << 3)), template, MARK_AT);
    }
    store<u8>(p, 0x29);
    p++;
  }
  store<u8>(p, LF);
  return p + 1;
}
