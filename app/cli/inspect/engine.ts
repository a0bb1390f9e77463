import { CELL_KINDS } from '../../../shared/hex/cell';
import { ASCII_CELLS, C1_CELLS, CONTINUATION_CELL, INVALID_CELLS, PARTIAL_CELLS } from '../../../shared/hex/notation';
import { leadCellForCodePoint } from '../../../shared/hex/codepoint';
import { SPAN_CLASS_NAMES, type SpanClass } from '../../../shared/parser/span-class';
import type { ByteOutput } from './bytes-out';
import { DUMP_ENGINE_WASM } from './engine.generated';
import { cellSgr } from './paint';
import { classColumn, COALESCED_WORDS, flagLabel, LINE_CONTINUATION, lineHead } from './line-text';
import { rowContinuation } from './row-text';
import type { SpanLog } from '../../../shared/sanitize';
import { LAG, OFFSET_DIGITS, type DumpLayout, type SpanMeanings } from './dump-layout';

/*
 * The JavaScript side of the dump engine (engine/index.ts, WebAssembly): it fills the engine's
 * tables from the text definitions (notation from shared/hex, colours from paint.ts, words from
 * AnnotationWriter's lines), keeps the parsed bytes and the span log in the engine's memory, and
 * answers what the engine asks for (a code point's lead cell, writing out the output).
 */

/** Bytes held at first: a read of 1 MiB (the CLI's) and the bytes not yet shown before it. */
const HOLD_BYTES = (1 << 20) + 4 * LAG;
/** Spans the sanitizer records before the engine takes them into its log. */
const RAW_SPANS = 1 << 15;


const enum Status {
  Done = 0,
  Flush = 1,
  NeedCp = 2,
}

/** Slots of the engine's control block (engine/layout.ts C_*). */
const enum Ctrl {
  HoldAt = 0,
  HoldLen = 1,
  Fed = 2,
  OutP = 3,
  Arg = 4,
  Pos = 5,
  FlushAt = 6,
  Moved = 7,
}

/** The engine's exports (engine/index.ts). */
interface EngineExports {
  readonly memory: { readonly buffer: ArrayBuffer };
  configure(width: number, digits: number, colour: number, columns: number, from: number, to: number, holdBytes: number, outBytes: number, rawEntries: number, base: number): void;
  advance(limit: number, final: number): number;
  holdAddress(): number;
  holdCapacity(): number;
  outAddress(): number;
  outCapacity(): number;
  rawStartAddress(): number;
  rawLenAddress(): number;
  rawKindAddress(): number;
  rawCapacity(): number;
  ingest(n: number): void;
  setHoldCapacity(bytes: number): void;
  cpSlotOf(cp: number): number;
  shownBitsAddress(): number;
  rowsByLanes(): number;
  readonly [table: string]: unknown;
}

/** The WebAssembly API (app/ is compiled with Node's types, which do not declare it). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
};

let compiled: object | null = null;

/** A fresh instance of the engine (the module compiled once per process). */
function instantiate(): EngineExports {
  compiled ??= new WebAssembly.Module(Buffer.from(DUMP_ENGINE_WASM, 'base64'));
  return new WebAssembly.Instance(compiled, { env: { abort: () => { throw new Error('dump engine: abort'); } } }).exports as unknown as EngineExports;
}

/** The address an exported table constant of the engine names. */
function address(e: EngineExports, name: string): number {
  return (e[name] as { value: number }).value;
}

/** Spans the sanitizer records (its span log) into the engine's memory: taken into the engine's own log when full and before each advance. */
class RawSpans implements SpanLog {
  start = new Float64Array(0);
  length = new Float64Array(0);
  kind = new Int32Array(0);
  n = 0;

  constructor(private readonly engine: DumpEngine) {}

  drain(): void {
    this.engine.ingest();
  }
}

/**
 * The annotated hex dump, fed the stream as it is parsed: {@link spans} is the sanitizer's span
 * log (and {@link meanings} the sanitizer), {@link append} keeps the bytes parsed, {@link advance}
 * shows the rows that are settled (those {@link LAG} bytes behind the parser, or at the end all of
 * them) with the lines of the spans that start in them, and then the spans left.
 */
export class DumpEngine {
  /** The span log for the sanitizer (SanitizerOptions.spanLog). */
  readonly spans: RawSpans;
  /** The sanitizer that records {@link spans}: it names their meanings. */
  meanings: SpanMeanings | null = null;
  private readonly e: EngineExports;
  private buffer!: ArrayBuffer;
  private bytes!: Uint8Array;
  private ctrl!: Float64Array;
  private hold!: Uint8Array;
  private outBytes!: Uint8Array;
  /** Meanings whose text is in the engine's table (numbers below this). */
  private meaningsKnown = 0;
  private meaningTextUsed = 0;
  /** The colours in the engine's table by their SGR (none without colour): index 0 is none. */
  private readonly colours = new Map<string, number>([['', 0]]);
  private holdAt = 0;
  private holdLen = 0;
  private fed = 0;
  /** The engine's C_MOVED when the views were made. */
  private moved = -1;

