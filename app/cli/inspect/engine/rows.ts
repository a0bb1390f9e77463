// AssemblyScript. Hex rows as formatRow (app/cli/inspect/row-text.ts) prints them:
//
//   OOOOOOOO  hh hh hh hh hh hh hh hh  hh hh hh hh hh hh hh hh  |caret text|
//
// each byte's hex and caret cell coloured by the first span that holds it (else by its cell's
// kind), and, when wider than the terminal, cut into visual rows as fitPieces cuts formatRow's
// pieces. Caret cells come from formatHexRows' notation, with the UTF-8 state carried from row to
// row as HexRowWriter carries it: a character cut by a row edge shows in the row of its lead byte.
import {
  C_ARG, CTRL, K_C1, K_INVALID, K_PARTIAL, T_ASCII_COLOUR, T_C1, T_C1_LEN, T_CARET, T_CARET_LEN, T_CONT,
  T_BAR, T_HEX, T_HEX2, T_INVALID, T_KIND_COLOUR, T_PARTIAL, T_SPACES, T_ROW_CONT, T_ROW_CONT_LEN, T_SPAN_COLOUR, cpSlot,
} from './layout';
import { alloc } from './heap';
import { hexDigits, paint, put, reset, spaces, writeHex, writeHex8 } from './text';
import { SEQ_ILL_FORMED, SEQ_LENGTH_MASK, SEQ_TRUNCATED, SEQ_VALID, codePointAt, sequenceAt } from './utf8';
import {
  setVectors, vec, V_01, V_0F, V_10, V_1F, V_20, V_3C, V_3F, V_40, V_5C, V_5E, V_7C, V_7F, V_80, V_8F, V_90, V_9F, V_A0, V_C0,
  V_C2, V_DF, V_E0, V_ED, V_F0, V_F4, V_HEX_A, V_HEX_A_SPACES, V_HEX_B_D, V_HEX_B_E,
  V_HEX_B_SPACES, V_HEX_C, V_HEX_C_SPACES, V_HEX_D, V_HEX_D_SPACES, V_LANES, V_OFFSET_BYTES,
} from './vectors';

const GROUP: i32 = 8;
const LF: u8 = 0x0a;
const UNSET: u8 = 0xff;
const WIDE_OFFSET: f64 = 4294967296;

/** What the bytes up to `seqEnd` continue: a sequence begun at an earlier byte. */
const REST_CONT: i32 = 0;
const REST_INVALID: i32 = 1;
const REST_PARTIAL: i32 = 2;

let W: i32 = 16;
let DIGITS: i32 = 8;
let COLOUR: bool = false;
/** The terminal's width, or i32 max when rows are never cut. */
let COLUMNS: i32 = 0x7fffffff;
/** Columns of a row but the offset and the caret column: the hex column, `  |` and `|`. */
let FIXED: i32 = 0;
/** The default layout (16 bytes, 8 digits): rows of ASCII are written by SIMD. */
let SIMD: bool = false;

/**
 * A resolved row's caret text (`caretText`, its cells one after another, uncoloured), where each
 * cell starts in it (`cellStart`, u16, and the end after the last), each cell's colour outside
 * spans, and the columns the text takes.
 */
let caretText: usize = 0;
let cellStart: usize = 0;
let cellColour: usize = 0;
let caretWidth: i32 = 0;
/**
 * The columns each resolved cell takes (u8): its text's bytes, but 2 for a character shown as
 * itself. Noted as the cell is written; what a cut reads ({@link columnsBefore}, cutRow's pieces).
 */
let cellWidths: usize = 0;
/** Scratch for {@link columnsBefore}: the columns of cells `[0, k]` at byte k (saturating at 255). */
let cumCols: usize = 0;
/** Final colour per byte of the row: its span's, else its cell's. */
let colourOf: usize = 0;

/** Whether the row resolved last is all ASCII (its cells are then read from tables, not resolved). */
let asciiRow: bool = false;

/** Spans taken that may still colour bytes of rows to come, in the order taken. */
let actStart: usize = 0;
let actEnd: usize = 0;
let actCls: usize = 0;
let actCap: i32 = 0;
let actN: i32 = 0;

/**
 * UTF-8 state: the stream offset where the sequence carried from earlier bytes ends, what it is,
 * and (a character's) its lead cell's colour, which its continuation cells take.
 */
let seqEnd: f64 = 0;
let rest: i32 = REST_CONT;
let seqColour: u8 = 0;
/** A row being resolved across NEED_CP returns: its offset (-1: none), next cell, UTF-8 state. */
let resAt: f64 = -1;
let resQ: i32 = 0;
let resSeqEnd: f64 = 0;
let resRest: i32 = 0;
let resWidth: i32 = 0;

/** Rows of `width` bytes, offsets of at least `digits` digits, coloured or not, cut to `columns` (0: never). */
export function setRowLayout(width: i32, digits: i32, colour: bool, columns: i32): void {
  W = width;
  DIGITS = digits;
  COLOUR = colour;
  COLUMNS = columns > 0 ? columns : 0x7fffffff;
  FIXED = width * 3 + (width + GROUP - 1) / GROUP + 3 + 1;
  SIMD = width == 16 && digits == 8;
  caretText = alloc(<usize>width * 12 + 64);
  cellStart = alloc((<usize>width + 1) << 1);
  cellColour = alloc(<usize>width);
  cellWidths = alloc(<usize>width + 16);
  cumCols = alloc(16);
  colourOf = alloc(<usize>width);
  plainRow = alloc(256);
  // (Zero: no code point is known to be shown as itself yet.)
  shownBits = alloc(SHOWN_BITS_BYTES);
  setVectors();
  if (SIMD) fillSpread();
  if (width == 16) {
    fillPacks();
    notes = alloc(NOTES_BYTES);
    laneScratch = alloc(64);
  }
  actCap = 256;
  actStart = alloc(<usize>actCap << 3);
  actEnd = alloc(<usize>actCap << 3);
  actCls = alloc(<usize>actCap);
}

/** The most bytes one row can take in the output (painted, cut at every piece). */
export function rowMax(): usize {
  const pieces: usize = <usize>W * 3 + 4;
  return <usize>W * 38 + 128 + pieces * (<usize>load<u8>(T_ROW_CONT_LEN) + 2);
}

// ---- colours ----

/**
 * Keeps the colours of log groups `[from, to)` that may colour bytes from `after` on (they end
 * after it), in order, after dropping the kept ones that end at or before it.
 */
export function keepColours(logStart: usize, logLen: usize, logKind: usize, from: i32, to: i32, after: f64): void {
  let n = 0;
  for (let k = 0; k < actN; k++) {
    const e = load<f64>(actEnd + (<usize>k << 3));
    if (e <= after) continue;
    if (n != k) {
      store<f64>(actStart + (<usize>n << 3), load<f64>(actStart + (<usize>k << 3)));
      store<f64>(actEnd + (<usize>n << 3), e);
      store<u8>(actCls + <usize>n, load<u8>(actCls + <usize>k));
    }
    n++;
  }
  actN = n;
  for (let k = from; k < to; k++) {
    const s = load<f64>(logStart + (<usize>k << 3));
    const e = s + load<f64>(logLen + (<usize>k << 3));
    if (e <= after) continue;
    if (actN == actCap) growActive();
    store<f64>(actStart + (<usize>actN << 3), s);
    store<f64>(actEnd + (<usize>actN << 3), e);
    store<u8>(actCls + <usize>actN, <u8>(load<i32>(logKind + (<usize>k << 2)) & 15));
    actN++;
  }
}

function growActive(): void {
  const n = actCap * 2;
  const s = alloc(<usize>n << 3);
  const e = alloc(<usize>n << 3);
  const c = alloc(<usize>n);
  memory.copy(s, actStart, <usize>actN << 3);
  memory.copy(e, actEnd, <usize>actN << 3);
  memory.copy(c, actCls, <usize>actN);
  actStart = s;
  actEnd = e;
  actCls = c;
  actCap = n;
}

/** Colours bytes `[x0, x1)` of the row that no span coloured yet with colour `c`. */
function fillUnset(x0: i32, x1: i32, c: u8): void {
  for (let x = x0; x < x1; x++) {
    if (load<u8>(colourOf + <usize>x) == UNSET) store<u8>(colourOf + <usize>x, c);
  }
}

/**
 * Each byte's colour into colourOf: the first span that holds it, in the order taken (those kept
 * from earlier rows, then the row's own log groups `[from, to)`), else its cell's. Returns
 * whether any byte is coloured.
 */
