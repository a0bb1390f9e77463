// AssemblyScript (compiled by scripts/build-wasm.mjs into ../engine.generated.ts; not TypeScript).
//
// The dump engine of `airlock inspect`: hex rows and their annotation lines written as bytes,
// many rows per call. JavaScript (../engine.ts) runs the sanitizer, appends the spans it reports
// to a log in this memory, keeps the parsed bytes here (HOLD), and calls `advance`; the engine
// shows the rows that are settled, takes the spans that start in each row from the log, and
// writes the row (coloured by span and cell kind, cut to the terminal's width) and its spans'
// lines into the output buffer, which JavaScript writes out.
//
// What the text is, is defined in JavaScript: formatHexRows/formatRow (rows), AnnotationWriter
// (lines), wrapLine (cuts); tests hold the engine to them byte for byte. Notation and colours come
// from tables JavaScript fills (layout.ts); a code point's lead cell is asked for once (NEED_CP)
// and kept in T_CP, or, for a character of the BMP shown as itself, as a bit (rows.ts shownBits).
import { C_FED, C_FLUSH_AT, C_HOLD_AT, C_HOLD_LEN, C_OUT_P, C_POS, CTRL, T_BAR, T_HEX, T_HEX2, T_SPACES, cpSlot } from './layout';
import { alloc } from './heap';
import { fewLines, linesPending, oneLine, roomWanted, setLineLayout, setLineLog, shapeLines, startLines, writeLines } from './lines';
import { STRETCH_ROW_BYTES, asciiStretch, beginUtf8, forgetRow, keepColours, resolveRow, rowMax, setRowLayout, stretchRows, writeRow } from './rows';
export { rowsByLanes, shownBitsAddress } from './rows';

export {
  CTRL, C_ARG, C_FED, C_FLUSH_AT, C_HOLD_AT, C_HOLD_LEN, C_OUT_P, C_POS,
  T_ASCII_COLOUR, T_C1, T_C1_LEN, T_CARET, T_CARET_LEN, T_CLASS, T_CONT, T_CP, T_FLAGS, T_HEAD, T_HEAD_LEN,
  T_HEX, T_INVALID, T_KIND_COLOUR, T_LINE_CONT, T_LINE_CONT_LEN, T_MEANING, T_MEANING_TEXT, T_PARTIAL,
  T_ROW_CONT, T_ROW_CONT_LEN, T_SGR, T_SGR_LEN, T_SPAN_COLOUR, T_WORDS, CP_SLOTS, MEANINGS, MEANING_TEXT_BYTES,
} from './layout';

/** What {@link advance} returns. */
export const DONE: i32 = 0;
/** The output buffer is full (C_OUT_P): write it out, set C_OUT_P to 0 and call again. */
export const FLUSH: i32 = 1;
/** The lead cell of code point C_ARG is not in T_CP: put it there and call again. */
export const NEED_CP: i32 = 2;

let W: i32 = 16;
let COLOUR: bool = false;
let FROM: f64 = 0;
let TO: f64 = Infinity;
/** The stream offset of the first byte fed (tests put streams past 4 GiB); the sanitizer's offsets are from it. */
let BASE: f64 = 0;
/** The most bytes one row can take in the output. */
let ROW_MAX: usize = 0;

// ---- regions ----
let hold: usize = 0;
let holdCap: usize = 0;
let out: usize = 0;
let outCap: usize = 0;
/**
 * The span log: groups in start order (a span, or a run of equal adjacent spans), from `head` on
 * not taken yet; `logN` of them. Filled from the raw log JavaScript's sanitizer writes (see
 * {@link ingest}).
 */
let logStart: usize = 0;
let logLen: usize = 0;
let logCount: usize = 0;
let logKind: usize = 0;
let logCap: i32 = 0;
/** Spans as the sanitizer recorded them (shared/sanitize/span-log.ts): start, length, kind. */
let rawStart: usize = 0;
let rawLen: usize = 0;
let rawKind: usize = 0;
let rawCap: i32 = 0;
/** The group the last span went to (a next adjacent equal span may extend it), its end and kind. */
let latest: i32 = -1;
let latestEnd: f64 = -1;
let latestKind: i32 = -1;
/** The start of the last group in the log. */
let lastStart: f64 = -Infinity;

