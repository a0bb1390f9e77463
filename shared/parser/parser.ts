import { Charsets } from './charsets';
import { resolveLimits, type ParserLimits } from './limits';
import {
  INVISIBLE_BMP, isIdeograph, isIdeographicSelector, isJoiningLetter, isPictographic, takesPresentationSelector,
  VS15, VS16, ZWJ, ZWNJ,
} from './invisible';
import {
  APC_MEANING, c0Meaning, c1Meaning, CHARSET_MEANING, csiMeaning, dcsMeaning, escMeaning, invisibleMeaning, oscMeaning,
  PM_MEANING, SOS_MEANING, strayMeaning, WITHHELD_MEANING,
} from './meaning';
import { recordSpan, type ParserSink, type SpanLog } from './sink';
import { SpanClass, SpanFlag, StretchFlag } from './span-class';
import {
  AGREE, agrees, ESC_IN_DCS, HOME, MOVE, NEXT, ownStep, PRINT, Reading, READING_COUNT, READING_TABLES, STABLE, STRING_STOPS, TMUX_GROUND,
  tmuxCharLength,
} from './readings';
import { Action, State, Unit } from './states';
import { TRANSITIONS } from './transition-table';
import { classifyMultibyte, lastCodePoint, Utf8Kind } from './utf8';
import { ZwjGuard } from './zwj-guard';

/** Leading CSI parameters kept for classifying meaning; the rest are only counted. */
const MAX_TRACKED_PARAMS = 16;
/** Parameter values saturate here: meanings never need more, and it keeps arithmetic small. */
const MAX_PARAM_VALUE = 99_999;
/** Copies of a character one REP makes at most: a classic terminal line (see Parser.repeat). */
const MAX_REPEAT = 80;
/** OSC command digits parsed; a longer number is an unknown command. */
const MAX_OSC_COMMAND_DIGITS = 6;

/** Bytes that are text in ground: TAB, LF and printable ASCII. */
const PLAIN = new Uint8Array(256);
PLAIN[0x09] = 1;
PLAIN[0x0a] = 1;
PLAIN.fill(1, 0x20, 0x7f);

/**
 * True when one of the four bytes packed in `word` is outside 0x20–0x7E. Borrows and carries only
 * flow out of bytes that are themselves outside the range, so a clean word never tests true.
 */
function hasNonPlainByte(word: number): boolean {
  return (((word - 0x20202020) | (word + 0x01010101)) & 0x80808080) !== 0;
}

/**
 * Index of the first byte at or after `i` (stepping 4 at a time, so it stops at or before `last4 + 4`)
 * whose word read unaligned from `view` holds a byte outside 0x20–0x7E.
 *
 * A leaf of its own, not a loop inside the callers, for the JIT: V8 optimizes a function after a
 * budget that grows with its size, and the callers (ground, wholeString) are large and inline the
 * whole span bookkeeping, so their compile jobs take tens of milliseconds. Inside them the loop ran
 * unoptimized over every text run and string payload of the first megabytes; this small function
 * is optimized within the first few thousand runs, and inlined again once a caller is.
 */
function skipPlainWords4(view: DataView, i: number, last4: number): number {
  while (i <= last4 && !hasNonPlainByte(view.getUint32(i, true))) i += 4;
  return i;
}

/** Bytes 0x30–0x3B: CSI parameter bytes (digits, `:` and `;`). */
const PARAM_BYTES = 12;
/** Bytes 0x30–0x39: digits. */
const DIGIT_BYTES = 10;

/**
 * True when all four bytes packed in `word` lie in 0x30 … 0x30 + `count` - 1 (`count` ≤ 16: see
 * {@link PARAM_BYTES}, {@link DIGIT_BYTES}). XOR maps 0x30–0x3F to 0x00–0x0F; adding 0x80 - count
 * then sets bit 7 of any byte from `count` up that was below 0x80, and a byte at or above 0x80 has
 * it already (a carry out of one only comes from a byte that tests true).
 */
function allBytesFrom30(word: number, count: number): boolean {
  const x = word ^ 0x30303030;
  return (((x + (0x80 - count) * 0x01010101) | x) & 0x80808080) === 0;
}

/**
 * Length of the common 2- and 3-byte characters that are plainly text (no C1, no invisible code
 * point, no special lead byte), checked inline; 0 sends the unit to {@link classifyMultibyte}.
 */
