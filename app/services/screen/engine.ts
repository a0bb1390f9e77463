// The screen engine: what a person looking at a terminal saw, against what the bytes say. The
// sanitized text keeps every character the bytes print; a terminal may then erase it, overwrite it
// (CR, cursor moves), conceal it (SGR 8) or draw it in its background colour. This runs the bytes
// through a real emulator (xterm.js, headless) and reports the raw byte ranges of characters that
// were printed but are not visible at the end, and how they were hidden.
//
// How a character is followed through the emulator: two terminals get the same bytes. A gets them
// as they are (the screen and its attributes). B gets every control as it is, but every printed
// character replaced by a tag of the same cell width (a private-use code point for narrow ones, a
// CJK ideograph for wide ones) that, with a 24-bit foreground colour set just before it, encodes
// the character's number. Both terminals lay out cells alike (widths and controls are the same),
// so B's final cells say exactly which input character each visible cell shows, whatever moved it
// (inserts, deletes, scroll regions, the alternate screen). Erasing controls are bracketed by
// snapshots of B's tags, so what vanished there is `erased` (by that control); what vanished
// elsewhere was printed over: `overwritten`.
import xterm from '@xterm/headless';
import { WITHHELD_CELL, type ScreenFindingView } from '../../../shared/bridge/types';
import { SpanClass } from '../../../shared/parser/span-class';
import { Sanitizer } from '../../../shared/sanitize';
import { CharTable } from './chars';
import { boundCounts } from './counts';
import { Palette } from './colours';
import { erasing, Reach, startsSequence } from './erasing';

const { Terminal } = xterm;
type TerminalT = InstanceType<typeof Terminal>;

/** How a character that was printed is hidden at the end. */
export type FindingKind = ScreenFindingView['kind'];

/**
 * A raw byte range of printed text a terminal did not show at the end: the bridge's
 * ScreenFindingView (there its text is made inert; here it is as printed, so escape it before it
 * reaches a terminal).
 */
export type ScreenFinding = ScreenFindingView;

export interface ScreenOptions {
  readonly cols?: number;
  readonly rows?: number;
  /** Scrollback lines the emulator keeps (characters scrolled out past it are not findings: see `scrolledOut`). */
  readonly scrollback?: number;
  /** Findings kept (the first by offset; `counts` counts every one). Default: all. */
  readonly maxFindings?: number;
  /** Characters of a finding's text kept (its offset and length still cover it all). Default: all. */
  readonly maxFindingText?: number;
  /** The input's length when known: the snapshot budget is per byte of it (default: per byte so far). */
  readonly expectedBytes?: number;
  /** reconstructScreen: bytes written at a time (default SCREEN_PIECE_BYTES; tests). */
  readonly pieceBytes?: number;
}

export interface ScreenReport {
  readonly cols: number;
  readonly rows: number;
  /** The emulator and its version: another terminal may lay some characters out differently. */
  readonly emulator: string;
  /** The findings, by offset (at most ScreenOptions.maxFindings). */
  readonly findings: ScreenFinding[];
  /** Every finding counted (also those past maxFindings), and the characters printed and scrolled out. */
  readonly counts: Record<FindingKind, number> & { printed: number; scrolledOut: number };
  /**
   * The visible screen at the end (A's active buffer; untrusted text), as the sanitized text has
   * it: a cell drawn from bytes the sanitizer removed or withheld is WITHHELD_CELL.
   */
  readonly screen: string[];
  /** Cells of `screen` shown as WITHHELD_CELL. */
  readonly withheldCells: number;
  /** Bytes fed to the emulators before the sanitizer decided them (see ScreenEngine.write); their characters are not followed. */
  readonly unfollowedBytes: number;
  /** The alternate screen was still active at the end (what the normal screen held is behind it). */
  readonly alternateScreen: boolean;
  /**
   * Both terminals laid every cell out alike (they must: only printed characters differ, by
   * tags of the same width). False means the emulator parsed something differently around a
   * tag (it should not happen); findings after `divergedAtLine` may then be wrong.
   */
  readonly layoutVerified: boolean;
  readonly divergedAtLine: number | null;
  /**
   * Every erasing control was bracketed by snapshots, so each `erased` finding names its control
   * (`by`). False when the snapshot budget ran out (input that erases a large screen over and
   * over): later erasures are still found (a character gone from a cell no later one covers) but
   * without their cause.
   */
  readonly causesComplete: boolean;
  /** Screen cells the snapshots read: at most SNAPSHOT_CELLS_PER_BYTE per input byte (+ a fixed allowance). */
  readonly snapshotCells: number;
  /** Most characters the engine followed at once (bounded by the buffers' cells, not by the input). */
  readonly peakChars: number;
}

