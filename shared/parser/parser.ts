import { INVISIBLE_BMP, isIdeographicSelector, VS15, VS16, ZWJ, ZWNJ } from './invisible';
import { invisibleMeaning } from './meaning';
import { MAX_PARAM_VALUE, MAX_TRACKED_PARAMS } from './params';
import { SpanClass } from './span-class';
import { StateMachine, unitCode } from './state-machine';
import { Action, State } from './states';
import { OscPhase } from './strings';
import { lookups, TRANSITIONS } from './tables';
import { classifyMultibyte, lastCharOf, lastCodePoint, Utf8Kind } from './utf8';
import { ChunkWords, DIGIT_BYTES, PARAM_BYTES } from './words';

/** Bytes that are text in ground: TAB, LF and printable ASCII. */
const PLAIN = new Uint8Array(256);
PLAIN[0x09] = 1;
PLAIN[0x0a] = 1;
PLAIN.fill(1, 0x20, 0x7f);

/** The first bytes of a stream are fed in pieces of {@link WARM_UP_PIECE} (see Parser.feed). */
const WARM_UP_BYTES = 1 << 19;
const WARM_UP_PIECE = 1 << 15;

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

/** The invisible code points real text may need (see Printer.invisible). */
function mayBeKept(cp: number): boolean {
  return cp === ZWJ || cp === ZWNJ || cp === VS16 || cp === VS15 || isIdeographicSelector(cp);
}

/**
 * The streaming parser: the {@link StateMachine} with fast paths that take a stretch of a chunk
 * at once where the table would take it unit by unit, with the same events (held to the state
 * machine by test/shared/fast-path-differential.test.ts), each for the input it speeds up:
 * - {@link ground}: text runs four bytes at a time, common 2- and 3-byte characters inline (plain logs).
 * - {@link wholeCsi}: a whole `ESC [` CSI in one loop, SGR's meaning without a lookup (colour logs).
 * - {@link wholeEsc}, {@link wholeString}: a two-byte ESC sequence, an OSC of printable ASCII (hostile mix).
 * - {@link paramRun}: long parameter runs in a header cut by a chunk's end or past the tracked parameters.
 * - {@link payload}: string payloads four bytes at a time (clipboard and image payloads).
 * - {@link lockstep}: a run of printable ASCII while the terminal readings disagree (linear time on them).
 */
export class Parser extends StateMachine {
  private readonly words = new ChunkWords();

  /** Feeds the next chunk of the stream. The chunk may be reused by the caller after return. */
  override feed(chunk: Uint8Array): void {
    if (this.ended) throw new Error('Parser.feed called after end()');
    if (this.base < WARM_UP_BYTES && chunk.length > WARM_UP_PIECE) {
      // The one JIT workaround (its gain: docs/performance.md#parser-jit-workarounds): what runs
      // once per chunk (a new chunk's views, a character, sequence or text run cut at its end)
      // then also runs while the code is still unoptimized, so V8 has type feedback for it when it
      // optimizes. Where chunks are cut never changes a result.
      const end = Math.min(chunk.length, WARM_UP_BYTES - this.base);
      let k = 0;
      for (; k < end; k += WARM_UP_PIECE) this.feedChunk(chunk.subarray(k, Math.min(k + WARM_UP_PIECE, chunk.length)));
      if (k < chunk.length) this.feedChunk(chunk.subarray(k));
      return;
    }
    this.feedChunk(chunk);
  }

  private feedChunk(chunk: Uint8Array): void {
    this.words.set(chunk);
    super.feed(chunk);
    this.words.clear();
  }

  /** The chunk from `i` on, one stretch per fast path. */
  protected override parse(buf: Uint8Array, i: number, n: number): void {
    while (i < n) {
      if (this.readings.diverged) {
        i = this.lockstep(buf, i, n);
        continue;
      }
      const state = this.state;
      if (state === State.Ground) i = this.text.drawing ? this.groundDrawn(buf, i, n) : this.ground(buf, i, n);
      else if (state >= State.DcsPassthrough) i = this.payload(buf, i, n);
      else i = this.sequence(buf, i, n);
    }
  }

