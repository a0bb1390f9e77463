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
 * One caret-column cell per byte of `bytes`, the window at stream offset `baseOffset`. A
 * well-formed multi-byte character gets its lead cell on its first byte and continuation cells on
 * the rest, even when those lie in the context or lookahead; bytes of an ill-formed subsequence
 * are `invalid` (a lone 0x80–0x9F byte is `c1`). Cells are shared frozen objects.
 *
 * @throws RangeError if `baseOffset` is not a non-negative safe integer, or `context` is longer
 *   than `baseOffset` (bytes cannot precede the stream's start).
 */
export function formatCells(bytes: Uint8Array, baseOffset: number, window: ByteWindow = {}): Cell[] {
  const cells = new Array<Cell>(bytes.length);
  writeCells(bytes, baseOffset, window, new CellWriter([cells]));
  return cells;
}

/**
 * Receives cells in byte order and stores them into consecutive chunks (rows), so rows are filled
 * directly: no window-sized intermediate array, no copying. A flat array is one chunk.
 */
export class CellWriter {
  private chunk = 0;
  private column = 0;

  /** `chunks` must together hold exactly one slot per byte of the window. */
  constructor(private readonly chunks: Cell[][]) {}

  /** Stores the next byte's cell. */
  put(cell: Cell): void {
    let current = this.chunks[this.chunk];
    if (this.column === current.length) {
      current = this.chunks[++this.chunk];
      this.column = 0;
    }
    current[this.column++] = cell;
  }
}

/**
 * Decodes the window like {@link formatCells} and hands its cells, in byte order, to `out`.
 *
 * @throws RangeError as {@link formatCells} does.
 */
export function writeCells(bytes: Uint8Array, baseOffset: number, window: ByteWindow, out: CellWriter): void {
  assertWindow(baseOffset, window);
  const { context, lookahead } = window;
  const startUnknown =
    context === undefined ? baseOffset > 0 : context.length < MAX_NEIGHBOUR_BYTES && baseOffset > context.length;
  const carried = writeCarriedIn(bytes, context ?? EMPTY, startUnknown, lookahead, out);
  writeFrom(bytes, carried, lookahead, out);
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
function writeCarriedIn(
  bytes: Uint8Array,
  context: Uint8Array,
  startUnknown: boolean,
  lookahead: Uint8Array | undefined,
  out: CellWriter,
): number {
  const ctx = context.subarray(Math.max(0, context.length - MAX_NEIGHBOUR_BYTES));
  const head = joinHead(ctx, bytes, lookahead);
  const ctxLength = ctx.length;
  const windowEnd = ctxLength + bytes.length;
  let at = 0;
  if (startUnknown) {
    // A character that began in the unseen bytes can reach at most 3 bytes past them.
    while (at < MAX_NEIGHBOUR_BYTES && at < head.length && isContinuation(head[at])) at++;
    for (let j = ctxLength; j < Math.min(at, windowEnd); j++) out.put(PARTIAL_CELLS[head[j]]);
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
      if (status === SEQ_VALID) out.put(CONTINUATION_CELL);
      else if (status === SEQ_ILL_FORMED) out.put(INVALID_CELLS[head[j]]);
      else out.put(PARTIAL_CELLS[head[j]]);
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

/** Writes the cells of `bytes[from..]`, where `from` is the start of a new sequence. */
function writeFrom(bytes: Uint8Array, from: number, lookahead: Uint8Array | undefined, out: CellWriter): void {
  const end = bytes.length;
  let at = from;
  while (at < end) {
    const b = bytes[at];
    if (b < 0x80) {
      out.put(ASCII_CELLS[b]);
      at++;
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
        out.put(leadCellForCodePoint(codePointAt(source, sourceAt, length)));
        for (let j = at + 1; j < stop; j++) out.put(CONTINUATION_CELL);
        break;
      case SEQ_ILL_FORMED:
        // A byte that no sequence claimed is C1 when it is 0x80–0x9F; inside a failed sequence it
        // is just a broken piece of a character, as a UTF-8 terminal would treat it.
        if (length === 1 && b < 0xa0) out.put(C1_CELLS[b - 0x80]);
        else for (let j = at; j < stop; j++) out.put(INVALID_CELLS[bytes[j]]);
        break;
      default:
        for (let j = at; j < stop; j++) out.put(PARTIAL_CELLS[bytes[j]]);
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