// ---- state ----
/** Stream offset up to which rows are shown. */
let pos: f64 = 0;
let started: bool = false;
let holdAt: f64 = 0;
let holdEnd: usize = 0;
let fed: f64 = 0;
/** The first log entry not taken, and the entries in the log. */
let head: i32 = 0;
let logN: i32 = 0;
let outP: usize = 0;
let flushAt: usize = 0;
let streamEnds: bool = false;
/** The row a stretch of rows stopped before: it is not one ({@link asciiStretch}). */
let noStretchAt: f64 = -1;

/**
 * Lays out the regions for rows of `width` bytes with offsets of at least `digits` digits,
 * coloured or not, cut to `columns` (0: never cut), showing `[from, to)`. JavaScript fills the
 * tables first.
 */
export function configure(width: i32, digits: i32, colour: bool, columns: i32, from: f64, to: f64, holdBytes: i32, outBytes: i32, rawEntries: i32, base: f64): void {
  for (let b: usize = 0; b < 256; b++) {
    store<u16>(T_HEX2 + (b << 1), <u16>load<u8>(T_HEX + (b >> 4)) | (<u16>load<u8>(T_HEX + (b & 15)) << 8));
  }
  store<u8>(T_BAR, 0x7c);
  memory.fill(T_SPACES, 0x20, 16);
  W = width;
  COLOUR = colour;
  FROM = from;
  TO = to;
  BASE = base;
  pos = base;
  setRowLayout(width, digits, colour, columns);
  ROW_MAX = rowMax();
  setLineLayout(from, to, columns);
  holdCap = <usize>holdBytes;
  hold = alloc(holdCap);
  outCap = <usize>outBytes;
  out = alloc(outCap);
  setLogCapacity(1 << 16, 0);
  rawCap = rawEntries;
  rawStart = alloc(<usize>rawEntries << 3);
  rawLen = alloc(<usize>rawEntries << 3);
  rawKind = alloc(<usize>rawEntries << 2);
}

export function holdAddress(): usize { return hold; }
export function holdCapacity(): usize { return holdCap; }
export function outAddress(): usize { return out; }
export function outCapacity(): usize { return outCap; }
export function rawStartAddress(): usize { return rawStart; }
export function rawLenAddress(): usize { return rawLen; }
export function rawKindAddress(): usize { return rawKind; }
export function rawCapacity(): i32 { return rawCap; }

/** The slot of code point `cp`'s lead cell in T_CP. */
export function cpSlotOf(cp: i32): usize { return cpSlot(cp); }

/** Moves the held bytes to a region of `bytes` (JavaScript copies them). */
export function setHoldCapacity(bytes: i32): void {
  holdCap = <usize>bytes;
  hold = alloc(holdCap);
}

/**
 * Takes the `n` spans of the raw log into the span log: in start order (a span that completed
 * after one that starts later is put in its place, not before a group taken), a span extending
 * the group before it into a run when it starts where that one ends, is alike (class, flags,
 * meaning) and was not taken yet; spans outside the range shown are dropped.
 */