export const SCREEN_DEFAULTS = { cols: 80, rows: 24, scrollback: 10_000 } as const;

/** Tags: 14 bits in the code point, the rest in a 24-bit foreground colour (0xffffff is no tag). */
const LOW_BITS = 14;
const LOW_MASK = (1 << LOW_BITS) - 1;
const NARROW_TAG = 0xf0000;
const WIDE_TAG = 0x4e00;
const SENTINEL = 0xffffff;
const MAX_CHARS = SENTINEL * (1 << LOW_BITS);
const utf8 = new TextEncoder();

/**
 * Snapshots are bounded by the input, so the engine stays linear whatever the bytes: an erasing
 * control costs a screen (or a line) of cells, and 4 bytes of `ESC [ 2 J` on a 1000x1000
 * terminal would otherwise cost a million cells each.
 */
const SNAPSHOT_CELLS_PER_BYTE = 32;
const SNAPSHOT_CELLS_BASE = 2_000_000;

interface Internals {
  _core: {
    writeSync(data: Uint8Array | string): void;
    _inputHandler?: { _parser?: { currentState: number; precedingJoinState: number } };
    unicodeService: { wcwidth(cp: number): number };
    _bufferService?: { buffers?: { normal?: { lines?: { onTrim?(cb: (n: number) => void): unknown } } } };
  };
}

function makeTerminal(cols: number, rows: number, scrollback: number): TerminalT {
  // convertEol: a transcript's LF reached the screen through a tty, whose output processing
  // (onlcr) made it CR LF; without it every line would start where the last one ended.
  const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off', convertEol: true });
  boundCounts(term, cols, rows);
  return term;
}

/** The tag of character `i` at `width`, and the colour its high bits need. */
function tagOf(i: number, width: number): { cp: number; high: number } {
  return { cp: (width === 2 ? WIDE_TAG : NARROW_TAG) + (i & LOW_MASK), high: Math.floor(i / (1 << LOW_BITS)) };
}

function sgrRgb(high: number): string {
  return `\x1b[38;2;${(high >>> 16) & 255};${(high >>> 8) & 255};${high & 255}m`;
}

const SENTINEL_SGR = utf8.encode(sgrRgb(SENTINEL));

/** The character number a cell of B shows, or -1. */
function tagAt(cell: { getChars(): string; isFgRGB(): boolean; getFgColor(): number; getWidth(): number }): number {
  const chars = cell.getChars();
  if (chars === '' || !cell.isFgRGB()) return -1;
  const cp = chars.codePointAt(0) ?? 0;
  const width = cell.getWidth();
  const base = width === 2 ? WIDE_TAG : width === 1 ? NARROW_TAG : -1;
  if (base < 0 || cp < base || cp > base + LOW_MASK) return -1;
  const high = cell.getFgColor();
  if (high === SENTINEL) return -1;
  return high * (1 << LOW_BITS) + (cp - base);
}

/** Bytes reconstructScreen feeds the engine at a time (see ScreenEngine.write). */
export const SCREEN_PIECE_BYTES = 64 << 10;
/**
 * Bytes the sanitizer may leave undecided (an open sequence or string, a disagreement between the
 * readings) before the engine feeds them as they are, unfollowed: what it holds back is bounded.
 */
const MAX_UNDECIDED = 8 << 20;
/** Fewest characters printed between two sweeps (a sweep reads every cell of both of B's buffers). */
const SWEEP_MIN_ROWS = 1 << 20;
/** Zero-width characters kept per cell for the screen view (a cell holding more shows the first ones). */
const MAX_MARKS = 16;

/**
 * The screen engine on a stream: {@link write} the raw bytes in order (any amount at a time), then
 * {@link end}. Linear in the input (every character is followed once; snapshots only bracket
 * erasing controls, each costing one screen) and bounded in memory whatever its length: it holds
 * the bytes the sanitizer has not decided yet (at most MAX_UNDECIDED), the two emulators, and the
 * characters still on screen plus those printed since the last sweep (~40 bytes each); a sweep
 * settles every character that left both buffers. Where a stream is cut into writes does not
 * change what is found, except where the sweeps fall (after about SWEEP_MIN_ROWS characters, or
 * as many as the buffers have cells): a character that left the screen is then settled as
 * overwritten or erased by what holds its cell at that sweep rather than at the end, and a
 * hidden run settled across two sweeps counts as two findings. reconstructScreen and the
 * viewer's worker both write SCREEN_PIECE_BYTES at a time, so they agree.
 */
