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
import type { ScreenFindingView } from '../../../shared/bridge/types';
import { Sanitizer } from '../../../shared/sanitize';
import { Palette } from './colours';

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
}

export interface ScreenReport {
  readonly cols: number;
  readonly rows: number;
  /** The emulator and its version: another terminal may lay some characters out differently. */
  readonly emulator: string;
  readonly findings: ScreenFinding[];
  readonly counts: Record<FindingKind, number> & { printed: number; scrolledOut: number };
  /** The visible screen at the end (A's active buffer; untrusted text). */
  readonly screen: string[];
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

/** Erasing controls: CSI finals that remove cells, modes that drop a screen, RIS and DECALN. */
const ERASING_CSI = new Set(['J', 'K', 'X', 'P', 'M', 'L', 'S', 'T', '@']);
/** Of those, the ones that only touch the cursor's line (EL, ECH, DCH, ICH). */
const LINE_CSI = new Set(['K', 'X', 'P', '@']);

/** What an erasing control can reach: nothing, the cursor's line, the screen, or everything (scrollback too). */
const enum Reach { None = 0, Line = 1, Screen = 2, All = 3 }

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
  return new Terminal({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off', convertEol: true });
}

/** Per printed character: where its bytes are, where it was drawn, what erased it. */
class CharTable {
  offset = new Float64Array(1024);
  bytes = new Uint8Array(1024);
  line = new Int32Array(1024);
  col = new Int32Array(1024);
  erasedBy = new Float64Array(1024);
  visible = new Uint8Array(1024);
  cp = new Uint32Array(1024);
  n = 0;

  add(offset: number, bytes: number, cp: number): number {
    if (this.n === this.offset.length) this.grow();
    const i = this.n++;
    this.offset[i] = offset;
    this.bytes[i] = bytes;
    this.cp[i] = cp;
    this.line[i] = -1;
    this.col[i] = -1;
    this.erasedBy[i] = -1;
    return i;
  }

  private grow(): void {
    const size = this.offset.length * 2;
    const more = <T extends Float64Array | Uint8Array | Int32Array | Uint32Array>(a: T, b: T): T => (b.set(a), b);
    this.offset = more(this.offset, new Float64Array(size));
    this.bytes = more(this.bytes, new Uint8Array(size));
    this.line = more(this.line, new Int32Array(size));
    this.col = more(this.col, new Int32Array(size));
    this.erasedBy = more(this.erasedBy, new Float64Array(size));
    this.visible = more(this.visible, new Uint8Array(size));
    this.cp = more(this.cp, new Uint32Array(size));
  }
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

/**
 * Removed spans of the input (the Sanitizer's), merged into sorted, disjoint `[start, end)`
 * ranges, as pairs: where the bytes are cut into the pieces both emulators are fed.
 */
function removedRanges(bytes: Uint8Array): Float64Array {
  const starts: number[] = [];
  const ends: number[] = [];
  const s = new Sanitizer({ reuseOutputBuffer: true, onSpan: (_cls, offset, length) => { starts.push(offset); ends.push(offset + length); } });
  s.write(bytes);
  s.end();
  const order = starts.map((_, k) => k).sort((a, b) => starts[a] - starts[b] || ends[b] - ends[a]);
  const out: number[] = [];
  for (const k of order) {
    const last = out.length - 1;
    // Overlapping spans (a control executed inside a sequence) are one range; adjacent ones stay
    // apart, so an erasing control is fed, and bracketed, on its own.
    if (last > 0 && starts[k] < out[last]) out[last] = Math.max(out[last], ends[k]);
    else out.push(starts[k], ends[k]);
  }
  return Float64Array.from(out);
}

/**
 * Whether bytes at `at` begin an escape sequence: ESC, or a C1 sequence introducer (CSI, OSC,
 * DCS, SOS, PM, APC) encoded in UTF-8. Not a lone C1 like ST: the emulator ignores that in
 * ground, and a zero-width character after it still joins the cell before.
 */
function startsSequence(b: Uint8Array, at: number): boolean {
  if (b[at] === 0x1b) return true;
  if (b[at] !== 0xc2 || at + 1 >= b.length) return false;
  const c1 = b[at + 1];
  return c1 === 0x9b || c1 === 0x9d || c1 === 0x90 || c1 === 0x98 || c1 === 0x9e || c1 === 0x9f;
}

/** What a control's bytes may erase (see ERASING_CSI). */
function erasing(b: Uint8Array, from: number, to: number): Reach {
  const n = to - from;
  const csi = b[from] === 0x9b ? from + 1 : n >= 3 && b[from] === 0x1b && b[from + 1] === 0x5b ? from + 2 : -1;
  if (csi >= 0) {
    const final = String.fromCharCode(b[to - 1]);
    if (LINE_CSI.has(final)) return Reach.Line;
    if (final === 'J') {
      // ED 3 clears the scrollback.
      for (let k = csi; k < to - 1; k++) if (b[k] === 0x33 && (k === csi || b[k - 1] === 0x3b) && (k + 1 === to - 1 || b[k + 1] === 0x3b)) return Reach.All;
      return Reach.Screen;
    }
    if (ERASING_CSI.has(final)) return Reach.Screen;
    // Leaving the alternate screen drops it; entering one may clear it.
    if ((final === 'h' || final === 'l') && b[csi] === 0x3f) return Reach.All;
    return Reach.None;
  }
  if (b[from] === 0x1b && n === 2 && b[from + 1] === 0x63) return Reach.All; // RIS
  if (b[from] === 0x1b && n === 3 && b[from + 1] === 0x23 && b[from + 2] === 0x38) return Reach.Screen; // DECALN
  return Reach.None;
}

/**
 * Runs `bytes` through the emulator and reports the printed text a person would not have seen at
 * the end. Linear in the input (every character is followed once; snapshots only bracket erasing
 * controls, each costing one screen); holds the input and ~40 bytes per printed character.
 */
export function reconstructScreen(bytes: Uint8Array, options: ScreenOptions = {}): ScreenReport {
  const cols = options.cols ?? SCREEN_DEFAULTS.cols;
  const rows = options.rows ?? SCREEN_DEFAULTS.rows;
  const scrollback = options.scrollback ?? SCREEN_DEFAULTS.scrollback;
  const a = makeTerminal(cols, rows, scrollback);
  const b = makeTerminal(cols, rows, scrollback);
  // The colours A draws with: OSC 4/10/11 (and their resets) change them; xterm.js passes them on.
  const palette = new Palette();
  for (const ident of [4, 10, 11, 104, 110, 111]) a.parser.registerOscHandler(ident, (data) => (palette.osc(ident, data), false));
  const ai = (a as unknown as Internals)._core;
  const bi = (b as unknown as Internals)._core;
  if (typeof bi.writeSync !== 'function' || typeof bi.unicodeService?.wcwidth !== 'function') {
    throw new Error('this @xterm/headless has no synchronous write or wcwidth: the screen engine needs xterm.js 6');
  }
  // Lines dropped off the top of the scrollback: characters on them scrolled out, not hidden.
  let trimmed = 0;
  bi._bufferService?.buffers?.normal?.lines?.onTrim?.((n: number) => (trimmed += n));
  const wcwidth = (cp: number): number => bi.unicodeService.wcwidth(cp);
  // Tags and colours go into B only where its parser is in ground: inside a sequence they would
  // change what it parses (a text run right after a lone ESC is the ESC's final byte there).
  const parser = bi._inputHandler?._parser;
  const ground = (): boolean => parser === undefined || parser.currentState === 0;
  // A colour set in B alone resets what its parser remembers of the character printed last (to
  // join a zero-width character to its cell, or for REP): only where that is already clear in
  // both (the same history), nothing changes.
  const settled = (): boolean => ground() && (parser === undefined || parser.precedingJoinState === 0);
  const chars = new CharTable();
  const ranges = removedRanges(bytes);
  const work = { cells: 0 };
  const budget = SNAPSHOT_CELLS_BASE + SNAPSHOT_CELLS_PER_BYTE * bytes.length;
  let causesComplete = true;
  const decoder = new TextDecoder('utf-8', { fatal: false });

  let tagColour = -1;
  const feedControl = (from: number, to: number): void => {
    if (to <= from) return;
    const piece = bytes.subarray(from, to);
    const sequence = startsSequence(bytes, from);
    let reach = erasing(bytes, from, to);
    if (reach !== Reach.None) {
      // Both snapshots: a line, or the screen (after: also what the control scrolled into the
      // scrollback, at most a screen), or both buffers whole.
      const lines = reach === Reach.Line ? 2 : reach === Reach.Screen ? 3 * rows : 2 * (b.buffer.normal.length + b.buffer.alternate.length);
      const cost = lines * cols;
      if (work.cells + cost > budget) {
        reach = Reach.None;
        causesComplete = false;
      }
    }
    const before = reach !== Reach.None ? tagsIn(b, reach, undefined, work) : null;
    const baseBefore = b.buffer.active.baseY;
    const trimmedBefore = trimmed;
    ai.writeSync(piece);
    bi.writeSync(piece);
    // B's colour is set to the sentinel (nothing a control prints may read as a tag) after an
    // escape sequence, when nothing printed is remembered: the emulator joins a zero-width
    // character to the cell before it across CR, BS or a stray byte, and REP repeats the one
    // before it; a sequence clears that, unless (as the emulator reads it) it printed text
    // itself. (A sequence may also have set B's colours: the next text sets its own anyway.)
    if (sequence) {
      tagColour = -1;
      if (settled()) {
        bi.writeSync(SENTINEL_SGR);
        tagColour = SENTINEL;
      }
    }
    if (before !== null) {
      // After: where those tags can still be (a scroll moves screen lines into the scrollback).
      const after = new Set(tagsIn(b, reach, Math.max(0, baseBefore - (trimmed - trimmedBefore)), work));
      for (const i of before) if (!after.has(i) && chars.erasedBy[i] < 0) chars.erasedBy[i] = from;
    }
  };

  const feedText = (from: number, to: number): void => {
    // Printable characters only (LF and TAB are kept text but move the cursor: fed as controls).
    let p = from;
    while (p < to) {
      let q = p;
      while (q < to && bytes[q] !== 0x0a && bytes[q] !== 0x09 && bytes[q] >= 0x20) q++;
      if (q > p) feedRun(p, q);
      if (q < to) {
        // A kept control: LF, TAB (or another C0 the Sanitizer kept as text).
        let r = q;
        while (r < to && (bytes[r] === 0x0a || bytes[r] === 0x09 || bytes[r] < 0x20)) r++;
        feedControl(q, r);
        q = r;
      }
      p = q;
    }
  };

  const feedRun = (from: number, to: number): void => {
    if (!ground()) {
      // Inside a sequence as the emulator reads it: the same bytes to both, nothing to follow.
      ai.writeSync(bytes.subarray(from, to));
      bi.writeSync(bytes.subarray(from, to));
      tagColour = -1;
      return;
    }
    const text = decoder.decode(bytes.subarray(from, to));
    let tagged = '';
    let offset = from;
    const first = chars.n;
    for (const ch of text) {
      const cp = ch.codePointAt(0) ?? 0;
      const len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      const width = wcwidth(cp);
      if (width <= 0) {
        // Zero-width: drawn into the cell before it; B gets it as it is.
        tagged += ch;
      } else {
        const i = chars.add(offset, len, cp);
        if (i >= MAX_CHARS) throw new Error('too many printed characters for the screen engine');
        const tag = tagOf(i, width);
        if (tag.high !== tagColour) {
          tagged += sgrRgb(tag.high);
          tagColour = tag.high;
        }
        tagged += String.fromCodePoint(tag.cp);
      }
      offset += len;
    }
    // Where B's cursor is before and after the run: the run's cells lie between (row-major).
    const buf = b.buffer.active;
    const y0 = buf.baseY + buf.cursorY + trimmed;
    const x0 = buf.cursorX;
    ai.writeSync(bytes.subarray(from, to));
    // As bytes, like everything else: the emulator decodes byte writes and string writes apart,
    // and a character cut by the last control must meet the same next byte in both terminals.
    bi.writeSync(utf8.encode(tagged));
    const y1 = buf.baseY + buf.cursorY + trimmed;
    const x1 = buf.cursorX;
    locate(b, chars, first, y0, x0, y1, x1, trimmed);
  };

  let at = 0;
  for (let k = 0; k < ranges.length; k += 2) {
    feedText(at, ranges[k]);
    feedControl(ranges[k], ranges[k + 1]);
    at = ranges[k + 1];
  }
  feedText(at, bytes.length);

  // What is visible at the end: every tag in either buffer (the normal one is behind an alternate
  // screen only until the program leaves it), as a grid of character numbers per buffer.
  const grids = { normal: new Int32Array(0), alternate: new Int32Array(0) };
  for (const which of ['normal', 'alternate'] as const) {
    const buf = b.buffer[which];
    const grid = new Int32Array(buf.length * cols).fill(-1);
    const cell = buf.getNullCell();
    for (let y = 0; y < buf.length; y++) {
      const line = buf.getLine(y);
      if (!line) continue;
      for (let x = 0; x < cols; x++) {
        if (!line.getCell(x, cell)) continue;
        const i = tagAt(cell);
        if (i >= 0 && i < chars.n) {
          chars.visible[i] = 1;
          grid[y * cols + x] = i;
        }
      }
    }
    grids[which] = grid;
  }
  const kinds = new Int8Array(chars.n).fill(-1);
  const by = new Float64Array(chars.n).fill(-1);
  const KIND: FindingKind[] = ['overwritten', 'erased', 'concealed', 'same_colour'];
  // Visible, but drawn invisible or in the background colour (A's attributes at the same cell).
  for (const which of ['normal', 'alternate'] as const) {
    const grid = grids[which];
    const buf = a.buffer[which];
    const cell = buf.getNullCell();
    for (let k = 0; k < grid.length; k++) {
      const i = grid[k];
      if (i < 0 || !buf.getLine(Math.floor(k / cols))?.getCell(k % cols, cell)) continue;
      if (cell.isInvisible()) kinds[i] = 2;
      else if (palette.sameColour(cell)) kinds[i] = 3;
    }
  }
  let scrolledOut = 0;
  // Where each hidden character was drawn, and what is there now (what printed over it).
  const normal = grids.normal;
  for (let i = 0; i < chars.n; i++) {
    if (chars.visible[i]) continue;
    if (chars.line[i] >= 0 && chars.line[i] < trimmed && chars.erasedBy[i] < 0) {
      scrolledOut++;
      continue;
    }
    if (chars.erasedBy[i] >= 0) {
      kinds[i] = 1;
      by[i] = chars.erasedBy[i];
    } else {
      // Gone without a bracketed control: printed over when a later character holds its cell;
      // when nothing does, erased by something unbracketed (a line pushed out of a scroll
      // region, or past the snapshot budget). Where it was is unknown: printed over (autowrap
      // off rewrites the last column; the alternate screen is not followed by position).
      const at = chars.line[i] >= 0 ? (chars.line[i] - trimmed) * cols + chars.col[i] : -1;
      const j = at >= 0 && at < normal.length ? normal[at] : -1;
      if (j > i) {
        kinds[i] = 0;
        by[i] = chars.offset[j];
      } else {
        kinds[i] = at >= 0 ? 1 : 0;
      }
    }
  }
  const findings = merge(chars, kinds, by, KIND);
  const divergedAtLine = firstDivergence(a, b);
  const counts = { overwritten: 0, erased: 0, concealed: 0, same_colour: 0, printed: chars.n, scrolledOut };
  for (const f of findings) counts[f.kind]++;
  // The last screen as a person saw it: concealed and same-colour cells are blank there.
  const active = a.buffer.active;
  const screen: string[] = [];
  for (let y = 0; y < rows; y++) {
    const line = active.getLine(active.baseY + y);
    let text = '';
    for (let x = 0; line && x < cols; x++) {
      const cell = line.getCell(x);
      if (!cell || cell.getWidth() === 0) continue;
      const ch = cell.getChars();
      text += ch === '' ? ' ' : cell.isInvisible() || palette.sameColour(cell) ? ' '.repeat(cell.getWidth()) : ch;
    }
    screen.push(text.replace(/ +$/, ''));
  }
  a.dispose();
  b.dispose();
  return {
    cols, rows, emulator: 'xterm.js 6.0.0 (headless)', findings, counts, screen,
    alternateScreen: active.type === 'alternate',
    layoutVerified: divergedAtLine === null,
    divergedAtLine,
    causesComplete,
    snapshotCells: work.cells,
  };
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
      if (i >= first && i < chars.n && chars.line[i] < 0) {
        chars.line[i] = buf.type === 'normal' ? y : -2;
        chars.col[i] = x;
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

/** Consecutive hidden characters of one kind (and one cause), adjacent in the raw bytes, as one finding. */
function merge(chars: CharTable, kinds: Int8Array, by: Float64Array, names: FindingKind[]): ScreenFinding[] {
  const out: ScreenFinding[] = [];
  let i = 0;
  while (i < chars.n) {
    if (kinds[i] < 0) {
      i++;
      continue;
    }
    let j = i + 1;
    let end = chars.offset[i] + chars.bytes[i];
    const sameCause = (k: number): boolean => kinds[k] === kinds[i] && (kinds[i] !== 1 || by[k] === by[i]);
    while (j < chars.n && sameCause(j) && chars.offset[j] === end) {
      end = chars.offset[j] + chars.bytes[j];
      j++;
    }
    let text = '';
    for (let k = i; k < j; k++) text += String.fromCodePoint(chars.cp[k]);
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
