import { SPAN_CLASS_NAMES, SpanFlag } from '../../../shared/parser/span-class';
import type { SpanLog } from '../../../shared/sanitize';
import { terminalSafeJson } from '../../terminal/terminal-safe';
import type { SpanMeanings } from './annotations';
import type { ByteBuffer } from './bytes-out';
import { kindClass, kindFlags, kindMeaning } from './span-groups';

/** Spans `inspect --json` lists unless told otherwise (`--max-spans`): the rest are counted. */
export const DEFAULT_MAX_SPANS = 10_000;

/** Flag names in the list, spelled as the removal report spells its counters. */
const FLAG_NAMES: readonly (readonly [number, string])[] = [
  [SpanFlag.Unterminated, 'unterminated'], [SpanFlag.Oversized, 'oversized'], [SpanFlag.Malformed, 'malformed'],
  [SpanFlag.EightBit, 'eight_bit'], [SpanFlag.Utf8Encoded, 'utf8_encoded'], [SpanFlag.Stray, 'stray'],
];

/** Entries the sanitizer records before they are written out. */
const LOG_ENTRIES = 1 << 12;

/**
 * The span list of `inspect --json`, written as the sanitizer records the spans (one object a
 * line, in the order the parser completes them: start order, but for a sequence that holds an
 * executed control, which follows it, and withheld text, which follows the stretch it was in).
 * Streamed into the output, so memory does not grow with the input; at most `max` are listed, and
 * every span overlapping the range `[from, to)` is counted.
 */
export class JsonSpans {
  /** The span log for the sanitizer (SanitizerOptions.spanLog). */
  readonly log: SpanLog;
  /** Where the meanings of the log's kinds come from: the sanitizer that records it. */
  meanings: SpanMeanings | undefined;
  /** Spans overlapping the range, listed or not. */
  total = 0;
  listed = 0;
  /** Per kind, the object's bytes after its offset and length. */
  private readonly tails = new Map<number, Buffer>();

  constructor(private readonly out: ByteBuffer, private readonly from: number, private readonly to: number, private readonly max: number) {
    this.log = { start: new Float64Array(LOG_ENTRIES), length: new Float64Array(LOG_ENTRIES), kind: new Int32Array(LOG_ENTRIES), n: 0, drain: () => this.drain() };
  }

  /** Writes (or counts) every span recorded so far. */
  drain(): void {
    const { start, length, kind } = this.log;
    for (let i = 0; i < this.log.n; i++) {
      const at = start[i];
      const len = length[i];
      if (at >= this.to || at + len <= this.from) continue;
      this.total++;
      if (this.listed === this.max) continue;
      // Written as bytes, no string per span: a listing of millions makes no garbage.
      const tail = this.tail(kind[i]);
      const out = this.out;
      out.reserve(OFFSET.length + LENGTH.length + 2 * MAX_DIGITS + tail.length);
      out.p += (this.listed === 0 ? FIRST : OFFSET).copy(out.buf, out.p);
      out.p = writeDecimal(out.buf, out.p, at);
      out.p += LENGTH.copy(out.buf, out.p);
      out.p = writeDecimal(out.buf, out.p, len);
      out.p += tail.copy(out.buf, out.p);
      this.listed++;
    }
    this.log.n = 0;
  }

  private tail(kind: number): Buffer {
    let t = this.tails.get(kind);
    if (t === undefined) {
      const flags = kindFlags(kind);
      const names = FLAG_NAMES.filter(([bit]) => flags & bit).map(([, name]) => `"${name}"`);
      const meaning = this.meanings?.spanMeaning(kindMeaning(kind)) ?? '';
      t = Buffer.from(`, "class": "${SPAN_CLASS_NAMES[kindClass(kind)]}", "meaning": ${terminalSafeJson(meaning)}, "flags": [${names.join(', ')}]}`, 'utf8');
      this.tails.set(kind, t);
    }
    return t;
  }
}

const FIRST = Buffer.from('\n    {"offset": ');
const OFFSET = Buffer.from(',\n    {"offset": ');
const LENGTH = Buffer.from(', "length": ');
/** Digits of the largest offset (2^53). */
const MAX_DIGITS = 16;

/** Writes the decimal digits of `v` (a safe non-negative integer) at `p`; returns the end. */
function writeDecimal(buf: Buffer, p: number, v: number): number {
  let digits = 1;
  for (let x = v; x >= 10; x = Math.floor(x / 10)) digits++;
  for (let k = p + digits - 1, x = v; k >= p; k--, x = Math.floor(x / 10)) buf[k] = 48 + (x % 10);
  return p + digits;
}