export class ScreenEngine {
  readonly cols: number;
  readonly rows: number;
  private readonly a: TerminalT;
  /** The colours A draws with: OSC 4/10/11 (and their resets) change them; xterm.js passes them on. */
  private readonly palette = new Palette();
  private readonly b: TerminalT;
  private readonly ai: Internals['_core'];
  private readonly bi: Internals['_core'];
  /** B's parser, to feed tags only where it is in ground. */
  private readonly parser: { currentState: number; precedingJoinState: number } | undefined;
  /** Lines dropped off the top of B's scrollback: characters on them scrolled out, not hidden. */
  private trimmed = 0;
  private readonly chars = new CharTable();
  private readonly work = { cells: 0 };
  private causesComplete = true;
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });
  private tagColour = -1;
  private readonly sanitizer: Sanitizer;
  /**
   * How far the sanitizer's parser has printed text: a character printed at an offset means every
   * byte before it is decided (SanitizerHooks.onText), which is what lets the engine feed a stream
   * it has not seen to its end. LF and TAB do not count: they are kept text even when executed
   * inside an open sequence. (The spans alone cannot say it either: a control inside an open
   * sequence is reported before the sequence.)
   */
  private printedTo = 0;
  /** Removed spans reported and not fed yet, as `[start, end)` pairs. */
  private spans: number[] = [];
  /** End of the last span reported that no later span can start before (not a C0 control or withheld text, which an open sequence may hold). */
  private solid = 0;
  /** The bytes not fed yet: `held[0, heldLen)` are the stream's bytes from `base` on. */
  private held = new Uint8Array(SCREEN_PIECE_BYTES);
  private heldLen = 0;
  private base = 0;
  private unfollowed = 0;
  /** The snapshot budget's input length (ScreenOptions.expectedBytes), or 0: the bytes so far. */
  private readonly expectedBytes: number;
  /** Findings of characters settled so far (the first maxFindings by offset), and every one counted. */
  private findings: ScreenFinding[] = [];
  private readonly counts: Record<FindingKind, number> = { overwritten: 0, erased: 0, concealed: 0, same_colour: 0 };
  private scrolledOut = 0;
  private readonly maxFindings: number;
  private readonly maxFindingText: number;
  private nextSweep = SWEEP_MIN_ROWS;
  private ended = false;

  constructor(options: ScreenOptions = {}) {
    this.cols = options.cols ?? SCREEN_DEFAULTS.cols;
    this.rows = options.rows ?? SCREEN_DEFAULTS.rows;
    const scrollback = options.scrollback ?? SCREEN_DEFAULTS.scrollback;
    this.maxFindings = options.maxFindings ?? Number.POSITIVE_INFINITY;
    this.maxFindingText = options.maxFindingText ?? Number.POSITIVE_INFINITY;
    this.expectedBytes = options.expectedBytes ?? 0;
    this.a = makeTerminal(this.cols, this.rows, scrollback);
    this.b = makeTerminal(this.cols, this.rows, scrollback);
    for (const ident of [4, 10, 11, 104, 110, 111]) this.a.parser.registerOscHandler(ident, (data) => (this.palette.osc(ident, data), false));
    this.ai = (this.a as unknown as Internals)._core;
    this.bi = (this.b as unknown as Internals)._core;
    if (typeof this.bi.writeSync !== 'function' || typeof this.bi.unicodeService?.wcwidth !== 'function') {
      throw new Error('this @xterm/headless has no synchronous write or wcwidth: the screen engine needs xterm.js 6');
    }
    this.bi._bufferService?.buffers?.normal?.lines?.onTrim?.((n: number) => (this.trimmed += n));
    this.parser = this.bi._inputHandler?._parser;
    this.sanitizer = new Sanitizer({
      reuseOutputBuffer: true,
      hooks: {
        onSpan: (cls, offset, length) => {
          this.spans.push(offset, offset + length);
          if (cls !== SpanClass.C0 && cls !== SpanClass.Withheld && offset + length > this.solid) this.solid = offset + length;
        },
        onText: (bytes, start, end, offset) => {
          for (let k = end - 1; k >= start; k--) {
            if (bytes[k] === 0x0a || bytes[k] === 0x09) continue;
            this.printedTo = Math.max(this.printedTo, offset + (k - start) + 1);
            break;
          }
        },
      },
    });
  }

  /** Bytes written so far. */
  get bytesIn(): number {
    return this.base + this.heldLen;
  }

  /** Feeds the next bytes of the stream (the array may be reused once this returns). */
  write(chunk: Uint8Array): void {
    if (this.ended) throw new Error('ScreenEngine.write called after end()');
    this.sanitizer.write(chunk);
    this.hold(chunk);
    // What the sanitizer has decided: all of it when its parser is at rest, else up to the text it
    // printed last or the last span no later one can start before.
    this.advance(this.sanitizer.parserAtRest ? this.bytesIn : Math.max(this.solid, this.printedTo));
    if (this.heldLen > MAX_UNDECIDED) {
      // Still undecided after MAX_UNDECIDED bytes: fed as they are, to both emulators alike (so the
      // copy stays in step); what they print is not followed (withheld on the screen view).
      const to = this.bytesIn;
      this.unfollowed += to - this.base;
      this.feedControl(this.base, to, false);
      this.release(to);
    }
  }

  /** Ends the stream and reports what a person would not have seen at the end. */
  end(): ScreenReport {
    if (this.ended) throw new Error('ScreenEngine.end called twice');
    this.ended = true;
    this.sanitizer.end();
    this.advance(this.bytesIn);
    return this.finish();
  }

  private hold(chunk: Uint8Array): void {
    const need = this.heldLen + chunk.length;
    if (need > this.held.length) {
      const bigger = new Uint8Array(Math.max(need, this.held.length * 2));
      bigger.set(this.held.subarray(0, this.heldLen));
      this.held = bigger;
    }
    this.held.set(chunk, this.heldLen);
    this.heldLen = need;
  }

  /** Forgets the held bytes before stream offset `to` (all fed). */
  private release(to: number): void {
    const k = to - this.base;
    if (k <= 0) return;
    this.held.copyWithin(0, k, this.heldLen);
    this.heldLen -= k;
    this.base = to;
  }


  /**
   * Feeds the stream up to offset `to`, which the sanitizer has decided: the removed spans that
   * start before it, merged into disjoint ranges, fed as controls, the bytes between them as text.
   */
  private advance(to: number): void {
    if (to <= this.base) return;
    const now: number[] = [];
    const later: number[] = [];
    for (let k = 0; k < this.spans.length; k += 2) (this.spans[k] < to ? now : later).push(this.spans[k], this.spans[k + 1]);
    this.spans = later;
    const order = Array.from({ length: now.length / 2 }, (_, k) => k);
    // Spans come in the order they end; by start they are out of order only around a control
    // reported inside a sequence.
    let sorted = true;
    for (let k = 1; k < order.length && sorted; k++) sorted = now[2 * k - 2] < now[2 * k] || (now[2 * k - 2] === now[2 * k] && now[2 * k - 1] >= now[2 * k + 1]);
    if (!sorted) order.sort((x, y) => now[2 * x] - now[2 * y] || now[2 * y + 1] - now[2 * x + 1]);
    let at = this.base;
    let start = -1;
    let end = -1;
    const feed = (): void => {
      // A range that bytes fed undecided (see write) already covered is fed from there on only.
      const from = Math.max(start, at);
      if (end <= from) return;
      if (from > at) this.feedText(at, from);
      this.feedControl(from, end);
      at = end;
    };
    for (const k of order) {
      const s = now[2 * k];
      const e = now[2 * k + 1];
      // Overlapping spans (a control executed inside a sequence) are one range; adjacent ones stay
      // apart, so an erasing control is fed, and bracketed, on its own.
      if (start >= 0 && s < end) {
        end = Math.max(end, e);
        continue;
      }
      if (start >= 0) feed();
      start = s;
      end = e;
    }
    if (start >= 0) feed();
    const upTo = Math.max(to, at);
    if (upTo > at) this.feedText(at, upTo);
    this.release(upTo);
  }

  /** Feeds `[from, to)`, a removed span (or undecided bytes: `bracket` false), to both emulators as it is. */
  private feedControl(from: number, to: number, bracket = true): void {
    if (to <= from) return;
    const { b, bi, rows, cols, work, chars } = this;
    const bytes = this.held;
    const piece = bytes.subarray(from - this.base, to - this.base);
    const sequence = startsSequence(bytes, from - this.base, this.heldLen);
    let reach = bracket ? erasing(bytes, from - this.base, to - this.base) : Reach.None;
    if (reach !== Reach.None) {
      // Both snapshots: a line, or the screen (after: also what the control scrolled into the
      // scrollback, at most a screen), or both buffers whole.
      const lines = reach === Reach.Line ? 2 : reach === Reach.Screen ? 3 * rows : 2 * (b.buffer.normal.length + b.buffer.alternate.length);
      const cost = lines * cols;
      if (work.cells + cost > SNAPSHOT_CELLS_BASE + SNAPSHOT_CELLS_PER_BYTE * Math.max(this.expectedBytes, to)) {
        reach = Reach.None;
        this.causesComplete = false;
      }
    }
    const before = reach !== Reach.None ? tagsIn(b, reach, undefined, work) : null;
    const baseBefore = before !== null ? b.buffer.active.baseY : 0;
    const trimmedBefore = this.trimmed;
    this.ai.writeSync(piece);
    bi.writeSync(piece);
    // B's colour is set to the sentinel (nothing a control prints may read as a tag) after an
    // escape sequence, when nothing printed is remembered: the emulator joins a zero-width
    // character to the cell before it across CR, BS or a stray byte, and REP repeats the one
    // before it; a sequence clears that, unless (as the emulator reads it) it printed text
    // itself. (A sequence may also have set B's colours: the next text sets its own anyway.)
    if (sequence) {
      this.tagColour = -1;
      if (this.settled()) {
        bi.writeSync(SENTINEL_SGR);
        this.tagColour = SENTINEL;
      }
    }
    if (before !== null) {
      // After: where those tags can still be (a scroll moves screen lines into the scrollback).
      const after = new Set(tagsIn(b, reach, Math.max(0, baseBefore - (this.trimmed - trimmedBefore)), work));
      for (const i of before) {
        if (after.has(i)) continue;
        const r = chars.row(i);
        if (r >= 0 && chars.erasedBy[r] < 0) chars.erasedBy[r] = from;
      }
    }
  }

  /** Tags and colours go into B only where its parser is in ground: inside a sequence they would change what it parses. */
  private ground(): boolean {
    return this.parser === undefined || this.parser.currentState === 0;
  }

  /**
   * A colour set in B alone resets what its parser remembers of the character printed last (to
   * join a zero-width character to its cell, or for REP): only where that is already clear in
   * both (the same history), nothing changes.
   */
  private settled(): boolean {
    return this.ground() && (this.parser === undefined || this.parser.precedingJoinState === 0);
  }

  private feedText(from: number, to: number): void {
    // Printable characters only (LF and TAB are kept text but move the cursor: fed as controls).
    const bytes = this.held;
    const base = this.base;
    let p = from;
    while (p < to) {
      let q = p;
      while (q < to && bytes[q - base] !== 0x0a && bytes[q - base] !== 0x09 && bytes[q - base] >= 0x20) q++;
      if (q > p) this.feedRun(p, q);
      if (q < to) {
        // A kept control: LF, TAB (or another C0 the Sanitizer kept as text).
        let r = q;
        while (r < to && (bytes[r - base] === 0x0a || bytes[r - base] === 0x09 || bytes[r - base] < 0x20)) r++;
        this.feedControl(q, r);
        q = r;
      }
      p = q;
    }
  }

  private feedRun(from: number, to: number): void {
    const { ai, bi, b, chars } = this;
    const run = this.held.subarray(from - this.base, to - this.base);
    if (!this.ground()) {
      // Inside a sequence as the emulator reads it: the same bytes to both, nothing to follow.
      ai.writeSync(run);
      bi.writeSync(run);
      this.tagColour = -1;
      return;
    }
    const text = this.decoder.decode(run);
    let tagged = '';
    let offset = from;
    const first = chars.n;
    for (const ch of text) {
      const cp = ch.codePointAt(0) ?? 0;
      const len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      const width = bi.unicodeService.wcwidth(cp);
      if (width <= 0) {
        // Zero-width: drawn into the cell before it; B gets it as it is. The screen view shows it
        // with the character printed last (kept text, as the sanitizer keeps it).
        tagged += ch;
        const owner = chars.n - 1;
        const marks = chars.marks.get(owner) ?? '';
        if (owner >= 0 && [...marks].length < MAX_MARKS) chars.marks.set(owner, marks + ch);
      } else {
        const i = chars.add(offset, len, cp);
        if (i >= MAX_CHARS) throw new Error('too many printed characters for the screen engine');
        const tag = tagOf(i, width);
        if (tag.high !== this.tagColour) {
          tagged += sgrRgb(tag.high);
          this.tagColour = tag.high;
        }
        tagged += String.fromCodePoint(tag.cp);
      }
      offset += len;
    }
    // Where B's cursor is before and after the run: the run's cells lie between (row-major).
    const buf = b.buffer.active;
    const y0 = buf.baseY + buf.cursorY + this.trimmed;
    const x0 = buf.cursorX;
    ai.writeSync(run);
    // As bytes, like everything else: the emulator decodes byte writes and string writes apart,
    // and a character cut by the last control must meet the same next byte in both terminals.
    bi.writeSync(utf8.encode(tagged));
    const y1 = buf.baseY + buf.cursorY + this.trimmed;
    const x1 = buf.cursorX;
    locate(b, chars, first, y0, x0, y1, x1, this.trimmed);
    if (chars.rows >= this.nextSweep) this.sweep();
  }

  /** Marks the characters in either of B's buffers visible; returns each buffer's cells as character numbers (-1: none). */
  private markVisible(grids: boolean): { normal: Int32Array; alternate: Int32Array } {
    const { b, cols, chars } = this;
    const out = { normal: new Int32Array(0), alternate: new Int32Array(0) };
    for (const which of ['normal', 'alternate'] as const) {
      const buf = b.buffer[which];
      const grid = grids ? new Int32Array(buf.length * cols).fill(-1) : null;
      const cell = buf.getNullCell();
      for (let y = 0; y < buf.length; y++) {
        const line = buf.getLine(y);
        if (!line) continue;
        for (let x = 0; x < cols; x++) {
          if (!line.getCell(x, cell)) continue;
          const i = tagAt(cell);
          const r = i >= 0 ? chars.row(i) : -1;
          if (r < 0) continue;
          chars.visible[r] = 1;
          if (grid) grid[y * cols + x] = i;
        }
      }
      if (grid) out[which] = grid;
    }
    return out;
  }

  /**
   * Where a hidden character was drawn, and what is there now (what printed over it), for row
   * `r`: sets `kinds[r]` (-1 when it only scrolled out) and `by[r]`. `holder(y, x)` is the number
   * of the character in line y, column x of B's normal buffer (-1: none).
   */
  private settleGone(r: number, kinds: Int8Array, by: Float64Array, holder: (y: number, x: number) => number): void {
    const { chars, trimmed, cols } = this;
    if (chars.line[r] >= 0 && chars.line[r] < trimmed && chars.erasedBy[r] < 0) {
      this.scrolledOut++;
      return;
    }
    if (chars.erasedBy[r] >= 0) {
      kinds[r] = 1;
      by[r] = chars.erasedBy[r];
      return;
    }
    // Gone without a bracketed control: printed over when a later character holds its cell;
    // when nothing does, erased by something unbracketed (a line pushed out of a scroll
    // region, or past the snapshot budget). Where it was is unknown: printed over (autowrap
    // off rewrites the last column; the alternate screen is not followed by position).
    const known = chars.line[r] >= 0;
    const j = known && chars.col[r] < cols ? holder(chars.line[r] - trimmed, chars.col[r]) : -1;
    const rj = j > chars.id[r] ? chars.row(j) : -1;
    if (rj >= 0) {
      kinds[r] = 0;
      by[r] = chars.offset[rj];
    } else {
      kinds[r] = known ? 1 : 0;
    }
  }

  /** Settles every character that left both buffers, and keeps only the rest (bounded memory). */
  private sweep(): void {
    const { b, chars } = this;
    this.markVisible(false);
    const kinds = new Int8Array(chars.rows).fill(-1);
    const by = new Float64Array(chars.rows).fill(-1);
    const normal = b.buffer.normal;
    const cell = normal.getNullCell();
    const holder = (y: number, x: number): number => {
      const line = y >= 0 ? normal.getLine(y) : undefined;
      return line?.getCell(x, cell) ? tagAt(cell) : -1;
    };
    for (let r = 0; r < chars.rows; r++) if (!chars.visible[r]) this.settleGone(r, kinds, by, holder);
    this.keep(merge(chars, kinds, by, KIND, this.maxFindingText));
    chars.compact((r) => chars.visible[r] === 1);
    const cells = (normal.length + b.buffer.alternate.length) * this.cols;
    this.nextSweep = chars.rows + Math.max(SWEEP_MIN_ROWS, cells);
  }

  /** Counts `found` and keeps the first maxFindings of all findings by offset. */
  private keep(found: ScreenFinding[]): void {
    for (const f of found) {
      this.counts[f.kind]++;
      this.findings.push(f);
    }
    if (this.findings.length > 2 * this.maxFindings) this.trimFindings();
  }

  private trimFindings(): void {
    this.findings.sort((x, y) => x.offset - y.offset);
    if (this.findings.length > this.maxFindings) this.findings.length = this.maxFindings;
  }

  private finish(): ScreenReport {
    const { a, b, cols, rows, chars } = this;
    // What is visible at the end: every tag in either buffer (the normal one is behind an alternate
    // screen only until the program leaves it), as a grid of character numbers per buffer.
    const grids = this.markVisible(true);
    const kinds = new Int8Array(chars.rows).fill(-1);
    const by = new Float64Array(chars.rows).fill(-1);
    // Visible, but drawn invisible or in the background colour (A's attributes at the same cell).
    for (const which of ['normal', 'alternate'] as const) {
      const grid = grids[which];
      const buf = a.buffer[which];
      const cell = buf.getNullCell();
      for (let k = 0; k < grid.length; k++) {
        const i = grid[k];
        if (i < 0 || !buf.getLine(Math.floor(k / cols))?.getCell(k % cols, cell)) continue;
        const r = chars.row(i);
        if (cell.isInvisible()) kinds[r] = 2;
        else if (this.palette.sameColour(cell)) kinds[r] = 3;
      }
    }
    const normal = grids.normal;
    const holder = (y: number, x: number): number => (y >= 0 && y * cols + x < normal.length ? normal[y * cols + x] : -1);
    for (let r = 0; r < chars.rows; r++) if (!chars.visible[r]) this.settleGone(r, kinds, by, holder);
    this.keep(merge(chars, kinds, by, KIND, this.maxFindingText));
    this.trimFindings();
    const divergedAtLine = firstDivergence(a, b);
    // The last screen as a person saw it: concealed and same-colour cells are blank there, and a
    // cell shows a character only as the sanitized text keeps it (the one reading it may reach
    // anyone by): one the emulator drew from bytes the sanitizer removed or withheld is WITHHELD_CELL.
    const active = a.buffer.active;
    const followed = b.buffer.active;
    const screen: string[] = [];
    let withheldCells = 0;
    for (let y = 0; y < rows; y++) {
      const line = active.getLine(active.baseY + y);
      const copy = followed.getLine(followed.baseY + y);
      let text = '';
      for (let x = 0; line && x < cols; x++) {
        const cell = line.getCell(x);
        if (!cell || cell.getWidth() === 0) continue;
        const width = cell.getWidth();
        if (cell.getChars() === '') text += ' ';
        else if (cell.isInvisible() || this.palette.sameColour(cell)) text += ' '.repeat(width);
        else {
          const tag = copy?.getCell(x);
          const i = tag ? tagAt(tag) : -1;
          const r = i >= 0 ? chars.row(i) : -1;
          if (r >= 0) text += String.fromCodePoint(chars.cp[r]) + (chars.marks.get(i) ?? '');
          else {
            text += WITHHELD_CELL.repeat(width);
            withheldCells++;
          }
        }
      }
      screen.push(text.replace(/ +$/, ''));
    }
    a.dispose();
    b.dispose();
    return {
      cols, rows, emulator: 'xterm.js 6.0.0 (headless)', findings: this.findings,
      counts: { ...this.counts, printed: chars.n, scrolledOut: this.scrolledOut },
      screen,
      withheldCells,
      unfollowedBytes: this.unfollowed,
      alternateScreen: active.type === 'alternate',
      layoutVerified: divergedAtLine === null,
      divergedAtLine,
      causesComplete: this.causesComplete,
      snapshotCells: this.work.cells,
      peakChars: chars.peakRows,
    };
  }
}