export function ingest(n: i32): void {
  // The log's state in locals for the loop, put back before a call that changes it and at the end.
  let count = logN;
  let lt = latest;
  let le = latestEnd;
  let lk = latestKind;
  let last = lastStart;
  for (let r = 0; r < n; r++) {
    const s = load<f64>(rawStart + (<usize>r << 3)) + BASE;
    const l = load<f64>(rawLen + (<usize>r << 3));
    const kind = load<i32>(rawKind + (<usize>r << 2));
    if (s >= TO || s + l <= FROM) continue;
    if (le == s && lk == kind && lt >= head) {
      const at = <usize>lt << 3;
      store<f64>(logLen + at, load<f64>(logLen + at) + l);
      store<f64>(logCount + at, load<f64>(logCount + at) + 1);
      le = s + l;
      continue;
    }
    if (count == logCap) {
      logN = count;
      latest = lt;
      latestEnd = le;
      makeRoom();
      count = logN;
      lt = latest;
      le = latestEnd;
    }
    let k = count;
    if (s < last) {
      while (k > head && load<f64>(logStart + (<usize>(k - 1) << 3)) > s) k--;
      if (k < count) {
        const by = <usize>(count - k);
        memory.copy(logStart + (<usize>(k + 1) << 3), logStart + (<usize>k << 3), by << 3);
        memory.copy(logLen + (<usize>(k + 1) << 3), logLen + (<usize>k << 3), by << 3);
        memory.copy(logCount + (<usize>(k + 1) << 3), logCount + (<usize>k << 3), by << 3);
        memory.copy(logKind + (<usize>(k + 1) << 2), logKind + (<usize>k << 2), by << 2);
      }
    } else {
      last = s;
    }
    store<f64>(logStart + (<usize>k << 3), s);
    store<f64>(logLen + (<usize>k << 3), l);
    store<f64>(logCount + (<usize>k << 3), 1);
    store<i32>(logKind + (<usize>k << 2), kind);
    count++;
    lt = k;
    le = s + l;
    lk = kind;
  }
  logN = count;
  latest = lt;
  latestEnd = le;
  latestKind = lk;
  lastStart = last;
}

/** Frees the groups taken, or moves the log to larger arrays when more than a quarter is live. */
function makeRoom(): void {
  const live = logN - head;
  if (head > 0 && live * 4 <= logCap) {
    const by = <usize>head;
    memory.copy(logStart, logStart + (by << 3), <usize>live << 3);
    memory.copy(logLen, logLen + (by << 3), <usize>live << 3);
    memory.copy(logCount, logCount + (by << 3), <usize>live << 3);
    memory.copy(logKind, logKind + (by << 2), <usize>live << 2);
    latest = latest >= head ? latest - head : -1;
    if (latest < 0) latestEnd = -1;
    logN = live;
    head = 0;
    return;
  }
  setLogCapacity(logCap * 2, logN);
}

/** Moves the span log to arrays of `entries`, keeping its first `keep` entries. */
function setLogCapacity(entries: i32, keep: i32): void {
  const n = <usize>entries;
  const s = alloc(n << 3);
  const l = alloc(n << 3);
  const c = alloc(n << 3);
  const k = alloc(n << 2);
  if (keep > 0) {
    memory.copy(s, logStart, <usize>keep << 3);
    memory.copy(l, logLen, <usize>keep << 3);
    memory.copy(c, logCount, <usize>keep << 3);
    memory.copy(k, logKind, <usize>keep << 2);
  }
  logStart = s;
  logLen = l;
  logCount = c;
  logKind = k;
  logCap = entries;
  setLineLog(s, l, c, k);
}

function ctrl(k: i32): f64 {
  return load<f64>(CTRL + (<usize>k << 3));
}
function setCtrl(k: i32, v: f64): void {
  store<f64>(CTRL + (<usize>k << 3), v);
}

/**
 * Shows the rows that are settled, those whose end is at most `limit` (the parser's position
 * less the lag; Infinity at the end of input, `final`), with the lines of the spans taken for
 * them; then, past the range or at the end, takes the spans left. Returns DONE, or FLUSH / NEED_CP
 * (do as they say, then call again with the same arguments).
 */
export function advance(limit: f64, final: bool): i32 {
  holdAt = ctrl(C_HOLD_AT);
  holdEnd = hold + <usize>ctrl(C_HOLD_LEN);
  fed = ctrl(C_FED);
  const p = out + <usize>ctrl(C_OUT_P);
  // Written out since the last call: text written before is gone.
  if (p < outP) forgetRow();
  outP = p;
  flushAt = out + <usize>ctrl(C_FLUSH_AT);
  streamEnds = final;
  const status = run(limit, final);
  setCtrl(C_OUT_P, <f64>(outP - out));
  setCtrl(C_POS, pos);
  return status;
}