  /** While the readings disagree: printable ASCII in runs where they allow it, else unit by unit. */
  private lockstep(buf: Uint8Array, i: number, n: number): number {
    while (i < n && this.readings.diverged) {
      const b = buf[i];
      if (b >= 0x20 && b < 0x7f && !this.str.escPending) {
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
    if (!mineShows && !(here >= State.DcsPassthrough && (here !== State.OscString || this.str.phase === OscPhase.Payload))) return i;
    if (!this.readings.takesRun(mineShows)) return i;
    let end = i + 1;
    while (end < n && buf[end] >= 0x20 && buf[end] < 0x7f) end++;
    if (mineShows) this.readings.hold(this.base + i, end - i, this.text.out);
    return end;
  }

  /** Ground: text runs fast, everything else to the table (or a whole-sequence fast path). */
  private ground(buf: Uint8Array, i: number, n: number): number {
    const base = this.base;
    const text = this.text;
    const words = this.words;
    const last4 = words.lastWord(buf, n);
    let run = i;
    while (i < n) {
      i = words.skipPlain(i, last4);
      if (i >= n) break;
      const b = buf[i];
      if (b < 0x80) {
        if (PLAIN[b] === 1) {
          i++;
          continue;
        }
        // Printed with its last character: what a REP right after it repeats.
        if (i > run) text.print(buf, run, i, base + run, buf[i - 1] < 0x80 ? buf[i - 1] : lastCharOf(buf, run, i));
        const done = b === 0x1b && i + 1 < n ? this.wholeEsc(buf, i, n) : -1;
        if (done >= 0) {
          i = done;
          run = i;
          // A shift, designation or restore may have chosen a set that redraws ASCII.
          if (text.drawing) return i;
          continue;
        }
        this.step(b, buf, i, 1, base + i);
        i++;
        // An ASCII unit never makes the readings disagree: only the state (or the set in use) can have changed.
        if (this.state !== State.Ground || text.drawing) return i;
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
        // Anything else (a C1 control, invalid UTF-8, a character cut by the chunk's end) after the
        // run before it, through the state machine.
        if (i > run) text.print(buf, run, i, base + run, lastCharOf(buf, run, i));
        i = this.nextUnit(buf, i, n);
        if (this.state !== State.Ground || this.readings.diverged || text.drawing) return i;
      }
      run = i;
    }
    if (i > run) text.print(buf, run, i, base + run, lastCharOf(buf, run, i));
    return i;
  }

  /** An invisible code point at `buf[i]` in ground, after the text run `buf[run..i)`. */
  private groundInvisible(buf: Uint8Array, run: number, i: number, len: number): void {
    const cp = lastCodePoint;
    const text = this.text;
    const off = this.base + i;
    if (i > run) text.out.print(buf, run, i, this.base + run);
    if (!mayBeKept(cp)) {
      text.out.span(SpanClass.Invisible, off, len, invisibleMeaning(cp), 0, cp);
      return;
    }
    const prev = i > run ? lastCharOf(buf, run, i) : text.prevEnd === off ? text.prevCp : -1;
    text.invisible(buf, i, len, off, cp, prev, this.readings.holding);
  }

  /**
   * What an ESC in ground opens, when it ends inside this chunk: a CSI ({@link wholeCsi}), an OSC
   * string ({@link wholeString}), or a plain two-byte ESC sequence every terminal reading ends
   * there too. Returns the index after it, or -1 to let the state machine take it (APC, PM and
   * SOS go there: libvterm shows their payload).
   */
  private wholeEsc(buf: Uint8Array, i: number, n: number): number {
    const next = buf[i + 1];
    if (next === 0x5b) return this.wholeCsi(buf, i, n);
    if (next === 0x5d) return this.wholeString(buf, i, n);
    if ((TRANSITIONS[(State.Escape << 8) | next] >> 4) === Action.EscDispatch && lookups().agree[(State.Escape << 8) | next] === 1) {
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
   * An OSC string (`ESC ]`) whose payload is printable ASCII up to its terminator (BEL or ESC \)
   * inside this chunk, where every terminal reading agrees. The scan for the terminator changes
   * nothing, so anything else (a C0 or non-ASCII byte in the payload, an ESC that does not end it,
   * the chunk's end) returns -1 with the state untouched; otherwise the string is reported through
   * the bookkeeping the table drives (open, enter, OSC header, finish), so its span, meaning,
   * flags and limits are the state machine's.
   */
  private wholeString(buf: Uint8Array, i: number, n: number): number {
    let j = this.words.skipPlain(i + 2, this.words.lastWord(buf, n));
    while (j < n && buf[j] >= 0x20 && buf[j] < 0x7f) j++;
    if (j >= n) return -1;
    let end: number;
    if (buf[j] === 0x07) end = j + 1;
    else if (buf[j] === 0x1b && j + 1 < n && buf[j + 1] === 0x5c) end = j + 2;
    else return -1;
    const base = this.base;
    this.open(SpanClass.Esc, base + i, 0);
    this.enter(0x5d, base + i + 2);
    this.str.header(buf, i + 2, j, base);
    this.finish(base + end, 0, base + j);
    return end;
  }

  /**
   * The commonest sequence, a well-formed `ESC [` CSI that ends inside this chunk, parsed in one
   * loop with the result the table would give. Returns the index after the final byte, or -1 to
   * let the state machine take it (anything unusual, or a chunk boundary).
   */
  private wholeCsi(buf: Uint8Array, i: number, n: number): number {
    const limit = this.limits.maxCsiParamBytes;
    // SGR reset `ESC [ 0 m`, about half of all SGR in coloured logs, without the loops below.
    if (i + 3 < n && buf[i + 3] === 0x6d && buf[i + 2] === 0x30 && limit >= 1) {
      this.sgr(this.base + i, 4, false, 0);
      return i + 4;
    }
    let j = i + 2;
    // Past the limit the sequence is oversized: leave it to the state machine, which flags it.
    const stop = Math.min(n, j + limit + 1);
    let priv = 0;
    if (j < stop && buf[j] >= 0x3c && buf[j] <= 0x3f) priv = buf[j++];
    let b = j < stop ? buf[j] : 0;
    let count = 0;
    /** A tracked parameter is 8 (SGR conceal: a meaning of its own). */
    let eight = false;
    const params = this.params.values;
    if (b >= 0x30 && b <= 0x3b) {
      // One parameter per pass: its value, then any `:` sub-parameters (not tracked), then `;`.
      for (;;) {
        let value = -1;
        while (b >= 0x30 && b <= 0x39) {
          value = Math.min((value < 0 ? 0 : value * 10) + (b - 0x30), MAX_PARAM_VALUE);
          if (value === MAX_PARAM_VALUE) {
            // Saturated: more digits change nothing (oversized headers are long digit runs).
            j = this.words.skipFrom30(buf, j + 1, stop, DIGIT_BYTES);
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
          j = this.words.skipFrom30(buf, j, stop, PARAM_BYTES);
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
    if (j >= stop || b < 0x40 || b > 0x7e || j - i - 2 > limit) return -1;
    // Plain SGR, the commonest span by far: its meaning known without csiMeaning.
    if (b === 0x6d && (priv | inter) === 0) this.sgr(this.base + i, j + 1 - i, eight, count > 0 ? params[0] : -1);
    else this.csi(this.base + i, j + 1 - i, 0, priv, inter, b, Math.min(count, MAX_TRACKED_PARAMS));
    return j + 1;
  }

  /** Ground while a character set redraws ASCII: one unit at a time, each drawn as the readings agree (Printer.draw). */
  private groundDrawn(buf: Uint8Array, i: number, n: number): number {
    while (i < n && this.text.drawing && this.state === State.Ground && !this.readings.diverged) i = this.nextUnit(buf, i, n);
    return i;
  }

  /** ESC, CSI and DCS-header states: parameter runs at once, anything else through the table. */
  private sequence(buf: Uint8Array, i: number, n: number): number {
    while (i < n) {
      const b = buf[i];
      if (b >= 0x30 && b <= 0x3b && (this.state === State.CsiParam || this.state === State.CsiEntry)) {
        i = this.paramRun(buf, i, n);
        this.state = State.CsiParam;
        continue;
      }
      i = this.nextUnit(buf, i, n);
      // Stay while still in an ESC, CSI or DCS header state and the readings agree.
      const s = this.state;
      if (s === State.Ground || s >= State.DcsPassthrough || this.readings.diverged) return i;
    }
    return i;
  }

  /**
   * A run of CSI parameter bytes from `buf[i]`, as the table's param action would take it byte by
   * byte: the digits of a tracked parameter in one loop (long digit runs are what oversized
   * headers are made of), and once the tracked parameters are full, the rest only counted.
   */
  private paramRun(buf: Uint8Array, i: number, n: number): number {
    const params = this.params;
    while (params.index < MAX_TRACKED_PARAMS) {
      if (i >= n) return i;
      const b = buf[i];
      if (b < 0x30 || b > 0x3b) return i;
      if (b <= 0x39 && params.index >= 0 && !params.inSub) {
        let value = params.values[params.index];
        let j = i;
        let c = b;
        do {
          value = Math.min((value < 0 ? 0 : value * 10) + (c - 0x30), MAX_PARAM_VALUE);
          if (value === MAX_PARAM_VALUE) {
            j = this.words.skipFrom30(buf, j + 1, n, DIGIT_BYTES);
            break;
          }
          c = ++j < n ? buf[j] : 0;
        } while (c >= 0x30 && c <= 0x39);
        params.values[params.index] = value;
        this.countHeaderBytes(j - i);
        i = j;
        continue;
      }
      this.countHeaderBytes(1);
      params.add(b);
      i++;
    }
    const start = i;
    i = this.words.skipFrom30(buf, i, n, PARAM_BYTES);
    this.countHeaderBytes(i - start);
    return i;
  }

  /** String payloads (OSC, DCS, SOS, PM, APC): payload skipped fast, terminators through the table. */
  private payload(buf: Uint8Array, i: number, n: number): number {
    if (this.state === State.OscString) i = this.str.header(buf, i, n, this.base);
    const state = this.state;
    const words = this.words;
    const last4 = words.lastWord(buf, n);
    const { agree, stringStops } = lookups();
    while (i < n) {
      i = words.skipPlain(i, last4);
      if (i >= n) break;
      const b = buf[i];
      if (b >= 0x20 && b < 0x80) {
        i++;
      } else if (b < 0x20) {
        if (stringStops[(state << 5) | b] === 1) return this.nextUnit(buf, i, n);
        i++;
      } else {
        const r = classifyMultibyte(buf, i, n);
        const kind = r & 7;
        // Payload to every reading, or else (a C1 control, a unit some terminal reading takes
        // otherwise: xterm.js leaves an APC at a character; a character cut by the chunk's end)
        // through the table.
        if (kind === Utf8Kind.Incomplete || kind === Utf8Kind.C1 || agree[(state << 8) | unitCode(kind)] === 0) return this.nextUnit(buf, i, n);
        i += r >> 3;
      }
    }
    return i;
  }
}