const KIND: FindingKind[] = ['overwritten', 'erased', 'concealed', 'same_colour'];

/**
 * Runs `bytes` through the emulator and reports the printed text a person would not have seen at
 * the end (a {@link ScreenEngine} fed SCREEN_PIECE_BYTES at a time).
 */
export function reconstructScreen(bytes: Uint8Array, options: ScreenOptions = {}): ScreenReport {
  const engine = new ScreenEngine({ expectedBytes: bytes.length, ...options });
  const piece = options.pieceBytes ?? SCREEN_PIECE_BYTES;
  for (let at = 0; at < bytes.length; at += piece) engine.write(bytes.subarray(at, Math.min(bytes.length, at + piece)));
  return engine.end();
}

/** The first buffer line (1-based) where A and B differ in which cells hold a character or how wide it is, or null. */
export function firstDivergence(a: TerminalT, b: TerminalT): number | null {
  for (const which of ['normal', 'alternate'] as const) {
    const ba = a.buffer[which];
    const bb = b.buffer[which];
    if (ba.length !== bb.length) return 1;
    for (let y = 0; y < ba.length; y++) {
      const la = ba.getLine(y);
      const lb = bb.getLine(y);
      if (!la || !lb) continue;
      for (let x = 0; x < a.cols; x++) {
        const ca = la.getCell(x);
        const cb = lb.getCell(x);
        if (!ca || !cb) continue;
        if (ca.getWidth() !== cb.getWidth() || (ca.getChars() === '') !== (cb.getChars() === '')) return y + 1;
      }
    }
  }
  return null;
}

