import type { Cell } from './cell';
import { leadCellForCodePoint } from './codepoint';
import { ASCII_CELLS, C1_CELLS, CONTINUATION_CELL, INVALID_CELLS, PARTIAL_CELLS } from './notation';
import {
  SEQ_ILL_FORMED, SEQ_LENGTH_MASK, SEQ_TRUNCATED, SEQ_VALID, codePointAt, isContinuation, sequenceAt,
} from './utf8';

/** The longest UTF-8 character is 4 bytes, so 3 neighbours on either side settle any byte. */
export const MAX_NEIGHBOUR_BYTES = 3;

/**
 * Where a window of bytes sits in its stream, so UTF-8 characters cut by the window's edges are
 * decoded as the whole stream would decode them.
 */
export interface ByteWindow {
  /**
   * Up to 3 bytes that precede `bytes[0]` in the stream (more are allowed; only the last 3 are
   * read). Omitted: nothing precedes when `baseOffset` is 0, otherwise the preceding bytes are
   * unknown and continuation bytes at the window's start become `partial`.
   */
  readonly context?: Uint8Array;
  /**
   * Up to 3 bytes that follow the window in the stream (only the first 3 are read); fewer than 3
   * means the stream ends after them, so an empty array marks end of stream. Omitted: the bytes
   * after the window are unknown and a character cut by the window's end becomes `partial`.
   */
  readonly lookahead?: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/**
 * A byte's cell as a number, so a window's cells are one typed array (no object per byte): these
 * bases plus the byte (or code point); an ASCII byte's cell is its own. {@link cellOfCode} gives
 * the cell.
 */
export const enum CellCode {
  /** `+ byte`: a byte of ill-formed UTF-8. */
  Invalid = 0x100,
  /** `+ byte`: a byte whose meaning depends on unseen neighbours. */
  Partial = 0x200,
  /** `+ byte`: a raw 0x80–0x9F byte no UTF-8 sequence claims. */
  C1 = 0x300,
  /** A continuation byte of a well-formed character. */
  Continuation = 0x400,
  /** `+ code point`: the lead byte of a well-formed character. */
  Lead = 0x200000,
}

/** The cell a {@link CellCode} (or an ASCII byte) stands for. */
export function cellOfCode(code: number): Cell {
  if (code < 0x80) return ASCII_CELLS[code];
  if (code >= CellCode.Lead) return leadCellForCodePoint(code - CellCode.Lead);
  if (code === CellCode.Continuation) return CONTINUATION_CELL;
  if (code >= CellCode.C1) return C1_CELLS[code - CellCode.C1 - 0x80];
  if (code >= CellCode.Partial) return PARTIAL_CELLS[code - CellCode.Partial];
  return INVALID_CELLS[code - CellCode.Invalid];
}

/**
 * A {@link CellCode} whose cell is `cell` (the cell of byte `b`): what writes the same text. The
 * inverse of {@link cellOfCode}, for cells made by this module.
 */
export function codeOfCell(cell: Cell, b: number): number {
  switch (cell.kind) {
    case 'utf8-cont':
      return CellCode.Continuation;
    case 'invalid':
      return CellCode.Invalid + b;
    case 'partial':
      return CellCode.Partial + b;
    case 'c1':
      // A raw C1 byte, or the lead byte (C2) of U+0080–U+009F: the same name either way.
      return CellCode.C1 + 0x80 + C1_CELLS.indexOf(cell);
    case 'utf8-lead':
      return CellCode.Lead + cell.text.codePointAt(0)!;
    case 'utf8-escaped':
    case 'invisible':
      // `<U+XXXX>`
      return CellCode.Lead + parseInt(cell.text.slice(3, -1), 16);
    default:
      return b;
  }
}

/**
 * One caret-column cell per byte of `bytes`, the window at stream offset `baseOffset`. A
 * well-formed multi-byte character gets its lead cell on its first byte and continuation cells on
 * the rest, even when those lie in the context or lookahead; bytes of an ill-formed subsequence
 * are `invalid` (a lone 0x80–0x9F byte is `c1`). Cells are shared frozen objects.
 *
 * @throws RangeError if `baseOffset` is not a non-negative safe integer, or `context` is longer
 *   than `baseOffset` (bytes cannot precede the stream's start).
 */
export function formatCells(bytes: Uint8Array, baseOffset: number, window: ByteWindow = {}): Cell[] {
  const codes = new Int32Array(bytes.length);
  decodeCells(bytes, baseOffset, window, codes, 0);
  return Array.from(codes, (code, i) => (bytes[i] < 0x80 ? ASCII_CELLS[bytes[i]] : cellOfCode(code)));
}

/**
 * The one decoder of caret cells: the {@link CellCode} of each byte of the window `bytes` (as
 * {@link formatCells} decides its cell) into `codes[at..at + bytes.length)`, except an ASCII
 * byte's: its cell is always its own (ASCII_CELLS), so its code is left as it was.
 *
 * @throws RangeError as {@link formatCells} does.
 */
export function decodeCells(bytes: Uint8Array, baseOffset: number, window: ByteWindow, codes: Int32Array, at: number): void {
  assertWindow(baseOffset, window);
  const { context, lookahead } = window;
  const startUnknown =
    context === undefined ? baseOffset > 0 : context.length < MAX_NEIGHBOUR_BYTES && baseOffset > context.length;
  const carried = decodeCarriedIn(bytes, context ?? EMPTY, startUnknown, lookahead, codes, at);
  decodeFrom(bytes, carried, lookahead, codes, at);
}

/**
 * Checks where a window claims to sit in its stream.
 *
 * @throws RangeError if `baseOffset` is not a non-negative safe integer, or `context` is longer
 *   than `baseOffset` (bytes cannot precede the stream's start).
 */
export function assertWindow(baseOffset: number, window: ByteWindow): void {
  if (!Number.isSafeInteger(baseOffset) || baseOffset < 0) {
    throw new RangeError(`baseOffset must be a non-negative safe integer, got ${baseOffset}`);
  }
  const context = window.context;
  if (context !== undefined && context.length > baseOffset) {
    throw new RangeError(`context holds ${context.length} bytes but only ${baseOffset} precede the window`);
  }
}

/**
 * Writes cells for the window bytes that belong to a sequence begun before the window (in the
 * context, or in unknown bytes before it) and returns how many window bytes that was.
 */
function decodeCarriedIn(
  bytes: Uint8Array,
  context: Uint8Array,
  startUnknown: boolean,
  lookahead: Uint8Array | undefined,
  codes: Int32Array,
  to: number,
): number {
  const ctx = context.subarray(Math.max(0, context.length - MAX_NEIGHBOUR_BYTES));
  const head = joinHead(ctx, bytes, lookahead);
  const ctxLength = ctx.length;
  const windowEnd = ctxLength + bytes.length;
  let at = 0;
  if (startUnknown) {
    // A character that began in the unseen bytes can reach at most 3 bytes past them.
    while (at < MAX_NEIGHBOUR_BYTES && at < head.length && isContinuation(head[at])) at++;
    for (let j = ctxLength; j < Math.min(at, windowEnd); j++) codes[to + j - ctxLength] = CellCode.Partial + head[j];
  }
  // Decoding from the context's first byte reaches the true state at the window's start: a
  // character covering bytes[0] begins at most 3 bytes earlier, and any sequence we enter midway
  // is only continuation bytes, which we skip one by one until we are back in step.
  while (at < ctxLength) {
    if (head[at] < 0x80) {
      at++;
      continue;
    }
    let packed = sequenceAt(head, at, head.length);
    const length = packed & SEQ_LENGTH_MASK;
    if ((packed & ~SEQ_LENGTH_MASK) === SEQ_TRUNCATED && lookahead !== undefined) {
      packed = SEQ_ILL_FORMED | length; // head holds every remaining byte: the stream ended
    }
    const status = packed & ~SEQ_LENGTH_MASK;
    for (let j = ctxLength; j < Math.min(at + length, windowEnd); j++) {
      const k = to + j - ctxLength;
      if (status === SEQ_VALID) codes[k] = CellCode.Continuation;
      else if (status === SEQ_ILL_FORMED) codes[k] = CellCode.Invalid + head[j];
      else codes[k] = CellCode.Partial + head[j];
    }
    at += length;
  }
  return Math.min(Math.max(0, at - ctxLength), bytes.length);
}

/** `ctx`, then enough window (and, for a short window, lookahead) bytes to finish any character. */
function joinHead(ctx: Uint8Array, bytes: Uint8Array, lookahead: Uint8Array | undefined): Uint8Array {
  const fromWindow = Math.min(bytes.length, MAX_NEIGHBOUR_BYTES);
  const fromLookahead =
    lookahead === undefined ? 0 : Math.min(lookahead.length, MAX_NEIGHBOUR_BYTES - fromWindow);
  const head = new Uint8Array(ctx.length + fromWindow + fromLookahead);
  head.set(ctx, 0);
  head.set(bytes.subarray(0, fromWindow), ctx.length);
  if (fromLookahead > 0) head.set(lookahead!.subarray(0, fromLookahead), ctx.length + fromWindow);
  return head;
}

/** Decodes the cells of `bytes[from..]`, where `from` is the start of a new sequence, into `codes` from `to`. */
function decodeFrom(bytes: Uint8Array, from: number, lookahead: Uint8Array | undefined, codes: Int32Array, to: number): void {
  const end = bytes.length;
  // Runs of ASCII (most text) are skipped four bytes at a time where a word is aligned.
  const base = bytes.byteOffset;
  const words = new Uint32Array(bytes.buffer, 0, bytes.buffer.byteLength >> 2);
  let at = from;
  while (at < end) {
    const b = bytes[at];
    if (b < 0x80) {
      at++;
      if (((base + at) & 3) === 0) while (at + 4 <= end && (words[(base + at) >> 2] & 0x80808080) === 0) at += 4;
      continue;
    }
    let source = bytes;
    let sourceAt = at;
    let packed = sequenceAt(bytes, at, end);
    if ((packed & ~SEQ_LENGTH_MASK) === SEQ_TRUNCATED && lookahead !== undefined) {
      // Only the last 3 bytes can be cut off, so this copy happens at most 3 times per window.
      source = joinTail(bytes, at, lookahead);
      sourceAt = 0;
      packed = sequenceAt(source, 0, source.length);
      if ((packed & ~SEQ_LENGTH_MASK) === SEQ_TRUNCATED) packed = SEQ_ILL_FORMED | (packed & SEQ_LENGTH_MASK);
    }
    const length = packed & SEQ_LENGTH_MASK;
    const stop = Math.min(at + length, end);
    switch (packed & ~SEQ_LENGTH_MASK) {
      case SEQ_VALID:
        codes[to + at] = CellCode.Lead + codePointAt(source, sourceAt, length);
        for (let j = at + 1; j < stop; j++) codes[to + j] = CellCode.Continuation;
        break;
      case SEQ_ILL_FORMED:
        // A byte that no sequence claimed is C1 when it is 0x80–0x9F; inside a failed sequence it
        // is just a broken piece of a character, as a UTF-8 terminal would treat it.
        if (length === 1 && b < 0xa0) codes[to + at] = CellCode.C1 + b;
        else for (let j = at; j < stop; j++) codes[to + j] = CellCode.Invalid + bytes[j];
        break;
      default:
        for (let j = at; j < stop; j++) codes[to + j] = CellCode.Partial + bytes[j];
    }
    at += length;
  }
}

/** `bytes[at..]` followed by the first 3 lookahead bytes. */
function joinTail(bytes: Uint8Array, at: number, lookahead: Uint8Array): Uint8Array {
  const rest = bytes.length - at;
  const fromLookahead = Math.min(lookahead.length, MAX_NEIGHBOUR_BYTES);
  const tail = new Uint8Array(rest + fromLookahead);
  tail.set(bytes.subarray(at), 0);
  tail.set(lookahead.subarray(0, fromLookahead), rest);
  return tail;
}