  constructor(private readonly out: ByteOutput, layout: DumpLayout) {
    const { offset, windowEnd, width, color, columns } = layout;
    const base = layout.streamBase ?? 0;
    if (!Number.isInteger(width) || width < 1 || width > 256) throw new RangeError(`width must be an integer in 1–256, got ${width}`);
    this.spans = new RawSpans(this);
    this.e = instantiate();
    this.refresh();
    this.fillTables(color);
    const cols = columns === Infinity ? 0 : Math.max(1, Math.floor(columns));
    this.e.configure(width, OFFSET_DIGITS, color ? 1 : 0, cols, offset, windowEnd, HOLD_BYTES, out.buf.length, RAW_SPANS, base);
    this.refresh();
    this.ctrl[Ctrl.Pos] = base;
    this.holdAt = base;
    this.fed = base;
  }

  /**
   * Views of the engine's memory, made again when it grew (which detaches the old ones) or a
   * region moved (the held bytes or the output, moved to larger ones).
   */
  private refresh(): void {
    // Unchanged since the last look (a detached view, after the memory grew, reads undefined).
    if (this.ctrl !== undefined && this.ctrl[Ctrl.Moved] === this.moved) return;
    const e = this.e;
    const buffer = e.memory.buffer;
    this.buffer = buffer;
    this.bytes = new Uint8Array(buffer);
    this.ctrl = new Float64Array(buffer, address(e, 'CTRL'), 16);
    this.moved = this.ctrl[Ctrl.Moved];
    if (e.rawCapacity() > 0) {
      const raw = e.rawCapacity();
      this.spans.start = new Float64Array(buffer, e.rawStartAddress(), raw);
      this.spans.length = new Float64Array(buffer, e.rawLenAddress(), raw);
      this.spans.kind = new Int32Array(buffer, e.rawKindAddress(), raw);
      this.hold = new Uint8Array(buffer, e.holdAddress(), e.holdCapacity());
      this.outBytes = new Uint8Array(buffer, e.outAddress(), e.outCapacity());
      this.adoptOutput();
    }
  }

  /**
   * Makes the output buffer the engine's: what the dump writes lands where its text was gathered.
   * Text gathered elsewhere (the output replaced its buffer) is copied over; text in the engine's
   * memory is where it was (memory that grew keeps its bytes; a region moves only when empty).
   */
  private adoptOutput(): void {
    const buf = this.out.buf;
    if (buf.buffer === this.outBytes.buffer && buf.byteOffset === this.outBytes.byteOffset) return;
    const engines = buf.buffer === this.outBytes.buffer || buf.buffer.byteLength === 0;
    this.out.adopt(this.outBytes, !engines);
  }

  /** Takes the spans recorded into the engine's log (the raw log is empty after). */
  ingest(): void {
    this.e.ingest(this.spans.n);
    this.spans.n = 0;
    this.refresh();
  }

  /** Adds `n` spans recorded elsewhere (a span log's arrays) to the engine's raw log. */
  addSpans(start: Float64Array, length: Float64Array, kind: Int32Array, n: number): void {
    const raw = this.spans;
    for (let k = 0; k < n; ) {
      if (raw.n === raw.kind.length) raw.drain();
      const m = Math.min(n - k, raw.kind.length - raw.n);
      raw.start.set(start.subarray(k, k + m), raw.n);
      raw.length.set(length.subarray(k, k + m), raw.n);
      raw.kind.set(kind.subarray(k, k + m), raw.n);
      raw.n += m;
      k += m;
    }
  }

  /** Puts the text of the meanings numbered since the last call in the engine's table. */
  private learnMeanings(): void {
    const m = this.meanings;
    if (m === null) return;
    for (let id = this.meaningsKnown; id < m.spanMeaningCount; id++) {
      const text = Buffer.from(m.spanMeaning(id), 'utf8');
      if (id >= address(this.e, 'MEANINGS') || this.meaningTextUsed + text.length > address(this.e, 'MEANING_TEXT_BYTES')) {
        throw new Error(`dump engine: more span meanings than its table holds (${id})`);
      }
      this.bytes.set(text, address(this.e, 'T_MEANING_TEXT') + this.meaningTextUsed);
      const entry = new Int32Array(this.buffer, address(this.e, 'T_MEANING') + id * 8, 2);
      entry[0] = this.meaningTextUsed;
      entry[1] = text.length;
      this.meaningTextUsed += text.length;
      this.meaningsKnown = id + 1;
    }
  }