function colourRow(i: usize, at: f64, n: i32, logStart: usize, logLen: usize, logKind: usize, from: i32, to: i32): bool {
  if (n == 16) return colourRow16(i, at, logStart, logLen, logKind, from, to);
  const end = at + <f64>n;
  memory.fill(colourOf, UNSET, <usize>n);
  for (let s = 0; s < actN; s++) {
    const a = load<f64>(actStart + (<usize>s << 3));
    const e = load<f64>(actEnd + (<usize>s << 3));
    if (a >= end || e <= at) continue;
    fillUnset(<i32>(max(a, at) - at), <i32>(min(e, end) - at), load<u8>(T_SPAN_COLOUR + <usize>load<u8>(actCls + <usize>s)));
  }
  for (let k = from; k < to; k++) {
    const a = load<f64>(logStart + (<usize>k << 3));
    const e = a + load<f64>(logLen + (<usize>k << 3));
    if (e <= at) continue;
    fillUnset(<i32>(max(a, at) - at), <i32>(min(e, end) - at), load<u8>(T_SPAN_COLOUR + <usize>(load<i32>(logKind + (<usize>k << 2)) & 15)));
  }
  let any: u32 = 0;
  for (let k = 0; k < n; k++) {
    let c = load<u8>(colourOf + <usize>k);
    if (c == UNSET) {
      c = asciiRow ? load<u8>(T_ASCII_COLOUR + <usize>load<u8>(i + <usize>k)) : load<u8>(cellColour + <usize>k);
      store<u8>(colourOf + <usize>k, c);
    }
    any |= c;
  }
  return any != 0;
}

/** `col` with the lanes `[x0, x1)` that hold UNSET set to colour `c`. */
function fillLanes(col: v128, x0: i32, x1: i32, c: u8): v128 {
  const lanes = vec(V_LANES);
  const m = v128.and(v128.and(i8x16.ge_u(lanes, i8x16.splat(<i8>x0)), i8x16.lt_u(lanes, i8x16.splat(<i8>x1))), i8x16.eq(col, i8x16.splat(<i8>UNSET)));
  return v128.bitselect(i8x16.splat(<i8>c), col, m);
}

/** Each of 16 ASCII bytes' colour outside spans: from the table's first 32 entries (C0), or DEL's. */
function asciiColours(v: v128): v128 {
  const col = v128.or(i8x16.swizzle(v128.load(T_ASCII_COLOUR), v), i8x16.swizzle(v128.load(T_ASCII_COLOUR + 16), i8x16.sub(v, vec(V_10))));
  return v128.or(col, v128.and(i8x16.eq(v, vec(V_7F)), i8x16.splat(<i8>load<u8>(T_ASCII_COLOUR + 0x7f))));
}

/** {@link colourRow} for a full row of 16 bytes, a lane per byte. */
function colourRow16(i: usize, at: f64, logStart: usize, logLen: usize, logKind: usize, from: i32, to: i32): bool {
  const end = at + 16;
  let col = i8x16.splat(<i8>UNSET);
  for (let s = 0; s < actN; s++) {
    const a = load<f64>(actStart + (<usize>s << 3));
    const e = load<f64>(actEnd + (<usize>s << 3));
    if (a >= end || e <= at) continue;
    col = fillLanes(col, <i32>(max(a, at) - at), <i32>(min(e, end) - at), load<u8>(T_SPAN_COLOUR + <usize>load<u8>(actCls + <usize>s)));
  }
  for (let k = from; k < to; k++) {
    const a = load<f64>(logStart + (<usize>k << 3));
    const e = a + load<f64>(logLen + (<usize>k << 3));
    if (e <= at) continue;
    col = fillLanes(col, <i32>(max(a, at) - at), <i32>(min(e, end) - at), load<u8>(T_SPAN_COLOUR + <usize>(load<i32>(logKind + (<usize>k << 2)) & 15)));
  }
  let cells: v128;
  if (asciiRow) {
    cells = asciiColours(v128.load(i));
  } else {
    cells = v128.load(cellColour);
  }
  col = v128.bitselect(cells, col, i8x16.eq(col, i8x16.splat(<i8>UNSET)));
  v128.store(colourOf, col);
  return v128.any_true(col);
}

// ---- cells ----

/**
 * The UTF-8 state at the first row, `i` (stream offset `at`), from the `ctx` bytes before it (up
 * to 3: a character covering `i` begins at most 3 bytes earlier); `end`: the end of the bytes
 * known, `streamEnds`: the stream ends there.
 */
export function beginUtf8(i: usize, at: f64, ctx: usize, end: usize, streamEnds: bool): void {
  seqEnd = at;
  rest = REST_CONT;
  // A character's lead before the first row is not shown: its continuation cells are uncoloured.
  seqColour = 0;
  let j = i - ctx;
  while (j < i) {
    if (load<u8>(j) < 0x80) {
      j++;
      continue;
    }
    const packed = sequenceAt(j, end);
    const length = <usize>(packed & SEQ_LENGTH_MASK);
    let status = packed & ~SEQ_LENGTH_MASK;
    if (status == SEQ_TRUNCATED && streamEnds) status = SEQ_ILL_FORMED;
    if (j + length > i) {
      seqEnd = at + <f64>(j + length - i);
      rest = status == SEQ_VALID ? REST_CONT : status == SEQ_ILL_FORMED ? REST_INVALID : REST_PARTIAL;
    }
    j += length;
  }
}

/** Whether the `n` bytes at `i` are all ASCII. */
function allAscii(i: usize, n: i32): bool {
  if (n == 16) return i8x16.bitmask(v128.load(i)) == 0;
  for (let k = 0; k < n; k++) if (load<u8>(i + <usize>k) >= 0x80) return false;
  return true;
}

/**
 * The caret cells of the row `[i, i + n)` (stream offset `at`): their text, where each starts
 * and its colour outside spans, the UTF-8 state carried from row to row as HexRowWriter carries
 * it. A row of ASCII after a settled character needs none (its cells come from tables). Returns
 * false (CTRL C_ARG: the code point) when a lead cell is not in T_CP yet; the next call goes on
 * from that cell. `end`: the end of the bytes known; `streamEnds`: the stream ends there.
 */