function run(limit: f64, final: bool): i32 {
  if (!lines()) return FLUSH;
  if (pos < FROM) {
    // Before the range: nothing is shown, spans are only taken (to colour rows they reach).
    const to = min(FROM, fed);
    if (to > pos) {
      pos = to;
      takeOutside(to, to);
      if (!lines()) return FLUSH;
    }
    if (pos < FROM) return DONE;
  }
  while (pos < TO) {
    const at = pos;
    let rowEnd = min(at + <f64>W, TO);
    if (rowEnd > limit) break;
    if (rowEnd > fed) rowEnd = fed;
    if (rowEnd <= at) break;
    if (!room(ROW_MAX)) return FLUSH;
    const i = hold + <usize>(at - holdAt);
    const n = <i32>(rowEnd - at);
    if (!started) {
      beginUtf8(i, at, <usize>min(3, at - holdAt), holdEnd, streamEnds);
      started = true;
    }
    // (A full row that is not all ASCII, as most are in text of other scripts, starts none.)
    if (W == 16 && at != noStretchAt && !linesPending() && (n < 16 || i8x16.bitmask(v128.load(i)) == 0)) {
      // Full rows before the next span starts, as far as they are settled and the output has
      // room: ASCII rows that no span colours are written in one call.
      const next = head < logN ? load<f64>(logStart + (<usize>head << 3)) : Infinity;
      const stop = min(min(limit, fed), min(min(TO, next), 4294967296));
      const rows = min(<i32>((stop - at) * 0.0625), <i32>((out + outCap - outP - ROW_MAX) / STRETCH_ROW_BYTES));
      if (rows > 0) {
        outP = asciiStretch(outP, i, at, rows);
        const written = stretchRows;
        if (written > 0) {
          pos = at + <f64>(written << 4);
          // The row the stretch stopped before (if it did) is not tried again.
          if (written < rows) noStretchAt = pos;
          if (outP >= flushAt) return FLUSH;
          continue;
        }
      }
    }
    if (!resolveRow(i, at, n, holdEnd, streamEnds)) return NEED_CP;
    const from = head;
    take(rowEnd);
    outP = writeRow(outP, i, at, n, logStart, logLen, logKind, from, head);
    if (COLOUR) keepColours(logStart, logLen, logKind, from, head, rowEnd);
    pos = rowEnd;
    if (head > from) {
      // One span's line from the cache, two or three spans' lines from it, or a take shaped like
      // the last, else lines bucket by bucket.
      let written = oneLine(from, head, outP, out + outCap);
      if (written == 0) written = fewLines(from, head, outP, out + outCap);
      if (written == 0) written = shapeLines(from, head, outP, out + outCap);
      if (written != 0) outP = written;
      else startLines(from, head);
    }
    if (!lines()) return FLUSH;
    if (outP >= flushAt) return FLUSH;
  }
  if (pos >= TO || final) {
    // Past the range (or at the end): spans are taken as they come, so memory stays flat.
    if (pos >= TO) pos = max(pos, fed);
    takeOutside(final ? Infinity : pos, pos);
    if (!lines()) return FLUSH;
  }
  return outP >= flushAt ? FLUSH : DONE;
}

/** Writes the lines pending, as far as the output has room; returns whether all were written. */
function lines(): bool {
  while (linesPending()) {
    outP = writeLines(outP, out + outCap);
    if (linesPending() && !room(roomWanted())) return false;
  }
  return true;
}

/**
 * Whether `n` more bytes fit the output; when they do not and it holds something, it is to be
 * written out first (false). Empty and still too small, it is replaced by a larger one.
 */
function room(n: usize): bool {
  if (outP + n <= out + outCap) return true;
  if (outP > out) return false;
  outCap = n + 65536;
  out = alloc(outCap);
  outP = out;
  forgetRow();
  flushAt = out + <usize>ctrl(C_FLUSH_AT);
  return true;
}

/** Takes the groups that start before `before` outside any row: lines for those in the range, colours kept from `keepFrom`. */
function takeOutside(before: f64, keepFrom: f64): void {
  const from = head;
  take(before);
  if (head == from) return;
  if (COLOUR) keepColours(logStart, logLen, logKind, from, head, keepFrom);
  startLines(from, head);
}

/** Takes the log entries that start before `before`: `head` moves past them. */
function take(before: f64): void {
  while (head < logN && load<f64>(logStart + (<usize>head << 3)) < before) head++;
}