function plainMultibyteLength(buf: Uint8Array, i: number, n: number, b: number): number {
  if (b >= 0xc3 && b <= 0xdf) {
    if (i + 1 >= n) return 0;
    const b1 = buf[i + 1];
    if ((b1 & 0xc0) !== 0x80) return 0;
    const cp = ((b & 0x1f) << 6) | (b1 & 0x3f);
    return (INVISIBLE_BMP[cp >> 3] & (1 << (cp & 7))) === 0 ? 2 : 0;
  }
  if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) {
    if (i + 2 >= n) return 0;
    const b1 = buf[i + 1];
    const b2 = buf[i + 2];
    if ((b1 & 0xc0) !== 0x80 || (b2 & 0xc0) !== 0x80) return 0;
    const cp = ((b & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
    return (INVISIBLE_BMP[cp >> 3] & (1 << (cp & 7))) === 0 ? 3 : 0;
  }
  return 0;
}

/** The invisible code points real text may need (see {@link Parser.invisible}). */
function mayBeKept(cp: number): boolean {
  return cp === ZWJ || cp === ZWNJ || cp === VS16 || cp === VS15 || isIdeographicSelector(cp);
}

/** Code point of the last character of the well-formed UTF-8 text `buf[from..to)`. */
function lastCharOf(buf: Uint8Array, from: number, to: number): number {
  let k = to - 1;
  while (k > from && (buf[k] & 0xc0) === 0x80) k--;
  const b = buf[k];
  if (b < 0x80) return b;
  const len = to - k;
  if (len === 2) return ((b & 0x1f) << 6) | (buf[k + 1] & 0x3f);
  if (len === 3) return ((b & 0x0f) << 12) | ((buf[k + 1] & 0x3f) << 6) | (buf[k + 2] & 0x3f);
  return ((b & 0x07) << 18) | ((buf[k + 1] & 0x3f) << 12) | ((buf[k + 2] & 0x3f) << 6) | (buf[k + 3] & 0x3f);
}

/** Code point of the first character of the well-formed UTF-8 text at `buf[at]`. */
function firstCharOf(buf: Uint8Array, at: number): number {
  const b = buf[at];
  if (b < 0x80) return b;
  if (b < 0xe0) return ((b & 0x1f) << 6) | (buf[at + 1] & 0x3f);
  if (b < 0xf0) return ((b & 0x0f) << 12) | ((buf[at + 1] & 0x3f) << 6) | (buf[at + 2] & 0x3f);
  return ((b & 0x07) << 18) | ((buf[at + 1] & 0x3f) << 12) | ((buf[at + 2] & 0x3f) << 6) | (buf[at + 3] & 0x3f);
}

/**
 * Holds a ZWJ or ZWNJ that followed a character which may take it until the next event shows
 * whether a character that may follow it comes right after (emoji ZWJ sequences, joiners between
 * letters of Arabic, Indic and other joining scripts); otherwise it is removed as invisible.
 */
class JoinerGate implements ParserSink {
  readonly bytes = new Uint8Array(3);
  offset = 0;
  /** Where the next character must start: after this joiner and any joiners removed right after it. */
  until = 0;
  cp = 0;
  /** The joiner sits in an emoji sequence (else between letters of a joining script). */
  emoji = false;

  constructor(private readonly parser: Parser, private readonly sink: ParserSink) {}

  print(bytes: Uint8Array, start: number, end: number, offset: number): void {
    const next = offset === this.until ? firstCharOf(bytes, start) : -1;
    this.release(next >= 0 && (this.emoji ? isPictographic(next) : isJoiningLetter(next)));
    this.parser.output.print(bytes, start, end, offset);
  }

  span(cls: SpanClass, offset: number, length: number, meaning: string, flags: number, code: number, param?: number): void {
    this.release(false);
    this.parser.output.span(cls, offset, length, meaning, flags, code, param);
  }

  drawn(cp: number, offset: number, length: number): void {
    this.release(false);
    this.parser.output.drawn(cp, offset, length);
  }

  ambiguous(offset: number, length: number, flags: number): void {
    this.release(false);
    this.parser.output.ambiguous?.(offset, length, flags);
  }

  /**
   * Emits the held joiner as text (`keep`) or as an invisible span, and steps out of the way (a
   * removed ZWJ leaves the {@link ZwjGuard} in its place).
   */
  release(keep: boolean): void {
    this.parser.ungate();
    if (keep) {
      this.sink.print(this.bytes, 0, 3, this.offset);
    } else {
      this.sink.span(SpanClass.Invisible, this.offset, 3, invisibleMeaning(this.cp), 0, this.cp);
      if (this.cp === ZWJ) this.parser.zwjRemoved(false);
    }
  }
}


/** The first bytes of a stream are fed to the fast paths in pieces of {@link WARM_UP_PIECE} (see Parser.feed). */
const WARM_UP_BYTES = 1 << 19;
const WARM_UP_PIECE = 1 << 15;

/** A byte array whose value at index i is i, so single LF/TAB bytes can be printed by reference. */
const ASCII = Uint8Array.from({ length: 128 }, (_, i) => i);

const EMPTY_WORDS = new Uint32Array(0);
const EMPTY_VIEW = new DataView(new ArrayBuffer(0));

/** Options of a {@link Parser} that do not change what it reports. */
export interface ParserOptions {
  /**
   * @internal Tests only: take every unit through the transition table one at a time, skipping
   * every fast path. The events are the same (text runs may be split differently); the
   * differential fuzz (test/shared/fast-path-differential.test.ts) holds the fast paths to it.
   */
  stateMachineOnly?: boolean;
  /**
   * @internal For a sink that only counts plain SGR spans (the Sanitizer without `onSpan`): the
   * ground fast path adds each well-formed SGR without private marker or intermediate here instead
   * of reporting it, as [count, bytes] for {@link SGR_MEANINGS}[0] then [count, bytes] for [1].
   */
  sgrCounts?: Float64Array;
  /**
   * @internal With {@link sgrCounts}: the plain SGR counted there are also recorded into this
   * log, with these kinds (see SpanLog.kind) for SGR_MEANINGS[0] and [1].
   */
  sgrLog?: { log: SpanLog; kinds: readonly [number, number] };
}

/** The two meanings of a plain SGR (without and with a conceal parameter), as csiMeaning gives them. */
export const SGR_MEANINGS: readonly [string, string] = [
  csiMeaning(0, 0, 0x6d, Int32Array.of(0), 1),
  csiMeaning(0, 0, 0x6d, Int32Array.of(8), 1),
];

const enum OscPhase { Command = 0, HyperlinkParams = 1, Payload = 2 }

/**
 * Streaming, byte-level ECMA-48 / DEC VT500 parser with UTF-8 awareness.
 *
 * Feed chunks of any size with {@link Parser.feed}, then call {@link Parser.end}. The parser
 * reports plain text runs and one span per control, sequence, invalid UTF-8 subpart and invisible
 * code point to its {@link ParserSink}. State (an open sequence, a split UTF-8 character, an ESC
 * that may start ST) survives chunk boundaries, so any chunking yields the same events apart from
 * how text runs are split. Work per byte is constant: the parser is linear in its input and never
 * throws on any byte sequence.
 */
export class Parser {
  private state: State = State.Ground;
  /**
   * Where events go: the sink, the {@link JoinerGate} while a joiner waits for its next character,
   * or the {@link ZwjGuard} after a removed ZWJ.
   */
  private out: ParserSink;
  private gate: JoinerGate | null = null;
  private guard: ZwjGuard | null = null;

  // The terminal readings (readings.ts), tracked only while one of them disagrees with this (8-bit)
  // reading: their states, and how many more bytes tmux's UTF-8 decoder will swallow.
  private diverged = false;
  private readonly shadows = new Uint8Array(READING_COUNT);
  private tmuxPending = 0;
  /** tmux decoded a ZWJ in ground while the readings disagreed: its next non-ASCII character goes elsewhere (ZwjGuard). */
  private tmuxZwj = false;
  private stretchStart = 0;
  private stretchFlags = 0;
  /** The ESC that {@link stringEscPending} waits on arrived in a DCS payload (tmux keeps the DCS open). */
  private escInDcs = false;
  /** The current unit is text to this reading only: it is withheld, not printed. */
  private holding = false;
  private heldStart = 0;
  private heldEnd = -1;

  /** Character sets (charsets.ts), made at the first designation or shift; `drawing` while one redraws ASCII. */
  private charsets: Charsets | null = null;
  private drawing = false;

  // The last printed character, for invisible code points that may follow it.
  private prevEnd = -1;
  private prevCp = 0;
  /** Stream offset of the current chunk's first byte. */
  private base = 0;
  private ended = false;

  // The open sequence (meaningful while state is not Ground).
  private seqStart = 0;
  private seqClass: SpanClass = SpanClass.Esc;
  private seqFlags = 0;
  private headerBytes = 0;
  private priv = 0;
  private inter = 0;
  private final = 0;
  private readonly params = new Int32Array(MAX_TRACKED_PARAMS);
  private paramIndex = -1;
  private inSubParam = false;

  // String payload bookkeeping.
  private payloadStart = -1;
  /** An ESC arrived inside a string: the next unit decides between ST and an interruption. */
  private stringEscPending = false;
  private escInStringAt = 0;
  private oscPhase = OscPhase.Command;
  private oscCommand = -1;
  private oscDigits = 0;
  private hyperlinkUriStart = -1;

  // A UTF-8 unit cut by a chunk boundary (at most 3 bytes wait here).
  private readonly pending = new Uint8Array(4);
  private pendingLen = 0;
  private pendingAt = 0;

  private readonly limits: ParserLimits;
  /** Every unit through {@link unit} (the table), no fast path: the reference the fast paths are tested against. */
  private readonly stateMachineOnly: boolean;
  private readonly sgrCounts: Float64Array | null;
  /** ParserOptions.sgrLog: the log and the kinds of the two SGR meanings (null: none). */
  private readonly sgrLog: SpanLog | null;
  private readonly sgrKind0: number;
  private readonly sgrKind1: number;

  /** The current chunk seen as 32-bit words (from byte {@link wordBase}), for skipping clean text 4 bytes at a time. */
  private words: Uint32Array = new Uint32Array(0);
  private wordBase = 0;
  /** The current chunk as a DataView: ground text runs start anywhere, so they are read 4 bytes at a time unaligned. */
  private view: DataView = EMPTY_VIEW;
  /** The chunk {@link view} shows (null between feeds): only reads of that array may use it. */
  private viewed: Uint8Array | null = null;

  /**
   * Creates a parser reporting to `sink`; `limits` overrides the defaults field by field.
   * @throws RangeError for a limit that is not a whole number >= 0.
   */
  constructor(private readonly sink: ParserSink, limits: Partial<ParserLimits> = {}, options: ParserOptions = {}) {
    this.limits = resolveLimits(limits);
    this.stateMachineOnly = options.stateMachineOnly === true;
    this.sgrCounts = options.sgrCounts ?? null;
    this.sgrLog = options.sgrLog?.log ?? null;
    this.sgrKind0 = options.sgrLog?.kinds[0] ?? 0;
    this.sgrKind1 = options.sgrLog?.kinds[1] ?? 0;
    this.out = sink;
    // V8 treats a field written only once as a constant and folds it into optimized code; `base`
    // first changes after the first chunk, which would throw that code away mid-stream. A second
    // write here marks it mutable before any code is optimized.
    this.base = -1;
    this.base = 0;
  }

  /** Stream offset just past the last byte fed. */
  get offset(): number {
    return this.base;
  }

  /**
   * True (read between feeds, never from a sink call) when a fresh Parser fed the rest of the
   * stream from here would report exactly the spans this one still will, offsets shifted by
   * {@link offset}: every reading in ground with no ambiguous stretch or withheld run open, no
   * sequence, split UTF-8 character or held joiner pending, and no character printed right before
   * that a following selector or joiner could attach to.
   */
  get atRest(): boolean {
    if (this.ended) return true;
    if (this.state !== State.Ground || this.diverged || this.pendingLen > 0 || this.stringEscPending
      || this.out !== this.sink || this.heldEnd >= 0 || (this.charsets !== null && !this.charsets.pristine)) return false;
    if (this.prevEnd !== this.base) return true;
    const p = this.prevCp;
    return !(p === VS16 || takesPresentationSelector(p) || isIdeograph(p) || isPictographic(p) || isJoiningLetter(p));
  }

  /** Feeds the next chunk of the stream. The chunk may be reused by the caller after return. */
  feed(chunk: Uint8Array): void {
    if (this.ended) throw new Error('Parser.feed called after end()');
    if (this.base < WARM_UP_BYTES && chunk.length > WARM_UP_PIECE) {
      // For the JIT: what runs once per chunk (a new chunk's views, a character, sequence or text
      // run cut at its end) then also runs while the code is still unoptimized, so V8 has type
      // feedback for it when it optimizes. Fed whole, the first such path ran only after the
      // first megabyte and threw the optimized code away (a deoptimization and a fresh compile of
      // the largest functions each time). Where chunks are cut never changes a result.
      const end = Math.min(chunk.length, WARM_UP_BYTES - this.base);
      let k = 0;
      for (; k < end; k += WARM_UP_PIECE) this.feedChunk(chunk.subarray(k, Math.min(k + WARM_UP_PIECE, chunk.length)));
      if (k < chunk.length) this.feedChunk(chunk.subarray(k));
      return;
    }
    this.feedChunk(chunk);
  }

  private feedChunk(chunk: Uint8Array): void {
    // One array class for every byte read here and in the sink (a Node Buffer is a subclass):
    // the element loads in the hot loops then see one map and stay monomorphic.
    if (chunk.constructor !== Uint8Array) chunk = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    const n = chunk.length;
    this.viewWords(chunk);
    const i = this.pendingLen > 0 ? this.completePending(chunk) : 0;
    if (this.stateMachineOnly) this.reference(chunk, i, n);
    else this.scan(chunk, i, n);
    this.base += n;
    this.words = EMPTY_WORDS;
    this.view = EMPTY_VIEW;
    this.viewed = null;
  }

  /**
   * The chunk from `i` on, one stretch per fast path. A method of its own: V8 compiles this loop
   * on-stack while the first chunk runs, and code after such a loop that had not run yet would
   * throw the compiled code away again at the end of every chunk.
   */
  private scan(chunk: Uint8Array, i: number, n: number): void {
    while (i < n) {
      if (this.diverged) {
        i = this.lockstep(chunk, i, n);
        continue;
      }
      // Two range tests, not a switch over the states: a switch compares case by case, and the
      // first string state this loop met after V8 optimized it (DCS ignore, say) would carry no
      // type feedback and throw away the compiled loop with everything inlined into it.
      const state = this.state;
      if (state === State.Ground) i = this.drawing ? this.groundDrawn(chunk, i, n) : this.ground(chunk, i, n);
      else if (state >= State.DcsPassthrough) i = this.payload(chunk, i, n);
      else i = this.sequence(chunk, i, n);
    }
  }

  /** The definition of behaviour: one unit at a time through the table (see {@link ParserOptions.stateMachineOnly}). */
  private reference(buf: Uint8Array, i: number, n: number): number {
    while (i < n) i = this.nextUnit(buf, i, n);
    return i;
  }

  /**
   * The unit at `buf[i]` (an ASCII byte or a multibyte unit) through {@link unit}; returns the
   * index after it, or `n` when a character cut by the chunk's end was stashed.
   */
  private nextUnit(buf: Uint8Array, i: number, n: number): number {
    if (buf[i] < 0x80) {
      this.unit(-1, buf, i, 1, this.base + i);
      return i + 1;
    }
    const r = classifyMultibyte(buf, i, n);
    const kind = r & 7;
    if (kind === Utf8Kind.Incomplete) return this.stash(buf, i, n);
    const len = r >> 3;
    this.unit(kind, buf, i, len, this.base + i);
    return i + len;
  }

  /** Views the 4-byte-aligned middle of `chunk` as words (typed arrays need aligned offsets). */
  private viewWords(chunk: Uint8Array): void {
    const skip = (4 - (chunk.byteOffset & 3)) & 3;
    const count = chunk.length > skip ? (chunk.length - skip) >>> 2 : 0;
    this.wordBase = skip;
    this.words = count > 0 ? new Uint32Array(chunk.buffer, chunk.byteOffset + skip, count) : EMPTY_WORDS;
    this.view = chunk.length >= 4 ? new DataView(chunk.buffer, chunk.byteOffset, chunk.length) : EMPTY_VIEW;
    this.viewed = chunk.length >= 4 ? chunk : null;
  }

  /**
   * Index of the first byte at or after `j` (and before `stop`) outside 0x30 … 0x30 + `count` - 1
   * ({@link PARAM_BYTES} or {@link DIGIT_BYTES}), four bytes at a time where it can.
   */
  private skipBytesFrom30(buf: Uint8Array, j: number, stop: number, count: number): number {
    if (buf === this.viewed) {
      const view = this.view;
      const last4 = stop - 4;
      while (j <= last4 && allBytesFrom30(view.getUint32(j, true), count)) j += 4;
    }
    const end = 0x30 + count;
    while (j < stop && buf[j] >= 0x30 && buf[j] < end) j++;
    return j;
  }

  /** Index of the first byte at or after the aligned index `i` whose word holds a non-plain byte. */
  private skipPlainWords(i: number): number {
    const words = this.words;
    const wb = this.wordBase;
    let w = (i - wb) >>> 2;
    const end = words.length;
    while (w < end && !hasNonPlainByte(words[w])) w++;
    return wb + (w << 2);
  }

  /**
   * Ends the stream: a split UTF-8 character becomes invalid, and an open sequence or string is
   * reported as a span flagged {@link SpanFlag.Unterminated} reaching to the end of input.
   */
  end(): void {
    if (this.ended) return;
    // A cut character: its lead and each continuation byte up to the next 0x80–0x9F one are
    // invalid; such a byte is a stray C1 of its own (see Utf8Kind.Invalid).
    while (this.pendingLen > 0) {
      const total = this.pendingLen;
      const r = classifyMultibyte(this.pending, 0, total);
      let kind = r & 7;
      let len = r >> 3;
      if (kind === Utf8Kind.Incomplete) {
        kind = Utf8Kind.Invalid;
        len = 1;
        while (len < total && this.pending[len] > 0x9f) len++;
      }
      this.pendingLen = 0;
      this.unit(kind, this.pending, 0, len, this.pendingAt);
      this.unstash(len, total);
    }
    // Text withheld inside the sequence left open is reported before it, as mid-stream, where a
    // held run ends before the unit that completes the sequence: an index reads a span reported
    // before the one that holds it as inside it (as a C0 control executed within a CSI).
    this.flushHeld();
    if (this.stringEscPending) {
      this.stringEscPending = false;
      this.finish(this.base, SpanFlag.Unterminated, this.escInStringAt);
    } else if (this.state !== State.Ground) {
      this.finish(this.base, SpanFlag.Unterminated, this.base);
    }
    if (this.diverged) this.converge(this.base, StretchFlag.ToEnd);
    if (this.out === this.gate) this.gate.release(false);
    this.out = this.sink;
    this.state = State.Ground;
    this.ended = true;
  }

  /** Keeps the stash bytes after the first `used` of `total` for the next unit. */
  private unstash(used: number, total: number): void {
    if (used >= total) return;
    this.pending.copyWithin(0, used, total);
    this.pendingLen = total - used;
    this.pendingAt += used;
  }

  /**
   * While the readings disagree: one unit at a time through this reading and every terminal
   * reading (readings.ts). This 8-bit reading is the parser itself (its spans, meanings and
   * offsets); the others only keep their states. Returns once they agree again.
   */
  private lockstep(buf: Uint8Array, i: number, n: number): number {
    while (i < n && this.diverged) {
      const b = buf[i];
      if (b >= 0x20 && b < 0x7f && !this.stringEscPending) {
        const end = this.printableRun(buf, i, n);
        if (end > i) {
          i = end;
          continue;
        }
      }
      i = this.nextUnit(buf, i, n);
    }
    return i;
  }

  /**
   * A run of printable ASCII from `buf[i]` that changes no reading's state (this one in ground or
   * a string payload, each other in a state that keeps printable ASCII), where they do not all
   * show it: taken at once, withheld where this reading shows it. Returns where it ends (`i` when
   * there is no such run).
   */
  private printableRun(buf: Uint8Array, i: number, n: number): number {
    const here = this.state;
    const mineShows = here === State.Ground;
    if (!mineShows && !(here >= State.DcsPassthrough && (here !== State.OscString || this.oscPhase === OscPhase.Payload))) return i;
    let all = true;
    let any = false;
    for (let r = 0; r < READING_COUNT; r++) {
      const stable = STABLE[r][this.shadows[r]];
      if (stable === 0) return i;
      if (stable === 1) any = true;
      else all = false;
    }
    // Where all show it the readings may agree again (tmux's decoder resets): unit by unit.
    if (mineShows && all) return i;
    let end = i + 1;
    while (end < n && buf[end] >= 0x20 && buf[end] < 0x7f) end++;
    if (this.shadows[Reading.Tmux] === TMUX_GROUND) this.tmuxPending = 0;
    if (mineShows) this.hold(this.base + i, end - i);
    else if (any) this.stretchFlags |= StretchFlag.ShownText;
    return end;
  }

  /**
   * One unit (an ASCII byte when `kind` is -1, else a multibyte unit of that {@link Utf8Kind}):
   * through every reading while they disagree, else through this one.
   */
  private unit(kind: number, buf: Uint8Array, at: number, len: number, off: number): void {
    const code = kind < 0 ? buf[at] : unitCode(kind);
    if (this.diverged) this.lockUnit(code, buf, at, len, off);
    else this.one(code, buf, at, len, off);
  }

  /** This reading's state as the terminal readings see it (readings.ts, ESC_IN_DCS). */
  private effective(): number {
    return this.stringEscPending && this.escInDcs ? ESC_IN_DCS : this.state;
  }

  /**
   * Whether unit `code` at `buf[at..at+len)` would make a terminal reading disagree with this one
   * in the current state: the table says so, or it is a raw 0x80–0x9F byte (invalid UTF-8 to the
   * readings, C1 here), or invalid UTF-8 in ground whose lead byte makes tmux's decoder swallow
   * what follows.
   */
  private disagrees(code: number, buf: Uint8Array, at: number, len: number): boolean {
    const s = this.effective();
    if (len === 1 && code >= 0x80 && code <= 0x9f) return !agrees(s, code, Unit.Invalid);
    if (code === Unit.Invalid && s === State.Ground) return len < tmuxCharLength(buf[at]);
    return AGREE[(s << 8) | code] === 0;
  }

  /** The readings start to disagree before the unit at `off`: each goes where it stood in agreement. */
  private diverge(off: number): void {
    const s = this.effective();
    for (let r = 0; r < READING_COUNT; r++) this.shadows[r] = HOME[r][s];
    this.tmuxPending = 0;
    this.tmuxZwj = false;
    this.diverged = true;
    this.stretchStart = off;
    this.stretchFlags = 0;
  }

  /** One unit through this reading and every terminal reading; see {@link lockstep}. */
  private lockUnit(code: number, buf: Uint8Array, at: number, len: number, off: number): void {
    // A raw 0x80–0x9F byte is a C1 control to this reading only.
    const ucode = len === 1 && code >= 0x80 && code <= 0x9f ? Unit.Invalid : code;
    const mine = TRANSITIONS[(this.state << 8) | code] >> 4;
    const minePrints = !this.stringEscPending && (mine === Action.Print || (mine === Action.Execute && (code === 0x0a || code === 0x09)));
    const own = ownStep(this.effective(), code);
    const next = own & NEXT;
    let all = true;
    let any = false;
    let moves = false;
    let home = true;
    for (let r = 0; r < READING_COUNT; r++) {
      const e = READING_TABLES[r][(this.shadows[r] << 8) | ucode];
      let shows = (e & PRINT) !== 0;
      if (r === Reading.Tmux) shows = this.tmuxDecode(ucode, buf, at, len, shows);
      if (shows) any = true;
      else all = false;
      if ((e & MOVE) !== 0) moves = true;
      this.shadows[r] = e & NEXT;
      if ((e & NEXT) !== HOME[r][next]) home = false;
    }
    if (minePrints && all && home && this.tmuxPending === 0) {
      // Every reading shows this unit and ends where this one does: they agree from here on.
      this.converge(off, 0);
      this.one(code, buf, at, len, off);
      return;
    }
    if (any && !minePrints) this.stretchFlags |= StretchFlag.ShownText;
    // A reading that fed a line, or executed CR, BS, VT, FF or a sequence there where this one did
    // not, may have moved its cursor.
    if (moves && (own & MOVE) === 0) this.stretchFlags |= StretchFlag.TouchedLine;
    this.holding = !all;
    // Keep events in input order: a held run ends before any unit this reading does not print.
    if (!minePrints) this.flushHeld();
    this.one(code, buf, at, len, off);
    this.holding = false;
    if (this.tmuxPending > 0) return;
    const s = this.effective();
    for (let r = 0; r < READING_COUNT; r++) if (this.shadows[r] !== HOME[r][s]) return;
    this.converge(off + len, 0);
  }

  /**
   * tmux's UTF-8 decoder (input_top_bit_set, utf8_open/utf8_append): in ground it takes as many
   * bytes >= 0x80 as the lead byte announces, whatever they are, and shows nothing for a sequence
   * that is not a valid character; any other byte in ground, and a C0 control wherever tmux
   * executes it, starts it afresh. A unit that falls into a sequence begun before it is swallowed.
   * Returns whether tmux shows the unit (`shows`: what its table says for a fresh decoder).
   */
  private tmuxDecode(ucode: number, buf: Uint8Array, at: number, len: number, shows: boolean): boolean {
    const state = this.shadows[Reading.Tmux];
    if (ucode < 0x80) {
      // A printable byte in ground, or a C0 control tmux executes (CAN and SUB anywhere).
      if (ucode !== 0x1b && ucode !== 0x7f && (state === TMUX_GROUND || ucode < 0x20)) this.tmuxPending = 0;
      return shows;
    }
    if (state !== TMUX_GROUND) return shows;
    if (this.tmuxPending > 0) {
      this.tmuxPending = Math.max(0, this.tmuxPending - len);
      return false;
    }
    const want = tmuxCharLength(buf[at]);
    if (want > len) {
      this.tmuxPending = want - len;
      return false;
    }
    if (want === 0 || ucode < Unit.Text) return shows;
    // A character: after a ZWJ it goes onto another cell (see ZwjGuard); a ZWJ sets that up.
    const after = this.tmuxZwj;
    this.tmuxZwj = ucode === Unit.Invisible && lastCodePoint === ZWJ;
    return shows && !after;
  }

  /** One unit through this reading's table, with the OSC header bookkeeping the fast paths do. */
  private one(code: number, buf: Uint8Array, at: number, len: number, off: number): void {
    if (this.state === State.OscString && this.oscPhase !== OscPhase.Payload && !this.stringEscPending) {
      // A non-ASCII unit ends the header, as any byte but a digit or `;` does in oscHeader.
      if (code >= 0x80) this.oscPhase = OscPhase.Payload;
      else if (this.oscHeader(buf, at, at + 1) > at) return;
    }
    if ((code === Unit.Invisible || code === Unit.Bom) && this.state === State.Ground && !this.stringEscPending) {
      this.invisible(buf, at, len, off, lastCodePoint, this.prevEnd === off ? this.prevCp : -1);
      return;
    }
    this.step(code, buf, at, len, off);
  }

  /** Text this reading shows and another does not: withheld, reported as one span per run. */
  private hold(off: number, len: number): void {
    this.stretchFlags |= StretchFlag.WithheldText;
    if (this.heldEnd === off) {
      this.heldEnd += len;
      return;
    }
    this.flushHeld();
    this.heldStart = off;
    this.heldEnd = off + len;
  }

  private flushHeld(): void {
    if (this.heldEnd < 0) return;
    this.out.span(SpanClass.Withheld, this.heldStart, this.heldEnd - this.heldStart, WITHHELD_MEANING, 0, 0);
    this.heldEnd = -1;
  }

  /**
   * The readings agree again at `end` (or the input ended): report the stretch, unless nothing
   * came of it (no reading showed or withheld text or moved in it: a brief difference of states).
   */
  private converge(end: number, flags: number): void {
    this.flushHeld();
    this.diverged = false;
    this.tmuxPending = 0;
    flags |= this.stretchFlags;
    if ((flags & ~StretchFlag.ToEnd) !== 0) this.out.ambiguous?.(this.stretchStart, end - this.stretchStart, flags);
    if (this.tmuxZwj && this.out === this.sink) this.zwjRemoved(true);
    this.tmuxZwj = false;
  }

  /**
   * An invisible code point in ground. Kept as text only where real text needs it (see the
   * README's "Invisible code points"): one VS15/VS16 right after a character that takes it, one
   * ideographic variation selector right after a CJK ideograph, and a ZWJ/ZWNJ right after an
   * emoji or a letter of a joining script, held until the next character shows whether it may
   * follow. `prev` is the code point printed right before (-1 if none).
   */
  private invisible(buf: Uint8Array, at: number, len: number, off: number, cp: number, prev: number): void {
    if (prev >= 0 && !this.holding) {
      let keep = false;
      if (cp === VS16 || cp === VS15) keep = takesPresentationSelector(prev);
      else if (isIdeographicSelector(cp)) keep = isIdeograph(prev);
      else if (cp === ZWJ || cp === ZWNJ) {
        const gate = this.gate;
        if (gate !== null && this.out === gate && gate.until === off) {
          // A run of joiners keeps at most the first: the rest go, and the first still waits.
          this.sink.span(SpanClass.Invisible, off, len, invisibleMeaning(cp), 0, cp);
          gate.until = off + len;
          this.prevEnd = off + len;
          return;
        }
        const emoji = cp === ZWJ && (isPictographic(prev) || prev === VS16);
        if (emoji || isJoiningLetter(prev)) {
          const gate = (this.gate ??= new JoinerGate(this, this.sink));
          gate.bytes.set(buf.subarray(at, at + 3));
          gate.offset = off;
          gate.until = off + len;
          gate.cp = cp;
          gate.emoji = emoji;
          this.out = gate;
          this.prevEnd = off + len;
          this.prevCp = cp;
          return;
        }
      }
      if (keep) {
        this.out.print(buf, at, at + len, off);
        this.prevEnd = off + len;
        this.prevCp = cp;
        return;
      }
    }
    this.out.span(SpanClass.Invisible, off, len, invisibleMeaning(cp), 0, cp);
    if (cp === ZWJ) this.zwjRemoved(prev < 0 || prev === 0x0a);
  }

  /** @internal The joiner gate or ZWJ guard is done: events go straight to the sink again. */
  ungate(): void {
    this.out = this.sink;
  }

  /** @internal Where events go now (the sink or a gate). */
  get output(): ParserSink {
    return this.out;
  }

  /**
   * @internal A ZWJ was removed in ground: tmux draws the next non-ASCII character elsewhere, and
   * nowhere in column 0 (see {@link ZwjGuard}); `column0`: the cursor may be there (no character
   * was printed right before the joiner on its line).
   */
  zwjRemoved(column0: boolean): void {
    const guard = (this.guard ??= new ZwjGuard(() => this.ungate(), this.sink));
    guard.column0 = column0;
    this.out = guard;
  }

  /** Ground: scan text runs fast, hand everything else to the table. */
  private ground(buf: Uint8Array, i: number, n: number): number {
    const base = this.base;
    const view = this.view;
    // Four bytes at a time while all are printable ASCII (unaligned reads: runs start anywhere).
    const last4 = buf === this.viewed ? n - 4 : -1;
    let run = i;
    while (i < n) {
      i = skipPlainWords4(view, i, last4);
      if (i >= n) break;
      const b = buf[i];
      if (b < 0x80) {
        if (PLAIN[b] === 1) {
          i++;
          continue;
        }
        if (i > run) {
          this.out.print(buf, run, i, base + run);
          // What a REP right after it repeats.
          this.prevEnd = base + i;
          this.prevCp = buf[i - 1] < 0x80 ? buf[i - 1] : lastCharOf(buf, run, i);
        }
        const done = b === 0x1b && i + 1 < n ? this.wholeEsc(buf, i, n) : -1;
        if (done >= 0) {
          i = done;
          run = i;
          // A shift, designation or restore may have chosen a set that redraws ASCII.
          if (this.drawing) return i;
          continue;
        }
        this.step(b, buf, i, 1, base + i);
        i++;
        // An ASCII unit never makes the readings disagree: only the state (or the set in use) can have changed.
        if (this.state !== State.Ground || this.drawing) return i;
      } else {
        const skip = plainMultibyteLength(buf, i, n, b);
        if (skip > 0) {
          i += skip;
          continue;
        }
        const r = classifyMultibyte(buf, i, n);
        const kind = r & 7;
        if (kind === Utf8Kind.Text) {
          i += r >> 3;
          continue;
        }
        const len = r >> 3;
        if (kind === Utf8Kind.Invisible) {
          this.groundInvisible(buf, run, i, len);
          i += len;
          run = i;
          continue;
        }
        if (i > run) this.out.print(buf, run, i, base + run);
        if (kind === Utf8Kind.Incomplete) {
          // A character cut by the chunk's end may be an invisible code point that looks back.
          if (i > run) {
            this.prevEnd = base + i;
            this.prevCp = lastCharOf(buf, run, i);
          }
          return this.stash(buf, i, n);
        }
        this.step(unitCode(kind), buf, i, len, base + i);
        i += len;
        if (this.state !== State.Ground || this.diverged) return i;
      }
      run = i;
    }
    if (i > run) {
      this.out.print(buf, run, i, base + run);
      this.prevEnd = base + i;
      this.prevCp = lastCharOf(buf, run, i);
    }
    return i;
  }

  /** An invisible code point at `buf[i]` in ground, after the text run `buf[run..i)`. */
  private groundInvisible(buf: Uint8Array, run: number, i: number, len: number): void {
    const cp = lastCodePoint;
    const off = this.base + i;
    if (i > run) this.out.print(buf, run, i, this.base + run);
    if (!mayBeKept(cp)) {
      this.out.span(SpanClass.Invisible, off, len, invisibleMeaning(cp), 0, cp);
      return;
    }
    const prev = i > run ? lastCharOf(buf, run, i) : this.prevEnd === off ? this.prevCp : -1;
    this.invisible(buf, i, len, off, cp, prev);
  }

  /**
   * Fast paths for what an ESC in ground opens, when it ends inside this chunk: a CSI
   * ({@link wholeCsi}), an OSC string ({@link wholeString}), or a plain two-byte ESC sequence
   * every terminal reading ends there too. Returns the index after it, or -1 to let the state
   * machine take it (APC, PM and SOS go there: libvterm shows their payload).
   */
  private wholeEsc(buf: Uint8Array, i: number, n: number): number {
    const next = buf[i + 1];
    if (next === 0x5b) return this.wholeCsi(buf, i, n);
    if (next === 0x5d) return this.wholeString(buf, i, n, next);
    if ((TRANSITIONS[(State.Escape << 8) | next] >> 4) === Action.EscDispatch && AGREE[(State.Escape << 8) | next] === 1) {
      // ESC Fs/Fp/nF final without intermediates (ESC 7, ESC M, ESC c, ESC \ ...): what the
      // table does for ESC then the final, in one step.
      this.open(SpanClass.Esc, this.base + i, 0);
      this.final = next;
      this.finish(this.base + i + 2, 0, this.base + i + 2);
      return i + 2;
    }
    return -1;
  }

  /**
   * Fast path for an OSC string opened by `ESC intro` (`]`) whose payload is printable ASCII up to
   * its terminator (BEL or ESC \) inside this chunk, where every terminal reading agrees. The scan for the
   * terminator changes nothing, so anything else (a C0 or non-ASCII byte in the payload, an ESC
   * that does not end it, the chunk's end) returns -1 with the state untouched; otherwise the
   * string is reported through the same bookkeeping the table drives (open, enter, OSC header,
   * finish), so the span, its meaning, flags and limits are the state machine's.
   */
  private wholeString(buf: Uint8Array, i: number, n: number, intro: number): number {
    let j = skipPlainWords4(this.view, i + 2, buf === this.viewed ? n - 4 : -1);
    while (j < n && buf[j] >= 0x20 && buf[j] < 0x7f) j++;
    if (j >= n) return -1;
    let end: number;
    if (buf[j] === 0x07 && intro === 0x5d) end = j + 1;
    else if (buf[j] === 0x1b && j + 1 < n && buf[j + 1] === 0x5c) end = j + 2;
    else return -1;
    const base = this.base;
    this.open(SpanClass.Esc, base + i, 0);
    this.enter(intro, base + i + 2);
    if (intro === 0x5d) this.oscHeader(buf, i + 2, j);
    this.finish(base + end, 0, base + j);
    return end;
  }

  /**
   * Fast path for the commonest sequence, a well-formed `ESC [` CSI that ends inside this chunk:
   * parsed in one loop with the same result the table would give. Returns the index after the
   * final byte, or -1 to let the state machine take it (anything unusual, or a chunk boundary).
   */
  private wholeCsi(buf: Uint8Array, i: number, n: number): number {
    // SGR reset `ESC [ 0 m`, about half of all SGR in coloured logs, counted without the loops below.
    const counts = this.sgrCounts;
    if (counts !== null && i + 3 < n && buf[i + 3] === 0x6d && buf[i + 2] === 0x30 && this.out === this.sink
      && this.limits.maxCsiParamBytes >= 1) {
      counts[0]++;
      counts[1] += 4;
      if (this.sgrLog !== null) recordSpan(this.sgrLog, this.base + i, 4, this.sgrKind0);
      return i + 4;
    }
    let j = i + 2;
    // Past the limit the sequence is oversized: leave it to the state machine, which flags it.
    const stop = Math.min(n, j + this.limits.maxCsiParamBytes + 1);
    let priv = 0;
    if (j < stop && buf[j] >= 0x3c && buf[j] <= 0x3f) priv = buf[j++];
    let b = j < stop ? buf[j] : 0;
    let count = 0;
    /** A tracked parameter is 8 (SGR conceal: a meaning of its own). */
    let eight = false;
    if (b >= 0x30 && b <= 0x3b) {
      // One parameter per pass: its value, then any `:` sub-parameters (not tracked), then `;`.
      const params = this.params;
      for (;;) {
        let value = -1;
        while (b >= 0x30 && b <= 0x39) {
          value = Math.min((value < 0 ? 0 : value * 10) + (b - 0x30), MAX_PARAM_VALUE);
          if (value === MAX_PARAM_VALUE) {
            // Saturated: more digits change nothing (oversized headers are long digit runs).
            j = this.skipBytesFrom30(buf, j + 1, stop, DIGIT_BYTES);
            b = j < stop ? buf[j] : 0;
            break;
          }
          b = ++j < stop ? buf[j] : 0;
        }
        while (b >= 0x30 && b <= 0x3a) b = ++j < stop ? buf[j] : 0;
        if (count < MAX_TRACKED_PARAMS) {
          params[count] = value;
          if (value === 8) eight = true;
        }
        count++;
        if (b !== 0x3b) break;
        b = ++j < stop ? buf[j] : 0;
        if (count === MAX_TRACKED_PARAMS) {
          // The rest is only skipped (untracked parameters carry no meaning), four bytes at a time.
          j = this.skipBytesFrom30(buf, j, stop, PARAM_BYTES);
          b = j < stop ? buf[j] : 0;
          break;
        }
      }
    }
    let inter = 0;
    while (j < stop && b >= 0x20 && b <= 0x2f) {
      if (inter === 0) inter = b;
      b = ++j < stop ? buf[j] : 0;
    }
    if (j >= stop || b < 0x40 || b > 0x7e || j - i - 2 > this.limits.maxCsiParamBytes) return -1;
    if (b === 0x6d && (priv | inter) === 0) {
      // Plain SGR, the commonest span by far: counted here when the sink only counts it (see
      // ParserOptions.sgrCounts), else reported with its meaning picked without csiMeaning.
      if (counts !== null && this.out === this.sink) {
        const k = eight ? 2 : 0;
        counts[k]++;
        counts[k + 1] += j + 1 - i;
        if (this.sgrLog !== null) recordSpan(this.sgrLog, this.base + i, j + 1 - i, eight ? this.sgrKind1 : this.sgrKind0);
      } else {
        this.out.span(SpanClass.Csi, this.base + i, j + 1 - i, eight ? SGR_MEANINGS[1] : SGR_MEANINGS[0], 0, b, count > 0 ? this.params[0] : -1);
      }
      return j + 1;
    }
    const meaning = csiMeaning(priv, inter, b, this.params, Math.min(count, MAX_TRACKED_PARAMS));
    this.out.span(SpanClass.Csi, this.base + i, j + 1 - i, meaning, 0, b, count > 0 ? this.params[0] : -1);
    if (this.charsets !== null) this.charsetCsi(priv, inter, b, count > 0 ? this.params[0] : -1);
    if (b === 0x62 && (priv | inter) === 0) this.repeat(this.base + i, j + 1 - i, count > 0 ? this.params[0] : -1);
    return j + 1;
  }

  /**
   * REP (CSI n b) at `off`, `len` bytes: xterm.js, tmux and libvterm repeat a printable ASCII
   * character printed right before it alike, up to {@link MAX_REPEAT} times (past the line's end
   * tmux and libvterm stop, xterm.js wraps): the copies are text, drawn for the REP. Anything else
   * they repeat differently (tmux no non-ASCII, libvterm also after other controls, by columns):
   * a stretch that shows text, so words around it stay apart.
   */
  private repeat(off: number, len: number, count: number): void {
    const cp = this.prevCp;
    if (this.prevEnd === off && cp >= 0x20 && cp < 0x7f && !this.drawing && !this.diverged) {
      const n = count <= 0 ? 1 : count;
      for (let k = Math.min(n, MAX_REPEAT); k > 0; k--) this.out.drawn(cp, off, len);
      if (n <= MAX_REPEAT) return;
    }
    this.out.ambiguous?.(off, len, StretchFlag.ShownText);
  }

  /** Ground while a character set redraws ASCII: one unit at a time, each drawn as the readings agree (see {@link draw}). */
  private groundDrawn(buf: Uint8Array, i: number, n: number): number {
    while (i < n && this.drawing && this.state === State.Ground && !this.diverged) i = this.nextUnit(buf, i, n);
    return i;
  }

  /**
   * A unit this reading prints while a character set is in use: the glyph every reading draws
   * (charsets.ts), the unit itself where that is what they draw, or withheld where they disagree.
   */
  private draw(code: number, buf: Uint8Array, at: number, len: number, off: number): void {
    const charsets = this.charsets as Charsets;
    const glyph = code < 0x80 ? charsets.glyph(code) : charsets.other() ? code : -1;
    this.drawing = charsets.active;
    if (glyph === code) {
      this.out.print(buf, at, at + len, off);
      this.prevCp = code < 0x80 ? code : lastCodePoint;
    } else if (glyph < 0) {
      this.out.span(SpanClass.Withheld, off, len, CHARSET_MEANING, 0, 0);
      this.out.ambiguous?.(off, len, StretchFlag.WithheldText);
      this.prevCp = 0;
    } else {
      this.out.drawn(glyph, off, len);
      this.prevCp = glyph;
    }
    this.prevEnd = off + len;
  }

  /** An ESC sequence that may designate or shift a character set, reset or save/restore them. */
  private charsetEscape(): void {
    const final = this.final;
    if (this.headerBytes === 1 && this.inter >= 0x25 && this.inter <= 0x2f) {
      (this.charsets ??= new Charsets()).escape(this.inter, final);
    } else if (this.headerBytes === 0) {
      if (final === 0x6e || final === 0x6f || final === 0x7c || final === 0x7d || final === 0x7e || final === 0x4e || final === 0x4f) {
        this.charsets ??= new Charsets();
      }
      this.charsets?.escapeFinal(final);
    }
    if (this.charsets !== null) this.drawing = this.charsets.active;
  }

  /** A CSI that may save, restore or reset the character sets (see Charsets.csi). */
  private charsetCsi(priv: number, inter: number, final: number, first: number): void {
    if (final !== 0x73 && final !== 0x75 && final !== 0x70 && final !== 0x68 && final !== 0x6c) return;
    const charsets = this.charsets as Charsets;
    charsets.csi(priv, inter, final, first);
    this.drawing = charsets.active;
  }

  /** ESC, CSI and DCS-header states: one unit at a time through the table. */
  private sequence(buf: Uint8Array, i: number, n: number): number {
    const base = this.base;
    while (i < n) {
      const b = buf[i];
      if (b >= 0x30 && b <= 0x3b && (this.state === State.CsiParam || this.state === State.CsiEntry)) {
        // The table's csi_param self-loop, inlined for long parameter runs.
        i = this.paramRun(buf, i, n);
        this.state = State.CsiParam;
        continue;
      } else if (b < 0x80) {
        this.step(b, buf, i, 1, base + i);
        i++;
      } else {
        const r = classifyMultibyte(buf, i, n);
        const kind = r & 7;
        if (kind === Utf8Kind.Incomplete) return this.stash(buf, i, n);
        const len = r >> 3;
        this.step(unitCode(kind), buf, i, len, base + i);
        i += len;
      }
      // Stay while still in an ESC, CSI or DCS header state and the readings agree.
      const s = this.state;
      if (s === State.Ground || s >= State.DcsPassthrough || this.diverged) return i;
    }
    return i;
  }

  /** String payloads (OSC, DCS, SOS, PM, APC): skip payload fast, stop at terminators. */
  private payload(buf: Uint8Array, i: number, n: number): number {
    // Called whenever the string is an OSC (it returns at once past the header): a call made only
    // once a new OSC's header is read would have no type feedback in code optimized on a long
    // payload, and V8 would throw that code away at the next OSC.
    if (this.state === State.OscString) i = this.oscHeader(buf, i, n);
    const base = this.base;
    const state = this.state;
    const wb = this.wordBase;
    // The viewed chunk has words when it runs 4 bytes past their (alignment) start.
    const swar = buf === this.viewed && n - wb >= 4;
    while (i < n) {
      if (swar && ((i - wb) & 3) === 0 && i >= wb) {
        i = this.skipPlainWords(i);
        if (i >= n) break;
      }
      const b = buf[i];
      if (b >= 0x20 && b < 0x80) {
        i++;
      } else if (b < 0x20) {
        if (STRING_STOPS[(state << 5) | b] === 1) {
          this.step(b, buf, i, 1, base + i);
          return i + 1;
        }
        i++;
      } else {
        const r = classifyMultibyte(buf, i, n);
        const kind = r & 7;
        if (kind === Utf8Kind.Incomplete) return this.stash(buf, i, n);
        const len = r >> 3;
        // A C1 control, or a unit some terminal reading takes otherwise (xterm.js leaves an APC at
        // a character): through the table.
        const code = unitCode(kind);
        if (kind === Utf8Kind.C1 || AGREE[(state << 8) | code] === 0) {
          this.step(code, buf, i, len, base + i);
          return i + len;
        }
        i += len;
      }
    }
    return i;
  }

  /** Reads the OSC command number (and, for OSC 8, where the URI starts) without consuming terminators. */
  private oscHeader(buf: Uint8Array, i: number, n: number): number {
    while (i < n && this.oscPhase !== OscPhase.Payload) {
      const b = buf[i];
      if (this.oscPhase === OscPhase.Command) {
        if (b >= 0x30 && b <= 0x39) {
          if (++this.oscDigits <= MAX_OSC_COMMAND_DIGITS) this.oscCommand = Math.max(this.oscCommand, 0) * 10 + (b - 0x30);
          else this.oscCommand = Number.MAX_SAFE_INTEGER;
          i++;
        } else if (b === 0x3b) {
          this.oscPhase = this.oscCommand === 8 ? OscPhase.HyperlinkParams : OscPhase.Payload;
          i++;
        } else {
          this.oscPhase = OscPhase.Payload;
        }
      } else if (b === 0x3b) {
        this.hyperlinkUriStart = this.base + i + 1;
        this.oscPhase = OscPhase.Payload;
        i++;
      } else if (b >= 0x20 && b < 0x7f) {
        i++;
      } else {
        this.oscPhase = OscPhase.Payload;
      }
    }
    return i;
  }

  /** Keeps a UTF-8 prefix cut by the chunk's end until the next chunk completes or breaks it. */
  private stash(buf: Uint8Array, i: number, n: number): number {
    this.pending.set(buf.subarray(i, n));
    this.pendingLen = n - i;
    this.pendingAt = this.base + i;
    return n;
  }

  /**
   * Finishes the stashed unit with the first bytes of `chunk`; returns how many of them it used.
   * A unit may end inside the stash (an ill-formed subpart cut before a 0x80–0x9F byte): the rest
   * of the stash is then classified again.
   */
  private completePending(chunk: Uint8Array): number {
    for (;;) {
      const had = this.pendingLen;
      const take = Math.min(chunk.length, 4 - had);
      this.pending.set(chunk.subarray(0, take), had);
      const total = had + take;
      const r = classifyMultibyte(this.pending, 0, total);
      const kind = r & 7;
      if (kind === Utf8Kind.Incomplete) {
        this.pendingLen = total;
        return chunk.length;
      }
      const len = r >> 3;
      this.pendingLen = 0;
      this.unit(kind, this.pending, 0, len, this.pendingAt);
      if (len >= had) return len - had;
      this.unstash(len, had);
    }
  }

  /**
   * Applies one table transition for the unit `buf[at..at+len)` at stream offset `off`, or, when
   * the unit makes a terminal reading disagree with this one, takes it through {@link lockUnit}.
   */
  private step(code: number, buf: Uint8Array, at: number, len: number, off: number): void {
    if (!this.diverged && this.disagrees(code, buf, at, len)) {
      this.diverge(off);
      this.lockUnit(code, buf, at, len, off);
      return;
    }
    if (this.stringEscPending) {
      this.stringEscPending = false;
      if (code === 0x5c) {
        this.finish(off + len, 0, this.escInStringAt);
        this.state = State.Ground;
        return;
      }
      // The ESC interrupted the string: the string ends before it, and the ESC opens a sequence.
      this.finish(this.escInStringAt, SpanFlag.Malformed, this.escInStringAt);
      this.open(SpanClass.Esc, this.escInStringAt, 0);
    }
    const before = this.state;
    const entry = TRANSITIONS[(before << 8) | code];
    const next = (entry & 0xf) as State;
    switch ((entry >> 4) as Action) {
      case Action.Ignore:
        // Sent to an ignore state, or a non-ASCII unit inside an ESC, CSI or DCS header.
        if ((next !== before && (next === State.CsiIgnore || next === State.DcsIgnore)) || code >= 0x80) this.seqFlags |= SpanFlag.Malformed;
        break;
      case Action.Print:
        if (this.holding) {
          this.hold(off, len);
        } else if (this.drawing) {
          this.draw(code, buf, at, len, off);
        } else {
          this.out.print(buf, at, at + len, off);
          this.prevEnd = off + len;
          this.prevCp = code < 0x80 ? code : lastCodePoint;
        }
        break;
      case Action.Execute:
        this.execute(code, buf, at, len, off);
        break;
      case Action.EscStart:
        if (this.inString()) {
          this.stringEscPending = true;
          this.escInDcs = before === State.DcsPassthrough;
          this.escInStringAt = off;
        } else {
          if (this.state !== State.Ground) this.finish(off, SpanFlag.Malformed, off);
          this.open(SpanClass.Esc, off, 0);
        }
        break;
      case Action.C1Start:
        this.c1(Action.C1Start, code, off, len);
        break;
      case Action.Collect:
        this.collect(code);
        break;
      case Action.Param:
        this.param(code);
        break;
      case Action.EscDispatch:
      case Action.CsiDispatch:
        this.final = code;
        this.finish(off + len, 0, off + len);
        break;
      case Action.Enter:
        this.enter(code, off + len);
        break;
      case Action.Hook:
        this.final = code;
        this.payloadStart = off + len;
        break;
      case Action.Put:
        break;
      case Action.StringEnd:
        if (code === 0x07) this.finish(off + len, 0, off);
        else this.c1(Action.StringEnd, code, off, len);
        break;
      case Action.Abort:
        if (this.state !== State.Ground) this.finish(off, SpanFlag.Malformed, off);
        this.controlSpan(SpanClass.C0, code, off, len);
        break;
      case Action.C1Execute:
        this.c1(Action.C1Execute, code, off, len);
        break;
    }
    this.state = next;
  }

  /**
   * A C1 control (`len` 2: encoded; 1: a stray raw byte, C1 to this 8-bit reading only) that opens
   * a sequence, ends a string, or executes.
   */
  private c1(action: Action, code: number, off: number, len: number): void {
    const stray = len === 1;
    if (action === Action.StringEnd && this.inString()) {
      this.finish(off + len, stray ? SpanFlag.Stray : 0, off);
    } else {
      if (this.state !== State.Ground) this.finish(off, SpanFlag.Malformed, off);
      if (action === Action.C1Start) {
        this.open(INTRODUCED[code & 0x1f], off, SpanFlag.EightBit | (stray ? SpanFlag.Stray : SpanFlag.Utf8Encoded));
        this.payloadStart = off + len;
      } else if (stray) {
        this.straySpan(code, off);
      } else {
        this.controlSpan(SpanClass.C1, code, off, len);
      }
    }
  }

  /** A stray C1 byte that opens nothing: invalid UTF-8, labelled with what an 8-bit terminal does. */
  private straySpan(code: number, off: number): void {
    this.out.span(SpanClass.InvalidUtf8, off, 1, strayMeaning(code), SpanFlag.Stray, code);
  }

  private inString(): boolean {
    return this.state >= State.DcsPassthrough || this.state === State.DcsEntry
      || this.state === State.DcsParam || this.state === State.DcsIntermediate;
  }

  /** A control executed where it stands: LF and TAB stay text, everything else is a span. */
  private execute(code: number, buf: Uint8Array, at: number, len: number, off: number): void {
    if (code === 0x0a || code === 0x09) {
      if (this.holding) {
        this.hold(off, 1);
      } else {
        this.out.print(ASCII, code, code + 1, off);
        this.prevEnd = off + 1;
        this.prevCp = code;
      }
    } else if (code < 0x80) {
      this.controlSpan(SpanClass.C0, code, off, 1);
    } else if (code === Unit.Invisible || code === Unit.Bom) {
      this.invisible(buf, at, len, off, lastCodePoint, this.prevEnd === off ? this.prevCp : -1);
    } else {
      this.out.span(SpanClass.InvalidUtf8, off, len, 'invalid UTF-8', 0, buf[at]);
    }
  }

  private controlSpan(cls: SpanClass, code: number, off: number, len: number): void {
    const flags = len > 1 ? SpanFlag.Utf8Encoded : 0;
    this.out.span(cls, off, len, code < 0x80 ? c0Meaning(code) : c1Meaning(code), flags, code);
    if (code === 0x0e || code === 0x0f) {
      // SO, SI: a locking shift to G1 or G0.
      const charsets = (this.charsets ??= new Charsets());
      charsets.shift(code === 0x0e ? 1 : 0);
      this.drawing = charsets.active;
    }
  }

  private open(cls: SpanClass, off: number, flags: number): void {
    this.seqStart = off;
    this.seqClass = cls;
    this.seqFlags = flags;
    this.headerBytes = 0;
    this.priv = 0;
    this.inter = 0;
    this.final = 0;
    this.paramIndex = -1;
    this.inSubParam = false;
    this.payloadStart = -1;
    this.oscPhase = OscPhase.Command;
    this.oscCommand = -1;
    this.oscDigits = 0;
    this.hyperlinkUriStart = -1;
  }

  /** ESC followed by `[`, `]`, `P`, `X`, `^` or `_`: the ESC span becomes a CSI or a string. */
  private enter(code: number, payloadStart: number): void {
    this.seqClass = INTRODUCED[code & 0x1f];
    this.payloadStart = payloadStart;
  }

  private collect(code: number): void {
    if (this.state === State.Escape || this.state === State.EscapeIntermediate) {
      if (this.inter === 0) this.inter = code;
      if (++this.headerBytes > this.limits.maxEscIntermediates) this.seqFlags |= SpanFlag.Oversized;
      return;
    }
    if (code >= 0x3c) this.priv = code;
    else if (this.inter === 0) this.inter = code;
    this.countHeaderByte();
  }

  private param(code: number): void {
    this.countHeaderByte();
    if (this.paramIndex < 0) this.startParam();
    if (code === 0x3b) {
      this.startParam();
    } else if (code === 0x3a) {
      this.inSubParam = true;
    } else if (!this.inSubParam && this.paramIndex < MAX_TRACKED_PARAMS) {
      const p = this.params[this.paramIndex];
      this.params[this.paramIndex] = Math.min((p < 0 ? 0 : p * 10) + (code - 0x30), MAX_PARAM_VALUE);
    }
  }

  /** Consumes a run of parameter bytes; once the tracked parameters are full it only counts. */
  private paramRun(buf: Uint8Array, i: number, n: number): number {
    // The chunk's end returns from inside the loop: code after it runs only for headers past the
    // tracked parameters, so a chunk that ends in a parameter needs no code without type feedback.
    while (this.paramIndex < MAX_TRACKED_PARAMS) {
      if (i >= n) return i;
      const b = buf[i];
      if (b < 0x30 || b > 0x3b) return i;
      if (b <= 0x39 && this.paramIndex >= 0 && !this.inSubParam) {
        // The digits of a tracked parameter in one local loop: what param does for each of them
        // (the saturating value, one header byte each), without a call and two field writes per
        // byte. Long digit runs are what oversized headers are made of.
        let value = this.params[this.paramIndex];
        let j = i;
        let c = b;
        do {
          value = Math.min((value < 0 ? 0 : value * 10) + (c - 0x30), MAX_PARAM_VALUE);
          if (value === MAX_PARAM_VALUE) {
            j = this.skipBytesFrom30(buf, j + 1, n, DIGIT_BYTES);
            break;
          }
          c = ++j < n ? buf[j] : 0;
        } while (c >= 0x30 && c <= 0x39);
        this.params[this.paramIndex] = value;
        this.headerBytes += j - i;
        if (this.headerBytes > this.limits.maxCsiParamBytes) this.seqFlags |= SpanFlag.Oversized;
        i = j;
        continue;
      }
      this.param(b);
      i++;
    }
    const start = i;
    i = this.skipBytesFrom30(buf, i, n, PARAM_BYTES);
    this.headerBytes += i - start;
    if (this.headerBytes > this.limits.maxCsiParamBytes) this.seqFlags |= SpanFlag.Oversized;
    return i;
  }

  private startParam(): void {
    this.paramIndex++;
    this.inSubParam = false;
    if (this.paramIndex < MAX_TRACKED_PARAMS) this.params[this.paramIndex] = -1;
  }

  private countHeaderByte(): void {
    if (++this.headerBytes > this.limits.maxCsiParamBytes) this.seqFlags |= SpanFlag.Oversized;
  }

  /**
   * Reports the open sequence as one span ending at `end`. For strings, `terminatorAt` is where
   * the payload stopped (the terminator's offset, or `end` when there was none).
   */
  private finish(end: number, flags: number, terminatorAt: number): void {
    const cls = this.seqClass;
    flags |= this.seqFlags;
    let meaning: string;
    let code = this.final;
    switch (cls) {
      case SpanClass.Esc:
        meaning = this.final !== 0 ? escMeaning(this.inter, this.final) : c0Meaning(0x1b);
        break;
      case SpanClass.Csi:
        meaning = this.final !== 0
          ? csiMeaning(this.priv, this.inter, this.final, this.params, Math.min(this.paramIndex + 1, MAX_TRACKED_PARAMS))
          : 'CSI sequence (incomplete)';
        break;
      case SpanClass.Osc:
        code = this.oscCommand;
        meaning = oscMeaning(this.oscCommand, this.hyperlinkUriStart >= 0 && terminatorAt > this.hyperlinkUriStart);
        break;
      case SpanClass.Dcs:
        meaning = dcsMeaning(this.priv, this.inter, this.final);
        break;
      case SpanClass.Sos:
        meaning = SOS_MEANING;
        break;
      case SpanClass.Pm:
        meaning = PM_MEANING;
        break;
      default:
        meaning = APC_MEANING;
    }
    if (this.payloadStart >= 0 && terminatorAt - this.payloadStart > this.limits.maxStringBytes
      && cls >= SpanClass.Osc) {
      flags |= SpanFlag.Oversized;
    }
    const param = cls === SpanClass.Csi && this.paramIndex >= 0 ? this.params[0] : -1;
    this.out.span(cls, this.seqStart, end - this.seqStart, meaning, flags, code, param);
    if ((flags & SpanFlag.Malformed) === 0 && this.final !== 0) {
      if (cls === SpanClass.Esc) {
        this.charsetEscape();
      } else if (cls === SpanClass.Csi) {
        if (this.charsets !== null) this.charsetCsi(this.priv, this.inter, this.final, param);
        if (this.final === 0x62 && (this.priv | this.inter) === 0) this.repeat(this.seqStart, end - this.seqStart, param);
      }
    }
  }
}

/**
 * Span class of the sequence an introducer opens, indexed by its low five bits: the C1 form
 * (0x90 DCS, 0x98 SOS, 0x9B CSI, 0x9D OSC, 0x9E PM, 0x9F APC) and the ESC form (ESC P, X, [, ], ^, _)
 * share them, since ESC Fe is the 7-bit spelling of C1 control 0x80 + (Fe - 0x40).
 */
const INTRODUCED: SpanClass[] = [];
INTRODUCED[0x10] = SpanClass.Dcs;
INTRODUCED[0x18] = SpanClass.Sos;
INTRODUCED[0x1b] = SpanClass.Csi;
INTRODUCED[0x1d] = SpanClass.Osc;
INTRODUCED[0x1e] = SpanClass.Pm;
INTRODUCED[0x1f] = SpanClass.Apc;

function unitCode(kind: Utf8Kind): number {
  switch (kind) {
    case Utf8Kind.Text: return Unit.Text;
    case Utf8Kind.Invisible: return lastCodePoint === 0xfeff ? Unit.Bom : Unit.Invisible;
    case Utf8Kind.C1: return lastCodePoint;
    default: return Unit.Invalid;
  }
}