export function resolveRow(i: usize, at: f64, n: i32, end: usize, streamEnds: bool): bool {
  if (seqEnd <= at && allAscii(i, n)) {
    asciiRow = true;
    return true;
  }
  asciiRow = false;
  if (resAt != at) {
    if (n == 16 && i + 32 <= end && (seqEnd <= at || rest == REST_CONT) && resolveRow16(i, at)) return true;
    resAt = at;
    resQ = 0;
    resSeqEnd = seqEnd;
    resRest = rest;
    resWidth = 0;
  }
  let q = resQ;
  let sEnd = resSeqEnd;
  let r = resRest;
  // (A row resumed after NEED_CP goes on at a lead cell, which sets it before any cell reads it.)
  let sColour = seqColour;
  // Text so far; columns it takes beyond its length (a character's bytes take 2).
  let tp = caretText + <usize>(q == 0 ? 0 : load<u16>(cellStart + (<usize>q << 1)));
  let narrow = resWidth;
  while (q < n) {
    if (at + <f64>q < sEnd) {
      // Bytes of a sequence begun at an earlier byte (of an earlier row, or ill-formed or cut here).
      const upto = <i32>min(<f64>n, sEnd - at);
      tp = continuing(tp, i, q, upto, r, sColour);
      q = upto;
      continue;
    }
    const b = <u32>load<u8>(i + <usize>q);
    if (b < 0x80) {
      // This and the ASCII bytes after it, up to the next that is not.
      let c = b;
      do {
        store<u16>(cellStart + (<usize>q << 1), <u16>(tp - caretText));
        store<u16>(tp, load<u16>(T_CARET + (<usize>c << 1)));
        const w = load<u8>(T_CARET_LEN + <usize>c);
        tp += <usize>w;
        store<u8>(cellWidths + <usize>q, w);
        store<u8>(cellColour + <usize>q, load<u8>(T_ASCII_COLOUR + <usize>c));
        q++;
        if (q >= n) break;
        c = <u32>load<u8>(i + <usize>q);
      } while (c < 0x80);
      continue;
    }
    store<u16>(cellStart + (<usize>q << 1), <u16>(tp - caretText));
    const packed = sequenceAt(i + <usize>q, end);
    const length = packed & SEQ_LENGTH_MASK;
    let status = packed & ~SEQ_LENGTH_MASK;
    if (status == SEQ_TRUNCATED && streamEnds) status = SEQ_ILL_FORMED;
    if (status == SEQ_VALID) {
      const cp = codePointAt(i + <usize>q, length);
      let slot: usize = 0;
      let len: usize = 0;
      if (!shown(cp)) {
        slot = cpSlot(cp);
        if (load<i32>(slot) != cp) {
          resQ = q;
          resSeqEnd = sEnd;
          resRest = r;
          resWidth = narrow;
          store<f64>(CTRL + (<usize>C_ARG << 3), <f64>cp);
          return false;
        }
        len = <usize>load<u8>(slot + 5);
      }
      sEnd = at + <f64>(q + length);
      r = REST_CONT;
      if (len == 0) {
        // Shown as itself: its bytes (even past the row's end), 2 columns; then a mark for each
        // of its continuation bytes in this row.
        const src = i + <usize>q;
        if (length == 4) {
          store<u32>(tp, load<u32>(src));
        } else {
          store<u16>(tp, load<u16>(src));
          if (length == 3) store<u8>(tp + 2, load<u8>(src + 2));
        }
        tp += <usize>length;
        narrow += length - 2;
        sColour = 0;
        store<u8>(cellColour + <usize>q, 0);
        store<u8>(cellWidths + <usize>q, 2);
        const upto = min(n, q + length);
        tp = continuing(tp, i, q + 1, upto, REST_CONT, 0);
        q = upto;
        continue;
      }
      v128.store(tp, v128.load(slot + 8));
      tp += len;
      sColour = load<u8>(slot + 4);
      store<u8>(cellColour + <usize>q, sColour);
      store<u8>(cellWidths + <usize>q, <u8>len);
    } else if (status == SEQ_ILL_FORMED) {
      r = REST_INVALID;
      // A byte no sequence claims is C1 when it is 0x80–0x9F.
      if (length == 1 && b < 0xa0) {
        store<u64>(tp, load<u64>(T_C1 + (<usize>(b - 0x80) << 3)));
        const w = load<u8>(T_C1_LEN + <usize>(b - 0x80));
        tp += <usize>w;
        store<u8>(cellColour + <usize>q, load<u8>(T_KIND_COLOUR + K_C1));
        store<u8>(cellWidths + <usize>q, w);
      } else {
        store<u32>(tp, load<u32>(T_INVALID + (<usize>b << 2)));
        tp += 4;
        store<u8>(cellColour + <usize>q, load<u8>(T_KIND_COLOUR + K_INVALID));
        store<u8>(cellWidths + <usize>q, 4);
      }
      sEnd = at + <f64>(q + length);
    } else {
      r = REST_PARTIAL;
      store<u64>(tp, load<u64>(T_PARTIAL + (<usize>b << 3)));
      tp += 5;
      store<u8>(cellColour + <usize>q, load<u8>(T_KIND_COLOUR + K_PARTIAL));
      store<u8>(cellWidths + <usize>q, 5);
      sEnd = at + <f64>(q + length);
    }
    q++;
  }
  store<u16>(cellStart + (<usize>n << 1), <u16>(tp - caretText));
  caretWidth = <i32>(tp - caretText) - narrow;
  resAt = -1;
  seqEnd = sEnd;
  rest = r;
  seqColour = sColour;
  return true;
}

/**
 * The cells `[q, upto)` of the row at `i`, bytes of a sequence begun at an earlier byte (`r`
 * says what it is: a character's continuation bytes, of colour `leadColour`, its lead cell's; an
 * ill-formed or a cut one's), at `tp`; returns the end of the text.
 */
function continuing(tp: usize, i: usize, q: i32, upto: i32, r: i32, leadColour: u8): usize {
  // Each cell's text from a table: the mark (whatever the byte), or the byte's `\xNN` (4 bytes an
  // entry) or `<NN?>` (8 bytes an entry, 5 used); 8 bytes copied, its length kept.
  const table = r == REST_CONT ? T_CONT : r == REST_INVALID ? T_INVALID : T_PARTIAL;
  const shift: usize = r == REST_PARTIAL ? 3 : 2;
  const mask: usize = r == REST_CONT ? 0 : 0x7ff;
  const w: usize = r == REST_CONT ? 2 : r == REST_INVALID ? 4 : 5;
  const colour = r == REST_CONT ? leadColour : load<u8>(T_KIND_COLOUR + (r == REST_INVALID ? K_INVALID : K_PARTIAL));
  for (let k = q; k < upto; k++) {
    store<u16>(cellStart + (<usize>k << 1), <u16>(tp - caretText));
    store<u64>(tp, load<u64>(table + ((<usize>load<u8>(i + <usize>k) << shift) & mask)));
    tp += w;
    store<u8>(cellColour + <usize>k, colour);
    store<u8>(cellWidths + <usize>k, <u8>w);
  }
  return tp;
}

/**
 * One bit per code point of the BMP: set once JavaScript has said that its lead cell shows it as
 * itself (see {@link shownBitsAddress}). Such a character needs no slot in T_CP, so text in a
 * script of thousands of characters (CJK) does not evict its own from the slots.
 */
let shownBits: usize = 0;
const SHOWN_BITS_BYTES: usize = 8192;

/** Where the bits of {@link shownBits} are. */
export function shownBitsAddress(): usize {
  return shownBits;
}

/** Whether code point `cp` is known to be shown as itself (BMP only). */
function shown(cp: i32): bool {
  return cp < 0x10000 && shownBmp(shownBits, cp);
}

/** {@link shown} of a code point of the BMP, `bits` being {@link shownBits} (a loop holds it in a local). */
function shownBmp(bits: usize, cp: i32): bool {
  return ((<u32>load<u8>(bits + (<usize>cp >> 3)) >> (<u32>cp & 7)) & 1) != 0;
}

/**
 * Scratch for {@link resolveRow16}'s cells shown as notation, by lane: each one's length (0 in
 * other lanes) at NOTE_LEN, colour at NOTE_COLOUR, text's address (u32) at NOTE_TEXT. One region,
 * so that a loop holds one address, not three globals it would load again on every pass.
 */
let notes: usize = 0;
const NOTE_LEN: usize = 0;
const NOTE_COLOUR: usize = 16;
const NOTE_TEXT: usize = 32;
const NOTES_BYTES: usize = 96;
/** The texts of the row's other cells (4 bytes each). */
let laneScratch: usize = 0;

/**
 * Shuffles that pack the texts of four cells (4 bytes each, of which a cell's text is its first
 * 1–4) one after another, by the cells' lengths: entry `lo | hi << 4` (bit k of `lo` and `hi`:
 * bits 0 and 1 of cell k's length - 1), 16 bytes each.
 */
let packs: usize = 0;

function fillPacks(): void {
  packs = alloc(256 * 16);
  memory.fill(packs, 0xff, 256 * 16);
  for (let key = 0; key < 256; key++) {
    let j: usize = 0;
    for (let k = 0; k < 4; k++) {
      const length = 1 + ((key >> k) & 1) + 2 * ((key >> (k + 4)) & 1);
      for (let b = 0; b < length; b++) store<u8>(packs + <usize>(key << 4) + j++, <u8>(4 * k + b));
    }
  }
}

/** Writes the texts of four cells (`cells`: 4 bytes each) packed at `p` (16 bytes written); returns their end. */
function packCells(p: usize, cells: v128, lo: u32, hi: u32): usize {
  v128.store(p, i8x16.swizzle(cells, v128.load(packs + (<usize>(lo | (hi << 4)) << 4))));
  return p + 4 + <usize>popcnt(lo) + 2 * <usize>popcnt(hi);
}

/**
 * {@link resolveRow} for a full row of 16 bytes when the 16 after it are known (`i + 32 <=
 * end`) and every byte from 0x80 in it belongs to a well-formed character (Table 3-7) whose lead
 * cell is known (its bit in {@link shownBits}, or its slot in T_CP): with a lane per byte, so
 * that text mixing characters and ASCII costs no branch per byte. Returns false, having changed
 * nothing but scratch, when the row is not such a row (resolveRow then resolves it byte by byte).
 */