/** Records where B drew characters `first..` of a run: the cells from (y0, x0) to (y1, x1), by their tags. */
function locate(b: TerminalT, chars: CharTable, first: number, y0: number, x0: number, y1: number, x1: number, trimmed: number): void {
  const buf = b.buffer.active;
  const cols = b.cols;
  const cell = buf.getNullCell();
  for (let y = y0; y <= y1; y++) {
    const line = buf.getLine(y - trimmed);
    if (!line) continue;
    const from = y === y0 ? x0 : 0;
    const to = y === y1 ? Math.min(x1 + 1, cols) : cols;
    for (let x = from; x < to; x++) {
      if (!line.getCell(x, cell)) continue;
      const i = tagAt(cell);
      const r = i >= first && i < chars.n ? chars.row(i) : -1;
      if (r >= 0 && chars.line[r] < 0) {
        chars.line[r] = buf.type === 'normal' ? y : -2;
        chars.col[r] = x;
      }
    }
  }
}

/**
 * Tags in B's cursor line, active screen (from line `from` of the buffer, when given, to the
 * screen's end), or both buffers with the scrollback.
 */
function tagsIn(b: TerminalT, reach: Reach, from: number | undefined, work: { cells: number }): number[] {
  const out: number[] = [];
  const cell = b.buffer.active.getNullCell();
  const scan = (buf: TerminalT['buffer']['active'], from: number, to: number): void => {
    work.cells += Math.max(0, to - from) * b.cols;
    for (let y = from; y < to; y++) {
      const line = buf.getLine(y);
      if (!line) continue;
      for (let x = 0; x < b.cols; x++) {
        if (!line.getCell(x, cell)) continue;
        const i = tagAt(cell);
        if (i >= 0) out.push(i);
      }
    }
  };
  const active = b.buffer.active;
  if (reach === Reach.All) {
    scan(b.buffer.normal, 0, b.buffer.normal.length);
    scan(b.buffer.alternate, 0, b.buffer.alternate.length);
  } else if (reach === Reach.Line) {
    scan(active, active.baseY + active.cursorY, active.baseY + active.cursorY + 1);
  } else {
    scan(active, Math.min(from ?? active.baseY, active.baseY), active.baseY + b.rows);
  }
  return out;
}