  /** Fills the engine's tables from the definitions of the text. */
  private fillTables(color: boolean): void {
    const e = this.e;
    const b = this.bytes;
    const at = (name: string): number => address(e, name);
    const ascii = (p: number, text: string): number => {
      for (let k = 0; k < text.length; k++) {
        const c = text.charCodeAt(k);
        if (c > 0x7f) throw new Error(`dump engine: non-ASCII table text ${JSON.stringify(text)}`);
        b[p + k] = c;
      }
      return text.length;
    };
    const utf8 = (p: number, text: string): number => {
      const bytes = Buffer.from(text, 'utf8');
      b.set(bytes, p);
      return bytes.length;
    };
    // Colours: index 0 is none; each other SGR gets the next index. Every cell kind's and span
    // class's colour is in the table before the dump starts (a code point's cell is told later).
    const colour = (sgr: string): number => {
      if (!color) return 0;
      let k = this.colours.get(sgr);
      if (k === undefined) {
        k = this.colours.size;
        if (sgr.length > 8 || k >= 16) throw new Error(`dump engine: colour ${JSON.stringify(sgr)} does not fit the table`);
        ascii(at('T_SGR') + k * 8, sgr);
        b[at('T_SGR_LEN') + k] = sgr.length;
        this.colours.set(sgr, k);
      }
      return k;
    };
    for (const kind of CELL_KINDS) colour(cellSgr(kind, 'x', undefined));
    ascii(at('T_HEX'), '0123456789abcdef');
    for (let c = 0; c < 0x80; c++) {
      const cell = ASCII_CELLS[c];
      const text = cell.text === '|' ? '\\|' : cell.text;
      b[at('T_CARET_LEN') + c] = ascii(at('T_CARET') + c * 2, text);
      b[at('T_ASCII_COLOUR') + c] = colour(cellSgr(cell.kind, cell.text, undefined));
    }
    // The engine colours rows of printable ASCII without looking at the table (and C0 and DEL from it by SIMD).
    for (let c = 0x20; c < 0x7f; c++) if (b[at('T_ASCII_COLOUR') + c] !== 0) throw new Error('dump engine: the engine takes printable ASCII to be uncoloured');
    // And writes the caret column of a row of ASCII by SIMD (rows.ts asciiCaret): a control or DEL
    // as `^` and its letter, \ ^ < | after a `\`, every other byte as itself.
    for (let c = 0; c < 0x80; c++) {
      const control = c < 0x20 || c === 0x7f;
      const twoBytes = control || c === 0x5c || c === 0x5e || c === 0x3c || c === 0x7c;
      const text = control ? `^${c === 0x7f ? '?' : String.fromCharCode(c + 0x40)}` : `${twoBytes ? '\\' : ''}${String.fromCharCode(c)}`;
      if (b[at('T_CARET_LEN') + c] !== text.length || b[at('T_CARET') + c * 2] !== text.charCodeAt(0) || (text.length === 2 && b[at('T_CARET') + c * 2 + 1] !== text.charCodeAt(1))) {
        throw new Error(`dump engine: the engine writes byte ${c} of a row of ASCII as ${JSON.stringify(text)}, not as the caret table says`);
      }
    }
    SPAN_CLASS_NAMES.forEach((_, cls) => {
      b[at('T_SPAN_COLOUR') + cls] = colour(cellSgr('printable', 'x', cls as SpanClass));
      b[at('T_CLASS') + cls * 16 + 15] = ascii(at('T_CLASS') + cls * 16, classColumn(cls as SpanClass));
    });
    const kinds = at('T_KIND_COLOUR');
    b[kinds + 1] = colour(cellSgr(INVALID_CELLS[0x80].kind, INVALID_CELLS[0x80].text, undefined));
    b[kinds + 2] = colour(cellSgr(PARTIAL_CELLS[0x80].kind, PARTIAL_CELLS[0x80].text, undefined));
    b[kinds + 3] = colour(cellSgr(C1_CELLS[0].kind, C1_CELLS[0].text, undefined));
    C1_CELLS.forEach((cell, k) => {
      b[at('T_C1_LEN') + k] = ascii(at('T_C1') + k * 8, cell.text);
    });
    for (let c = 0; c < 0x100; c++) {
      ascii(at('T_INVALID') + c * 4, INVALID_CELLS[c].text);
      ascii(at('T_PARTIAL') + c * 8, PARTIAL_CELLS[c].text);
    }
    utf8(at('T_CONT'), CONTINUATION_CELL.text);
    b[at('T_HEAD_LEN')] = ascii(at('T_HEAD'), lineHead(color));
    b[at('T_ROW_CONT_LEN')] = ascii(at('T_ROW_CONT'), rowContinuation(OFFSET_DIGITS));
    b[at('T_LINE_CONT_LEN')] = ascii(at('T_LINE_CONT'), LINE_CONTINUATION);
    COALESCED_WORDS.forEach((word, k) => {
      b[at('T_WORDS') + k * 16 + 15] = ascii(at('T_WORDS') + k * 16, word);
    });
    const flags = at('T_FLAGS');
    for (let f = 0; f < 64; f++) {
      const label = flagLabel(f);
      const length = label ? ascii(flags + f * 256, ` ${label}`) : 0;
      b[flags + f * 256 + 254] = length & 0xff;
      b[flags + f * 256 + 255] = length >> 8;
    }
    // No code point's lead cell is known yet: T_CP is zero, as the engine's memory starts, and
    // no lead cell is U+0000's (see layout.ts).
  }