function resolveRow16(i: usize, at: f64): bool {
  const v = v128.load(i);
  const after = v128.load(i + 16);
  const high = i8x16.lt_s(v, i8x16.splat(0));
  const cont = i8x16.eq(v128.and(v, vec(V_C0)), vec(V_80));
  const lead3 = i8x16.eq(v128.and(v, vec(V_F0)), vec(V_E0));
  const lead4 = v128.and(i8x16.ge_u(v, vec(V_F0)), i8x16.le_u(v, vec(V_F4)));
  const leads = v128.or(v128.and(i8x16.ge_u(v, vec(V_C2)), i8x16.le_u(v, vec(V_DF))), v128.or(lead3, lead4));
  const mLead = <u32>i8x16.bitmask(leads);
  const m3 = <u32>i8x16.bitmask(lead3);
  const m4 = <u32>i8x16.bitmask(lead4);
  const mCont = <u32>i8x16.bitmask(cont);
  // Every byte from 0x80 a lead (C2–F4) or a continuation byte; the continuation bytes exactly
  // those the leads (and the sequence carried in, whose bytes were checked with its lead) call for.
  if ((mLead | mCont) != <u32>i8x16.bitmask(high)) return false;
  const carried: u32 = seqEnd > at ? (<u32>1 << <u32>(seqEnd - at)) - 1 : 0;
  const wanted = carried | (mLead << 1) | ((m3 | m4) << 2) | (m4 << 3);
  if ((wanted & 0xffff) != mCont) return false;
  if (((wanted >> 16) & ~(<u32>i8x16.bitmask(i8x16.eq(v128.and(after, vec(V_C0)), vec(V_80))))) != 0) return false;
  // Each byte's next, and the second bytes Table 3-7 narrows: E0 A0–BF, ED 80–9F, F0 90–BF, F4
  // 80–8F. (A surrogate or a code point past U+10FFFF would also find no bit and no slot below.)
  const next = i8x16.shuffle(v, after, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
  const narrowed = v128.or(
    v128.or(v128.and(i8x16.eq(v, vec(V_E0)), i8x16.lt_u(next, vec(V_A0))), v128.and(i8x16.eq(v, vec(V_ED)), i8x16.gt_u(next, vec(V_9F)))),
    v128.or(v128.and(i8x16.eq(v, vec(V_F0)), i8x16.lt_u(next, vec(V_90))), v128.and(i8x16.eq(v, vec(V_F4)), i8x16.gt_u(next, vec(V_8F)))),
  );
  if (v128.any_true(narrowed)) return false;
  // Each character's lead cell known: by its bit (shown as itself), else by its slot.
  let lastEnd: u32 = 0;
  // Lead cells shown as notation (`<U+0627>`): their lanes, and each one's text, length and colour
  // (a length of 0 in the other lanes).
  let notation: u32 = 0;
  const note = notes;
  const bits = shownBits;
  v128.store(note, i8x16.splat(0), NOTE_LEN);
  for (let m = mLead; m != 0; m &= m - 1) {
    const k = <u32>ctz(m);
    const b = load<u32>(i + <usize>k);
    let cp: i32;
    if (((m4 >> k) & 1) != 0) {
      cp = <i32>(((b & 0x07) << 18) | ((b & 0x3f00) << 4) | ((b >> 10) & 0xfc0) | ((b >> 24) & 0x3f));
      lastEnd = k + 4;
    } else {
      if (((m3 >> k) & 1) != 0) {
        cp = <i32>(((b & 0x0f) << 12) | ((b & 0x3f00) >> 2) | ((b >> 16) & 0x3f));
        lastEnd = k + 3;
      } else {
        cp = <i32>(((b & 0x1f) << 6) | ((b >> 8) & 0x3f));
        lastEnd = k + 2;
      }
      if (shownBmp(bits, cp)) continue;
    }
    const slot = cpSlot(cp);
    if (load<i32>(slot) != cp) return false;
    const len = load<u8>(slot + 5);
    if (len == 0) continue;
    notation |= <u32>1 << k;
    store<u8>(note + <usize>k, len, NOTE_LEN);
    store<u8>(note + <usize>k, load<u8>(slot + 4), NOTE_COLOUR);
    store<u32>(note + (<usize>k << 2), <u32>(slot + 8), NOTE_TEXT);
  }
  // Each cell's text, up to 4 bytes: an ASCII byte's caret text (as caretOf writes it), a
  // character's bytes in its lead cell, the mark in each continuation cell.
  const controls = controlLanes(v);
  const escaped = escapedLanes(v);
  const two = v128.or(controls, escaped);
  const markA = i8x16.splat(<i8>load<u8>(T_CONT));
  const markB = i8x16.splat(<i8>load<u8>(T_CONT + 1));
  const first = v128.bitselect(markA, v128.bitselect(vec(V_5E), v128.bitselect(vec(V_5C), v, escaped), controls), cont);
  const letter = v128.bitselect(vec(V_3F), i8x16.add(v, vec(V_40)), i8x16.eq(v, vec(V_7F)));
  const second = v128.bitselect(markB, v128.bitselect(next, v128.bitselect(letter, v, controls), leads), cont);
  const third = i8x16.shuffle(v, after, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17);
  const fourth = i8x16.shuffle(v, after, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18);
  const ab = i8x16.shuffle(first, second, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const cd = i8x16.shuffle(third, fourth, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const ab2 = i8x16.shuffle(first, second, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const cd2 = i8x16.shuffle(third, fourth, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  // Each cell's columns (an ASCII byte's caret text's bytes, else 2), its text's bytes (a lead
  // cell's: its character's), its colour outside spans; where each cell starts (a prefix sum).
  let widths = i8x16.sub(i8x16.sub(vec(V_01), two), high);
  let lens = i8x16.sub(i8x16.sub(i8x16.sub(widths, lead3), lead4), lead4);
  // Colours outside spans: an ASCII byte's from its table; a lead cell shown as itself none; a
  // notation cell its kind's; a continuation cell its lead's (below).
  let colours = v128.andnot(asciiColours(v), high);
  if (notation != 0) {
    // A notation cell's columns and length are its text's, its colour its kind's.
    const noted = v128.load(note, NOTE_LEN);
    const lanes = i8x16.ne(noted, i8x16.splat(0));
    widths = v128.bitselect(noted, widths, lanes);
    lens = v128.bitselect(noted, lens, lanes);
    colours = v128.bitselect(v128.load(note, NOTE_COLOUR), colours, lanes);
  }
  v128.store(cellWidths, widths);
  v128.store(cellColour, colours);
  if ((notation != 0 || seqColour != 0) && COLOUR) leadColours(cont);
  // (A row's text is below 255 bytes: at most 8 cells of notation, 16 bytes each, and their marks.)
  const s = prefixSums(lens);
  const starts = i8x16.shuffle(i8x16.splat(0), s, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
  v128.store(cellStart, i16x8.extend_low_i8x16_u(starts));
  v128.store(cellStart, i16x8.extend_high_i8x16_u(starts), 16);
  const total = <u32>i8x16.extract_lane_u(s, 15);
  store<u16>(cellStart + 32, <u16>total);
  const t0 = i16x8.shuffle(ab, cd, 0, 8, 1, 9, 2, 10, 3, 11);
  const t1 = i16x8.shuffle(ab, cd, 4, 12, 5, 13, 6, 14, 7, 15);
  const t2 = i16x8.shuffle(ab2, cd2, 0, 8, 1, 9, 2, 10, 3, 11);
  const t3 = i16x8.shuffle(ab2, cd2, 4, 12, 5, 13, 6, 14, 7, 15);
  if (notation == 0) {
    // The text, four cells at a time: their 16 bytes (4 a cell) packed by the shuffle for their
    // lengths, the next four's written over what is past them.
    const lo = <u32>i8x16.bitmask(i8x16.shl(i8x16.sub(lens, vec(V_01)), 7));
    const hi = <u32>i8x16.bitmask(i8x16.shl(i8x16.sub(lens, vec(V_01)), 6));
    let tp = caretText;
    tp = packCells(tp, t0, lo & 15, hi & 15);
    tp = packCells(tp, t1, (lo >> 4) & 15, (hi >> 4) & 15);
    tp = packCells(tp, t2, (lo >> 8) & 15, (hi >> 8) & 15);
    packCells(tp, t3, lo >> 12, hi >> 12);
  } else {
    // Cell by cell at its start, a notation cell's text from its slot (up to 16 bytes), any
    // other's 4 bytes; each cell's written over what the one before wrote past its end.
    v128.store(laneScratch, t0);
    v128.store(laneScratch, t1, 16);
    v128.store(laneScratch, t2, 32);
    v128.store(laneScratch, t3, 48);
    // (Unrolled: a loop here re-reads its bounds and checks the stack on every pass.)
    const text = caretText;
    const starts = cellStart;
    const own = laneScratch;
    putCell(text, starts, own, note, notation, 0);
    putCell(text, starts, own, note, notation, 1);
    putCell(text, starts, own, note, notation, 2);
    putCell(text, starts, own, note, notation, 3);
    putCell(text, starts, own, note, notation, 4);
    putCell(text, starts, own, note, notation, 5);
    putCell(text, starts, own, note, notation, 6);
    putCell(text, starts, own, note, notation, 7);
    putCell(text, starts, own, note, notation, 8);
    putCell(text, starts, own, note, notation, 9);
    putCell(text, starts, own, note, notation, 10);
    putCell(text, starts, own, note, notation, 11);
    putCell(text, starts, own, note, notation, 12);
    putCell(text, starts, own, note, notation, 13);
    putCell(text, starts, own, note, notation, 14);
    putCell(text, starts, own, note, notation, 15);
  }
  // Columns: a character shown as itself takes 2 whatever its bytes.
  caretWidth = <i32>total - <i32>popcnt(m3 & ~notation) - 2 * <i32>popcnt(m4 & ~notation);
  if (lastEnd != 0) {
    seqEnd = at + <f64>lastEnd;
    rest = REST_CONT;
    seqColour = load<u8>(cellColour + 15);
  }
  laneRows++;
  return true;
}

/**
 * Writes cell `k`'s text at its start in `text` (`starts`: each cell's, u16): a notation cell's
 * from its slot (16 bytes, up to 16 of them its text), any other's 4 bytes from `own`.
 */
function putCell(text: usize, starts: usize, own: usize, note: usize, notation: u32, k: usize): void {
  const at = text + <usize>load<u16>(starts + (k << 1));
  if (((notation >> <u32>k) & 1) != 0) v128.store(at, v128.load(<usize>load<u32>(note + (k << 2), NOTE_TEXT)));
  else store<u32>(at, load<u32>(own + (k << 2)));
}

/**
 * Gives each continuation lane of a row of 16 (`cont`) the colour of its lead cell in
 * {@link cellColour}: the colour of the lane before, three times over (a character has up to three
 * continuation bytes), shifting in {@link seqColour} for those of the character carried in.
 */
function leadColours(cont: v128): void {
  const carry = i8x16.splat(<i8>seqColour);
  let c = v128.load(cellColour);
  c = v128.bitselect(i8x16.shuffle(carry, c, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30), c, cont);
  c = v128.bitselect(i8x16.shuffle(carry, c, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30), c, cont);
  c = v128.bitselect(i8x16.shuffle(carry, c, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30), c, cont);
  v128.store(cellColour, c);
}

/** Rows {@link resolveRow16} resolved (tests hold text in other scripts to this path). */
let laneRows: i32 = 0;

/** How many rows were resolved lane by lane. */
export function rowsByLanes(): i32 {
  return laneRows;
}

// ---- writing ----

/**
 * Writes the row `[i, i + n)` at stream offset `at` (resolved by {@link resolveRow}) at `p`,
 * with its LF, coloured (with colour) by the spans kept and the row's own log groups
 * `[from, to)`. Returns the end.
 */
export function writeRow(p: usize, i: usize, at: f64, n: i32, logStart: usize, logLen: usize, logKind: usize, from: i32, to: i32): usize {
  let coloured = false;
  if (COLOUR && (actN > 0 || to > from || !asciiRow || !printable(i, n))) coloured = colourRow(i, at, n, logStart, logLen, logKind, from, to);
  const digits = at < WIDE_OFFSET && DIGITS == 8 ? 8 : hexDigits(at, DIGITS);
  let width = FIXED + digits;
  if (asciiRow) {
    if (COLUMNS != 0x7fffffff) {
      if (n == 16) width += 16 + <i32>popcnt(twoBytes(i));
      else for (let k = 0; k < n; k++) width += <i32>load<u8>(T_CARET_LEN + <usize>load<u8>(i + <usize>k));
    }
  } else {
    width += caretWidth;
  }
  const simd = SIMD && n == 16 && at + 16 <= WIDE_OFFSET;
  // A painted or cut row of ASCII like the one before (the same bytes and colours) is its text
  // again but for the offset: copied (padding, a run of one control, rules of '=').
  const repeatable = simd && asciiRow && (coloured || width > COLUMNS);
  if (repeatable && repeats(i, coloured)) return repeatRow(p, at);
  if (width > COLUMNS) {
    const end = simd && digits + FIXED - 1 <= COLUMNS ? cutRow16(p, i, at, coloured) : 0;
    return remember(p, end != 0 ? end : cutRow(p, i, at, n, coloured, digits, simd), i, coloured, repeatable);
  }
  if (simd) {
    if (!coloured) return asciiRow ? asciiCaret(simdHex(p, i, <u32>at), i) : resolvedCaret(simdHex(p, i, <u32>at), n);
    return remember(p, paintedRow16(p, i, at), i, true, repeatable);
  }
  return scalarRow(p, i, at, n, coloured);
}

// The last painted or cut row of ASCII: where its text is in the output (valid until the output
// is written out: see forgetRow), its bytes and colours.
let lastRowAt: usize = 0;
let lastRowEnd: usize = 0;
let lastRowBytes: v128 = i8x16.splat(0);
let lastRowColours: v128 = i8x16.splat(0);
let lastRowColoured: bool = false;
let lastRowValid: bool = false;

/** The output was written out (or moved): rows before are not there to copy. */
export function forgetRow(): void {
  lastRowValid = false;
}

/** Whether the row at `i` (ASCII, its colours in colourOf when `coloured`) is the last painted or cut row again. */
function repeats(i: usize, coloured: bool): bool {
  if (!lastRowValid || coloured != lastRowColoured) return false;
  if (!i8x16.all_true(i8x16.eq(v128.load(i), lastRowBytes))) return false;
  return !coloured || i8x16.all_true(i8x16.eq(v128.load(colourOf), lastRowColours));
}

/** The last painted or cut row's text again at `p`, with the offset `at` (below 2^32, 8 digits) in its first 8 bytes. */
function repeatRow(p: usize, at: f64): usize {
  const n = lastRowEnd - lastRowAt;
  memory.copy(p, lastRowAt, n);
  lastRowAt = p;
  lastRowEnd = p + n;
  writeHex8(p, at);
  return p + n;
}

/** Remembers the row just written at `[p, end)` (when `keep`) for {@link repeats}; returns `end`. */
function remember(p: usize, end: usize, i: usize, coloured: bool, keep: bool): usize {
  if (keep) {
    lastRowAt = p;
    lastRowEnd = end;
    lastRowBytes = v128.load(i);
    lastRowColoured = coloured;
    if (coloured) lastRowColours = v128.load(colourOf);
    lastRowValid = true;
  }
  return end;
}

/**
 * Copies `n` bytes from `src` to `p` 16 at a time (up to 16 bytes past `p + n` are written, and
 * overwritten by what follows); returns `p + n`. The first 32 without a loop: most pieces a row
 * is copied in are that short, and a loop checks the stack on every pass.
 */
function copy16(p: usize, src: usize, n: usize): usize {
  v128.store(p, v128.load(src));
  if (n > 16) {
    v128.store(p, v128.load(src, 16), 16);
    for (let j: usize = 32; j < n; j += 16) v128.store(p + j, v128.load(src + j));
  }
  return p + n;
}

// A row's colour runs: a colour is set before the first cell of a run of cells of one colour and
// reset after its last (formatRow's definition); the gaps between a run's hex cells are inside it.

/** The cells of a full row (colours in colourOf) that begin a run (bits), and {@link runEnds}. */
let runStarts: u32 = 0;
/** The cells that end a run. */
let runEnds: u32 = 0;

/** Sets {@link runStarts} and {@link runEnds} for a full row of 16 cells. */
function runs16(): void {
  const z = i8x16.splat(0);
  const col = v128.load(colourOf);
  // Each neighbour as a run of consecutive lanes of (zero, col) or (col, zero): one byte align in V8.
  const prev = i8x16.shuffle(z, col, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30);
  const next = i8x16.shuffle(col, z, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
  const coloured = i8x16.ne(col, z);
  runStarts = <u32>i8x16.bitmask(v128.and(coloured, i8x16.ne(col, prev)));
  runEnds = <u32>i8x16.bitmask(v128.and(coloured, i8x16.ne(col, next)));
}

/** The plain text of a painted row (a row of text and 16 bytes past it), copied with its colours put in. */
let plainRow: usize = 0;
/** Where the copy of {@link plainRow} has got to. */
let plainFrom: usize = 0;
/** The caret cells of the ASCII row in {@link plainRow} that take two bytes (bits; see {@link caretCell}). */
let twoByteCells: u32 = 0;

/**
 * Copies {@link plainRow} on to `p` from where it got to, up to cell `k` (at `cell` in it, `len`
 * bytes), with its run's colour set before it when it begins a run and reset after it when it
 * ends one; returns the end.
 */
function runCell(p: usize, k: u32, cell: usize, len: usize): usize {
  const bit = (<u32>1) << k;
  if ((runStarts & bit) != 0) {
    p = paint(copy16(p, plainRow + plainFrom, cell - plainFrom), load<u8>(colourOf + <usize>k));
    plainFrom = cell;
  }
  if ((runEnds & bit) != 0) {
    p = reset(copy16(p, plainRow + plainFrom, cell + len - plainFrom));
    plainFrom = cell + len;
  }
  return p;
}

/**
 * The offset and hex column (with `  |`) of a full row of 16 bytes in the default layout, its
 * plain text in {@link plainRow} (by simdHex), at `p` with its runs' colours put in. Hex cell
 * `k` is at 10 + 3k, +1 from the second group.
 */
function paintedHex16(p: usize): usize {
  runs16();
  plainFrom = 0;
  for (let m = runStarts | runEnds; m != 0; m &= m - 1) {
    const k = <u32>ctz(m);
    p = runCell(p, k, <usize>k * 3 + <usize>(k >> 3) + 10, 2);
  }
  return p;
}

/**
 * A full painted row of 16 bytes in the default layout at `p`: its plain text (SIMD hex, caret
 * from the table or as resolved) copied with the colours of its runs put in.
 */
function paintedRow16(p: usize, i: usize, at: f64): usize {
  const end = plainRow16(i, at);
  p = paintedHex16(p);
  p = caretRuns(p, 0, 16);
  return copy16(p, plainRow + plainFrom, end - plainRow - plainFrom);
}

/**
 * Writes the plain text of a full row of 16 bytes into {@link plainRow} (SIMD hex, caret from the
 * table or as resolved, `|` LF); {@link caretCell} says where each caret cell begins. Returns the end.
 */
function plainRow16(i: usize, at: f64): usize {
  const caret = simdHex(plainRow, i, <u32>at);
  if (asciiRow) {
    const v = v128.load(i);
    const controls = controlLanes(v);
    const escaped = escapedLanes(v);
    twoByteCells = <u32>i8x16.bitmask(v128.or(controls, escaped));
    return caretOf(caret, v, controls, escaped);
  }
  return resolvedCaret(caret, 16);
}

/**
 * Where caret cell `k` (0–16: 16 is the end of the caret text) of the row in {@link plainRow}
 * begins in it: after the offset and hex column (61 bytes) and the cells before it (an ASCII
 * row's take one byte each, two those in {@link twoByteCells}; other rows' as resolved).
 */
function caretCell(k: u32): usize {
  if (asciiRow) return <usize>(61 + k + popcnt(twoByteCells & ((<u32>1 << k) - 1)));
  return 61 + <usize>load<u16>(cellStart + (<usize>k << 1));
}

/**
 * Copies {@link plainRow} on from where it got to through caret cells `[k0, k1)`, with the
 * colours of their runs put in: set before a run's first cell and reset after its last, a run
 * cut by either end of the range set at `k0` and reset after `k1 - 1` (a cut row's visual rows
 * each close their colours). Returns the end.
 */
function caretRuns(p: usize, k0: u32, k1: u32): usize {
  if (k1 <= k0) return p;
  const range = (k1 == 32 ? <u32>0xffffffff : ((<u32>1 << k1) - 1)) & ~((<u32>1 << k0) - 1);
  const starts = (runStarts | (load<u8>(colourOf + <usize>k0) != 0 ? <u32>1 << k0 : 0)) & range;
  const ends = (runEnds | (load<u8>(colourOf + <usize>(k1 - 1)) != 0 ? <u32>1 << (k1 - 1) : 0)) & range;
  for (let m = starts | ends; m != 0; m &= m - 1) {
    const k = <u32>ctz(m);
    const bit = (<u32>1) << k;
    const cell = caretCell(k);
    if ((starts & bit) != 0) {
      p = paint(copy16(p, plainRow + plainFrom, cell - plainFrom), load<u8>(colourOf + <usize>k));
      plainFrom = cell;
    }
    if ((ends & bit) != 0) {
      const to = caretCell(k + 1);
      p = reset(copy16(p, plainRow + plainFrom, to - plainFrom));
      plainFrom = to;
    }
  }
  return p;
}

/**
 * A full row of 16 bytes in the default layout that is wider than the terminal, when its offset
 * and hex column fit the first visual row and the rest needs one cut: the first visual row takes
 * the caret cells that fit, the second (`        + `) the rest and the bar, as cutRow lays its
 * pieces out. Returns the end, or 0 when the row needs more (cutRow writes it).
 */
function cutRow16(p: usize, i: usize, at: f64, coloured: bool): usize {
  // An uncoloured row of resolved cells is written straight from its caret text.
  const direct = !asciiRow && !coloured;
  const end: usize = direct ? 0 : plainRow16(i, at);
  // The first caret cell that does not fit the first visual row (16: the bar).
  const room = COLUMNS - 61;
  let col = 0;
  let cut: u32 = 0;
  if (asciiRow) {
    // A cell's columns are its bytes: the cells before k take caretCell(k) - 61 columns. At most
    // `room` cells fit; fewer, one fewer per two-column cell among them.
    cut = <u32>min(16, max(0, room));
    while (cut > 0 && <i32>(caretCell(cut) - 61) > room) cut--;
    col = <i32>(caretCell(cut) - 61);
  } else if (room < CUT_ROOM_MAX) {
    // The cells whose columns so far fit: a prefix (every cell takes a column or more).
    const cum = columnsBefore();
    cut = <u32>popcnt(i8x16.bitmask(i8x16.le_u(cum, i8x16.splat(<i8>room))));
    col = cut == 0 ? 0 : <i32>load<u8>(cumCols + <usize>(cut - 1));
  } else {
    for (; cut < 16; cut++) {
      const w = <i32>load<u8>(cellWidths + <usize>cut);
      if (col + w > room) break;
      col += w;
    }
  }
  if (cut == 16 && col + 1 <= room) return 0;
  // The rest on the second visual row (a blank cell where the cut falls is dropped).
  let next = cut;
  if (cut < 16 && (!coloured || load<u8>(colourOf + <usize>cut) == 0) && caretIsSpace(cut)) next++;
  let rest = 1;
  if (asciiRow) rest += <i32>(caretCell(16) - caretCell(next));
  else if (room < CUT_ROOM_MAX) rest += caretWidth - (next == 0 ? 0 : <i32>load<u8>(cumCols + <usize>(next - 1)));
  else for (let k = next; k < 16; k++) rest += <i32>load<u8>(cellWidths + <usize>k);
  const contLen = <usize>load<u8>(T_ROW_CONT_LEN);
  if (<i32>contLen + rest > COLUMNS) return 0;
  if (direct) return cutResolved16(p, i, at, cut, next);
  const lineStart = p;
  if (coloured) {
    p = paintedHex16(p);
    p = caretRuns(p, 0, cut);
  } else {
    plainFrom = 0;
  }
  p = copy16(p, plainRow + plainFrom, caretCell(cut) - plainFrom);
  // The first visual row ends: its colour reset (caretRuns did), or its trailing spaces dropped.
  if (!coloured || cut == 0 || load<u8>(colourOf + <usize>(cut - 1)) == 0) {
    while (p > lineStart && load<u8>(p - 1) == 0x20) p--;
  }
  store<u8>(p, LF);
  p = copy16(p + 1, T_ROW_CONT, contLen);
  plainFrom = caretCell(next);
  if (coloured) p = caretRuns(p, next, 16);
  return copy16(p, plainRow + plainFrom, end - plainRow - plainFrom);
}

/**
 * {@link cutRow16} of an uncoloured row of resolved cells, cut before cell `cut`, the second
 * visual row from cell `next`: the offset and hex column by SIMD and the caret text copied from
 * where resolveRow left it, not through {@link plainRow}.
 */
function cutResolved16(p: usize, i: usize, at: f64, cut: u32, next: u32): usize {
  const lineStart = p;
  p = copy16(simdHex(p, i, <u32>at), caretText, <usize>load<u16>(cellStart + (<usize>cut << 1)));
  while (p > lineStart && load<u8>(p - 1) == 0x20) p--;
  store<u8>(p, LF);
  p = copy16(p + 1, T_ROW_CONT, <usize>load<u8>(T_ROW_CONT_LEN));
  const from = <usize>load<u16>(cellStart + (<usize>next << 1));
  p = copy16(p, caretText + from, <usize>load<u16>(cellStart + 32) - from);
  store<u16>(p, 0x0a7c);
  return p + 2;
}

/**
 * Below this many columns of room for the caret column on a cut row's first visual row, the cut
 * is found from {@link columnsBefore}'s sums, which stay exact (below 255) up to one cell past it.
 */
const CUT_ROOM_MAX: i32 = 200;

/**
 * The columns of resolved cells `[0, k]` in lane k of a row of 16 (saturating at 255), also kept
 * in {@link cumCols}: {@link prefixSums} of {@link cellWidths}.
 */
function columnsBefore(): v128 {
  const s = prefixSums(v128.load(cellWidths));
  v128.store(cumCols, s);
  return s;
}

/** Lane k: the sum of lanes `[0, k]` of `v` (saturating at 255), in four shifted adds. */
function prefixSums(v: v128): v128 {
  const z = i8x16.splat(0);
  let s = v;
  // Shifted by 1, 2, 4 and 8 lanes as consecutive lanes of (zero, s): one byte align each in V8.
  s = i8x16.add_sat_u(s, i8x16.shuffle(z, s, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30));
  s = i8x16.add_sat_u(s, i8x16.shuffle(z, s, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29));
  s = i8x16.add_sat_u(s, i8x16.shuffle(z, s, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27));
  return i8x16.add_sat_u(s, i8x16.shuffle(z, s, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23));
}

/** Whether caret cell `k` of the row (in {@link plainRow}, or resolved) is a space. */
function caretIsSpace(k: u32): bool {
  const from = caretCell(k);
  if (caretCell(k + 1) - from != 1) return false;
  // (A row of resolved cells has its caret text where resolveRow left it, 61 bytes before.)
  return load<u8>(asciiRow ? plainRow + from : caretText + from - 61) == 0x20;
}

/** The bits of the 16 ASCII bytes at `i` whose caret text is two bytes (a control, DEL, \\ ^ < |). */
function twoBytes(i: usize): u32 {
  const v = v128.load(i);
  return <u32>i8x16.bitmask(v128.or(controlLanes(v), escapedLanes(v)));
}

/** The lanes of ASCII bytes `v` that are C0 controls or DEL (caret text `^` and a letter). */
function controlLanes(v: v128): v128 {
  return v128.or(i8x16.lt_u(v, vec(V_20)), i8x16.eq(v, vec(V_7F)));
}

/** The lanes of ASCII bytes `v` that are \ ^ < | (caret text a `\` and the byte). */
function escapedLanes(v: v128): v128 {
  return v128.or(v128.or(i8x16.eq(v, vec(V_5C)), i8x16.eq(v, vec(V_5E))), v128.or(i8x16.eq(v, vec(V_3C)), i8x16.eq(v, vec(V_7C))));
}

/** The caret column of the row's `n` resolved cells (uncoloured), `|` and LF at `p`; returns the end. */
function resolvedCaret(p: usize, n: i32): usize {
  p = copy16(p, caretText, <usize>load<u16>(cellStart + (<usize>n << 1)));
  store<u16>(p, 0x0a7c);
  return p + 2;
}

/** Whether the `n` ASCII bytes at `i` all show as themselves, uncoloured (0x20–0x7E). */
function printable(i: usize, n: i32): bool {
  if (n == 16) {
    const v = v128.load(i);
    return i8x16.all_true(v128.and(i8x16.gt_u(v, vec(V_1F)), i8x16.lt_u(v, vec(V_7F))));
  }
  for (let k = 0; k < n; k++) {
    const b = load<u8>(i + <usize>k);
    if (b < 0x20 || b > 0x7e) return false;
  }
  return true;
}

/** Cell `k`'s caret text (its address), length and columns, as a row's cells are: from the table (ASCII) or as resolved. */
let cellText: usize = 0;
let cellLen: usize = 0;
let cellCols: i32 = 0;
function caretCellOf(i: usize, k: usize): void {
  if (asciiRow) {
    const b = <usize>load<u8>(i + k);
    cellText = T_CARET + (b << 1);
    cellLen = <usize>load<u8>(T_CARET_LEN + b);
    cellCols = <i32>cellLen;
  } else {
    const from = <usize>load<u16>(cellStart + (k << 1));
    cellText = caretText + from;
    cellLen = <usize>load<u16>(cellStart + ((k + 1) << 1)) - from;
    cellCols = <i32>load<u8>(cellWidths + k);
  }
}

/** The colour of cell `k` of a row of `n` (0 past it, or without colour). */
function colourAt(k: i32, n: i32, coloured: bool): u32 {
  return coloured && k >= 0 && k < n ? <u32>load<u8>(colourOf + <usize>k) : 0;
}

/** Any row on one line (any layout), its colours' runs set and reset cell by cell. */
function scalarRow(p: usize, i: usize, at: f64, n: i32, coloured: bool): usize {
  p = scalarHex(p, i, at, n, coloured);
  for (let k = 0; k < n; k++) {
    caretCellOf(i, <usize>k);
    const c = colourAt(k, n, coloured);
    if (c != 0 && c != colourAt(k - 1, n, coloured)) p = paint(p, c);
    p = put(p, cellText, cellLen);
    if (c != 0 && c != colourAt(k + 1, n, coloured)) p = reset(p);
  }
  store<u16>(p, 0x0a7c);
  return p + 2;
}

// A row wider than the terminal is laid out piece by piece, as cutRow lays its pieces out with
// fitRowPieces: a piece that does not fit the visual row ends it and begins a further one
// (`        + `), where a blank piece (a gap, an uncoloured space) is dropped; a colour open at
// the end of a visual row is reset there (a further row begins uncoloured), else its trailing
// spaces are dropped.
let cutP: usize = 0;
let cutLineStart: usize = 0;
let cutCol: i32 = 0;
/** The colour open on the visual row being written (0: none). */
let cutOpen: u32 = 0;

/** Ends the visual row being cut (its colour reset, or its trailing spaces dropped; LF) and begins a further one. */
function newVisualRow(): void {
  closeVisualRow();
  cutLineStart = cutP;
  const contLen = <usize>load<u8>(T_ROW_CONT_LEN);
  cutP = put(cutP, T_ROW_CONT, contLen);
  cutCol = <i32>contLen;
}

/** Ends the visual row being cut: a colour open reset, else its trailing spaces dropped; then LF. */
function closeVisualRow(): void {
  let p = cutP;
  if (cutOpen != 0) {
    p = reset(p);
    cutOpen = 0;
  } else {
    while (p > cutLineStart && load<u8>(p - 1) == 0x20) p--;
  }
  store<u8>(p, LF);
  cutP = p + 1;
}

/**
 * Lays out a piece of `w` columns, colour `c`, its text at `text` (`len` bytes): cut before when
 * it does not fit (dropped there when `blank`), its colour set when it differs from the one open.
 */
function cutPiece(text: usize, len: usize, w: i32, c: u32, blank: bool): void {
  if (cutCol + w > COLUMNS) {
    newVisualRow();
    if (blank) return;
  }
  if (c != cutOpen) {
    if (cutOpen != 0) cutP = reset(cutP);
    if (c != 0) cutP = paint(cutP, c);
    cutOpen = c;
  }
  cutP = put(cutP, text, len);
  cutCol += w;
}

/** The row cut into visual rows that fit the terminal. */
function cutRow(p: usize, i: usize, at: f64, n: i32, coloured: bool, digits: i32, simd: bool): usize {
  cutLineStart = p;
  cutOpen = 0;
  if (digits + FIXED - 1 <= COLUMNS) {
    // The offset and hex column fit the first visual row: written whole (no piece of them is cut).
    if (simd) cutP = coloured ? paintedHex16Of(p, i, at) : simdHex(p, i, <u32>at);
    else cutP = scalarHex(p, i, at, n, coloured);
    cutCol = digits + FIXED - 1;
  } else {
    cutP = writeHex(p, at, DIGITS);
    cutCol = digits;
    for (let k = 0; k < W; k++) {
      const c = colourAt(k, n, coloured);
      const gap = (k & 7) == 0 ? 2 : 1;
      cutPiece(T_SPACES, <usize>gap, gap, k > 0 && c != 0 && c == colourAt(k - 1, n, coloured) ? c : 0, true);
      if (k < n) cutPiece(T_HEX2 + (<usize>load<u8>(i + <usize>k) << 1), 2, 2, c, false);
      else cutPiece(T_SPACES, 2, 2, 0, true);
    }
    cutPiece(T_SPACES, 2, 2, 0, true);
    cutPiece(T_BAR, 1, 1, 0, false);
  }
  for (let k = 0; k < n; k++) {
    caretCellOf(i, <usize>k);
    const c = colourAt(k, n, coloured);
    cutPiece(cellText, cellLen, cellCols, c, c == 0 && cellLen == 1 && load<u8>(cellText) == 0x20);
  }
  cutPiece(T_BAR, 1, 1, 0, false);
  closeVisualRow();
  return cutP;
}

/** {@link paintedHex16} of the row at `i` (offset `at`) from its plain text. */
function paintedHex16Of(p: usize, i: usize, at: f64): usize {
  simdHex(plainRow, i, <u32>at);
  p = paintedHex16(p);
  return copy16(p, plainRow + plainFrom, 61 - plainFrom);
}

/** The offset and hex column (with `  |`) of any row, its runs coloured cell by cell. */
function scalarHex(p: usize, i: usize, at: f64, n: i32, coloured: bool): usize {
  p = writeHex(p, at, DIGITS);
  for (let k = 0; k < W; k++) {
    store<u16>(p, 0x2020);
    p += (k & 7) == 0 ? 2 : 1;
    if (k >= n) {
      p = spaces(p, 2);
      continue;
    }
    const c = colourAt(k, n, coloured);
    if (c != 0 && c != colourAt(k - 1, n, coloured)) p = paint(p, c);
    store<u16>(p, load<u16>(T_HEX2 + (<usize>load<u8>(i + <usize>k) << 1)));
    p += 2;
    if (c != 0 && c != colourAt(k + 1, n, coloured)) p = reset(p);
  }
  store<u32>(p, 0x7c2020);
  return p + 3;
}

/**
 * The offset and hex column of a row of 16 bytes at `i` (offset `at`, `at + 16 <= 2^32`) in the
 * default layout, uncoloured, with the `  |` after them, by SIMD: shuffles of the nibbles through
 * the digit table. Returns the end (61 bytes on).
 */
function simdHex(p: usize, i: usize, at: u32): usize {
  const digitsTable = v128.load(T_HEX);
  const nibble = vec(V_0F);
  const o = i8x16.swizzle(i32x4.splat(<i32>at), vec(V_OFFSET_BYTES));
  // A byte's high nibble: a 16-bit shift and the nibble mask (V8 writes i8x16.shr_u as the same
  // shift and a mask of its own, built each time).
  let hi = i8x16.swizzle(digitsTable, v128.and(i16x8.shr_u(o, 4), nibble));
  let lo = i8x16.swizzle(digitsTable, v128.and(o, nibble));
  // (Whole interleaves, here and below: V8 writes each as one unpack.)
  v128.store64_lane(p, i8x16.shuffle(hi, lo, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23), 0);
  const v = v128.load(i);
  hi = i8x16.swizzle(digitsTable, v128.and(i16x8.shr_u(v, 4), nibble));
  lo = i8x16.swizzle(digitsTable, v128.and(v, nibble));
  const d = i8x16.shuffle(hi, lo, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const e = i8x16.shuffle(hi, lo, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  // `  h0l0 h1l1 h2l2 h3l3 h4l4`, ` h5l5 h6l6 h7l7  h8l8 h9l9`, ` h10l10 … h14l14 `, `h15l15  |`:
  // each a swizzle by constant lanes (-1: zero) with the spaces and bar put in by OR. V8 writes a
  // constant swizzle as one byte shuffle; a shuffle of the digits with a vector of spaces took two
  // and their merge (5.7 % fewer instructions for the whole plain dump).
  v128.store(p + 8, v128.or(i8x16.swizzle(d, vec(V_HEX_A)), vec(V_HEX_A_SPACES)));
  v128.store(p + 24, v128.or(v128.or(i8x16.swizzle(d, vec(V_HEX_B_D)), i8x16.swizzle(e, vec(V_HEX_B_E))), vec(V_HEX_B_SPACES)));
  v128.store(p + 40, v128.or(i8x16.swizzle(e, vec(V_HEX_C)), vec(V_HEX_C_SPACES)));
  v128.store(p + 56, v128.or(i8x16.swizzle(e, vec(V_HEX_D)), vec(V_HEX_D_SPACES)));
  return p + 61;
}

/** The most bytes a row of {@link asciiStretch} takes (a painted row of 16 cells, and 16 for the last store). */
export const STRETCH_ROW_BYTES: usize = 61 + 32 + 2 + 32 * 12 + 16;

/** Rows the last {@link asciiStretch} wrote. */
export let stretchRows: i32 = 0;

/**
 * Writes up to `rows` rows of 16 ASCII bytes from `i` (offset `at`, below 2^32 after them) at
 * `p`, as {@link writeRow} writes rows that no span colours (none is kept, and none starts in
 * them) and that fit the terminal: with colour, a control's cell painted by the table. Stops
 * before a row that is not such a row (a byte from 0x80, or wider than the terminal); returns
 * the end ({@link stretchRows}: how many). For the stretches between spans: one call, no per-row
 * work outside the loop.
 */
export function asciiStretch(p: usize, i: usize, at: f64, rows: i32): usize {
  stretchRows = 0;
  if (!SIMD || seqEnd > at || (COLOUR && actN > 0)) return p;
  // In the default layout a row of 16 one-column cells is 78 columns; each two-column cell adds one.
  const room = COLUMNS - 78;
  let r = 0;
  let a = <u32>at;
  for (; r < rows; r++) {
    const v = v128.load(i);
    if (i8x16.bitmask(v) != 0) break;
    const controls = controlLanes(v);
    const anyControl = v128.any_true(controls);
    const escaped = escapedLanes(v);
    if (room < 16 && <i32>popcnt(<u32>i8x16.bitmask(v128.or(controls, escaped))) > room) break;
    if (COLOUR && anyControl) {
      // Each cell's colour outside spans (as colourRow16 takes it).
      v128.store(colourOf, asciiColours(v));
      asciiRow = true;
      p = paintedRow16(p, i, <f64>a);
    } else {
      p = caretOf(simdHex(p, i, a), v, controls, escaped);
    }
    i += 16;
    a += 16;
  }
  stretchRows = r;
  return p;
}

/**
 * Where each caret byte of 8 ASCII bytes comes from, by which of them take two bytes (bit k: byte
 * k): for each half of a row (the second half's lanes are 8–15) and each such mask, 16 lanes of
 * the first bytes' vector then 16 of the second bytes' (a lane of 0xff: none). See {@link asciiCaret}.
 */
let spread: usize = 0;

function fillSpread(): void {
  spread = alloc(2 * 256 * 32);
  memory.fill(spread, 0xff, 2 * 256 * 32);
  for (let h = 0; h < 2; h++) {
    for (let m = 0; m < 256; m++) {
      const first = spread + <usize>((h * 256 + m) * 32);
      const second = first + 16;
      let j: usize = 0;
      for (let k = 0; k < 8; k++) {
        const lane = <u8>(k + 8 * h);
        store<u8>(first + j, lane);
        j++;
        if (((m >> k) & 1) != 0) {
          store<u8>(second + j, lane);
          j++;
        }
      }
    }
  }
}

/**
 * The caret column of 16 ASCII bytes at `i`, uncoloured, then `|` and LF, at `q`: 16 bytes that
 * show as themselves (0x20–0x7E but \ ^ < |) in one store, else each half spread by a table: a
 * control or DEL is `^` and the byte's letter, \ ^ < | take a `\` before them (engine.ts checks
 * that the caret table says so). Up to 8 bytes past the end are written over.
 */
function asciiCaret(q: usize, i: usize): usize {
  const v = v128.load(i);
  return caretOf(q, v, controlLanes(v), escapedLanes(v));
}

/** {@link asciiCaret} of the bytes `v`, their {@link controlLanes} and {@link escapedLanes} (the callers have them). */
function caretOf(q: usize, v: v128, controls: v128, escaped: v128): usize {
  const two = v128.or(controls, escaped);
  if (!v128.any_true(two)) {
    v128.store(q, v);
    q += 16;
  } else {
    // First bytes: `^` for a control, `\` for an escaped byte, else the byte; second bytes: a
    // control's letter (DEL's `?`), else the byte.
    const first = v128.bitselect(vec(V_5E), v128.bitselect(vec(V_5C), v, escaped), controls);
    const letter = v128.bitselect(vec(V_3F), i8x16.add(v, vec(V_40)), i8x16.eq(v, vec(V_7F)));
    const second = v128.bitselect(letter, v, controls);
    const m = <u32>i8x16.bitmask(two);
    const lo = spread + (<usize>(m & 255) << 5);
    v128.store(q, v128.or(i8x16.swizzle(first, v128.load(lo)), i8x16.swizzle(second, v128.load(lo, 16))));
    q += 8 + <usize>popcnt(m & 255);
    const hi = spread + 8192 + (<usize>(m >> 8) << 5);
    v128.store(q, v128.or(i8x16.swizzle(first, v128.load(hi)), i8x16.swizzle(second, v128.load(hi, 16))));
    q += 8 + <usize>popcnt(m >> 8);
  }
  store<u16>(q, 0x0a7c);
  return q + 2;
}