/**
 * Consecutive hidden characters (rows) of one kind (and one cause), adjacent in the raw bytes, as
 * one finding; its text holds the first `maxText` characters.
 */
function merge(chars: CharTable, kinds: Int8Array, by: Float64Array, names: FindingKind[], maxText: number): ScreenFinding[] {
  const out: ScreenFinding[] = [];
  let i = 0;
  while (i < chars.rows) {
    if (kinds[i] < 0) {
      i++;
      continue;
    }
    let j = i + 1;
    let end = chars.offset[i] + chars.bytes[i];
    const sameCause = (k: number): boolean => kinds[k] === kinds[i] && (kinds[i] !== 1 || by[k] === by[i]);
    while (j < chars.rows && sameCause(j) && chars.offset[j] === end) {
      end = chars.offset[j] + chars.bytes[j];
      j++;
    }
    let text = '';
    for (let k = i; k < Math.min(j, i + maxText); k++) text += String.fromCodePoint(chars.cp[k]);
    const known = chars.line[i] >= 0;
    out.push({
      kind: names[kinds[i]], offset: chars.offset[i], length: end - chars.offset[i], text,
      line: known ? chars.line[i] + 1 : null, column: known ? chars.col[i] + 1 : null,
      by: by[i] >= 0 ? by[i] : null,
    });
    i = j;
  }
  return out;
}