  /** Keeps the next parsed bytes of the stream (the caller's array is not kept). */
  append(chunk: Uint8Array): void {
    if (this.holdLen + chunk.length > this.hold.length) {
      // Only the bytes from 3 before the next row on are still needed.
      const keep = Math.max(this.holdAt, this.ctrl[Ctrl.Pos] - 3);
      const drop = keep - this.holdAt;
      const live = this.holdLen - drop;
      if (live + chunk.length > this.hold.length) {
        const from = this.hold.byteOffset + drop;
        this.e.setHoldCapacity(Math.max(this.hold.length * 2, live + chunk.length));
        this.refresh();
        this.bytes.copyWithin(this.hold.byteOffset, from, from + live);
      } else {
        this.hold.copyWithin(0, drop, this.holdLen);
      }
      this.holdAt = keep;
      this.holdLen = live;
    }
    this.hold.set(chunk, this.holdLen);
    this.holdLen += chunk.length;
    this.fed += chunk.length;
  }

  /** Rows whose cells the engine resolved lane by lane (16 at once) so far: tests hold text in other scripts to that path. */
  get rowsByLanes(): number {
    return this.e.rowsByLanes();
  }

  /**
   * Shows the rows that are settled: those {@link LAG} bytes behind the parser, or with `final`
   * (the input ended and every span is known) all of them, then every span left.
   */
  async advance(final: boolean): Promise<void> {
    const limit = final ? Infinity : this.fed - LAG;
    for (;;) {
      this.learnMeanings();
      if (this.spans.n > 0) this.ingest();
      this.adoptOutput();
      const c = this.ctrl;
      c[Ctrl.HoldAt] = this.holdAt;
      c[Ctrl.HoldLen] = this.holdLen;
      c[Ctrl.Fed] = this.fed;
      c[Ctrl.OutP] = this.out.p;
      c[Ctrl.FlushAt] = this.out.flushAt;
      const status = this.e.advance(limit, final ? 1 : 0);
      this.refresh();
      this.out.p = this.ctrl[Ctrl.OutP];
      if (status === Status.Done) return;
      if (status === Status.Flush) await this.out.flush();
      else if (status === Status.NeedCp) this.putCodePoint(this.ctrl[Ctrl.Arg]);
      else throw new Error(`dump engine: status ${status}`);
    }
  }

  /** Puts the lead cell of code point `cp` in its slot of the engine's table. */
  private putCodePoint(cp: number): void {
    const cell = leadCellForCodePoint(cp);
    const b = this.bytes;
    const shown = cell.kind === 'utf8-lead';
    // A character of the BMP shown as itself is told by a bit, not a slot (kept for good): it
    // takes no slot, which would evict one that notation needs.
    if (shown && cp < 0x10000) {
      b[this.e.shownBitsAddress() + (cp >> 3)] |= 1 << (cp & 7);
      return;
    }
    const slot = this.e.cpSlotOf(cp);
    new Int32Array(this.buffer, slot, 1)[0] = cp;
    b[slot + 4] = shown || this.colours.size === 1 ? 0 : this.colourOf(cellSgr(cell.kind, cell.text, undefined));
    b[slot + 5] = shown ? 0 : cell.text.length;
    if (!shown) {
      if (cell.text.length > 24) throw new Error(`dump engine: notation ${cell.text} too long`);
      for (let k = 0; k < cell.text.length; k++) b[slot + 8 + k] = cell.text.charCodeAt(k);
    }
  }

  /** The table index of colour `sgr` (every cell kind's is there; none without colour). */
  private colourOf(sgr: string): number {
    const k = this.colours.get(sgr);
    if (k === undefined) throw new Error(`dump engine: colour ${JSON.stringify(sgr)} not in its table`);
    return k;
  }
}
