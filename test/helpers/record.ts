/**
 * Test helpers for the parser and sanitizer suites: byte builders that make the difference
 * between a raw byte and a UTF-8 encoded code point explicit, and a recording sink that renders
 * parser events as short readable strings with adjacent text runs merged (so the way the parser
 * happens to split text runs, or how the input was chunked, never shows up in an assertion).
 */
import { Parser } from '../../shared/parser/parser';
import type { ParserLimits } from '../../shared/parser/limits';
import type { ParserSink } from '../../shared/parser/sink';
import { SPAN_CLASS_NAMES, SpanFlag, type SpanClass } from '../../shared/parser/span-class';
import { sanitize, Sanitizer, type SanitizerOptions } from '../../shared/sanitize/sanitizer';
import type { RemovalReport } from '../../shared/sanitize/report';

/** A part of a test input: see {@link bytes}. */
export type Part = string | Uint8Array | readonly number[];

/**
 * Raw bytes from a string, one byte per char (latin1). `raw('\x9b')` is the single byte 0x9B,
 * a C1 CSI. Throws on a char above U+00FF so a UTF-8 string can never be truncated by mistake.
 */
export function raw(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0xff) throw new Error(`raw(): char U+${c.toString(16)} at ${i} is not a byte; use utf8()`);
    out[i] = c;
  }
  return out;
}

/** The UTF-8 encoding of a string: `utf8('\x9b')` is C2 9B (the UTF-8 encoded C1 CSI), `utf8('本')` E6 9C AC. */
export function utf8(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

/**
 * Concatenates parts into one input. String parts are RAW BYTES (latin1, see {@link raw});
 * use `utf8('…')` for encoded text; number arrays and Uint8Arrays are copied as bytes.
 */
export function bytes(...parts: Part[]): Uint8Array {
  const arrays = parts.map((p) => (typeof p === 'string' ? raw(p) : Uint8Array.from(p)));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

/** Strict UTF-8 decode (throws on ill-formed input). */
export function decodeStrict(b: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(b);
}

/** Hex dump `1b 5b 41` for messages and bug reports. */
export function hex(b: Uint8Array | readonly number[]): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(' ');
}

/** Splits `input` at the given (sorted or not, duplicates allowed) cut points. */
export function splitAt(input: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => Math.max(0, Math.min(input.length, c))))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(input.slice(prev, p));
    prev = p;
  }
  out.push(input.slice(prev));
  return out;
}

/** One-byte chunks. */
export function bytewise(input: Uint8Array): Uint8Array[] {
  return Array.from(input, (b) => Uint8Array.of(b));
}

export interface TextEvent {
  kind: 'text';
  offset: number;
  bytes: number[];
}

export interface SpanEvent {
  kind: 'span';
  cls: SpanClass;
  offset: number;
  length: number;
  meaning: string;
  flags: number;
  code: number;
}

/** Raw bytes drawn as another glyph (a character set). */
export interface DrawnEvent {
  kind: 'drawn';
  offset: number;
  length: number;
  cp: number;
}

export type Event = TextEvent | SpanEvent | DrawnEvent;

const FLAG_NAMES: [number, string][] = [
  [SpanFlag.Unterminated, 'unterminated'],
  [SpanFlag.Oversized, 'oversized'],
  [SpanFlag.Malformed, 'malformed'],
  [SpanFlag.EightBit, '8bit'],
  [SpanFlag.Utf8Encoded, 'utf8'],
  [SpanFlag.Stray, 'stray'],
];

/** Names of the bits set in a span's flags, in a fixed order. */
export function flagNames(flags: number): string[] {
  return FLAG_NAMES.filter(([bit]) => flags & bit).map(([, name]) => name);
}

/**
 * Renders an event: `text "abc"@0` or `csi@3+5 SGR select graphic rendition`, with flags appended
 * in braces when set: `osc@0+6 OSC 2 set window title {unterminated}`.
 */
export function formatEvent(e: Event): string {
  if (e.kind === 'text') return `text ${JSON.stringify(decodeStrict(Uint8Array.from(e.bytes)))}@${e.offset}`;
  if (e.kind === 'drawn') return `drawn ${JSON.stringify(String.fromCodePoint(e.cp))}@${e.offset}+${e.length}`;
  const flags = flagNames(e.flags);
  return `${SPAN_CLASS_NAMES[e.cls]}@${e.offset}+${e.length} ${e.meaning}${flags.length ? ` {${flags.join(',')}}` : ''}`;
}

/**
 * A sink that records events, merging a text event into the previous one when they are
 * contiguous in the stream (so chunking and internal run splitting do not matter).
 */
export class Recorder implements ParserSink {
  readonly events: Event[] = [];
  /** Callback count before merging: the amount of work the parser reported. */
  calls = 0;

  print(b: Uint8Array, start: number, end: number, offset: number): void {
    this.calls++;
    const last = this.events[this.events.length - 1];
    if (last?.kind === 'text' && last.offset + last.bytes.length === offset) {
      for (let k = start; k < end; k++) last.bytes.push(b[k]);
    } else {
      this.events.push({ kind: 'text', offset, bytes: Array.from(b.subarray(start, end)) });
    }
  }

  span(cls: SpanClass, offset: number, length: number, meaning: string, flags: number, code: number): void {
    this.calls++;
    this.events.push({ kind: 'span', cls, offset, length, meaning, flags, code });
  }

  drawn(cp: number, offset: number, length: number): void {
    this.calls++;
    this.events.push({ kind: 'drawn', offset, length, cp });
  }

  /** The events as readable strings. */
  lines(): string[] {
    return this.events.map(formatEvent);
  }

  /** Only the spans. */
  spans(): SpanEvent[] {
    return this.events.filter((e): e is SpanEvent => e.kind === 'span');
  }

  /** All text bytes concatenated, decoded. */
  text(): string {
    return this.events.map((e) => (e.kind === 'text' ? decodeStrict(Uint8Array.from(e.bytes)) : e.kind === 'drawn' ? String.fromCodePoint(e.cp) : '')).join('');
  }
}

/**
 * Checks that events tile [0, n): top-level events follow each other without gaps or overlaps,
 * and every other event (a control executed inside an ESC/CSI/DCS header) lies inside the
 * top-level span that encloses it. Returns a description of the first problem, or null.
 */
export function tilingProblem(evs: readonly Event[], n: number): string | null {
  const items = evs.map((e) => ({ start: e.offset, end: e.offset + (e.kind === 'text' ? e.bytes.length : e.length), e }))
    .sort((a, b) => a.start - b.start || b.end - a.end);
  let end = 0;
  for (const it of items) {
    if (it.end <= it.start) return `empty event ${formatEvent(it.e)}`;
    if (it.start === end) {
      end = it.end;
    } else if (it.start > end) {
      return `gap before ${formatEvent(it.e)}: bytes ${end}..${it.start} are not covered`;
    } else if (it.end > end) {
      return `${formatEvent(it.e)} overlaps the event ending at ${end}`;
    }
  }
  return end === n ? null : `events end at ${end}, input at ${n}`;
}

/** Parses `chunks` (fed in order) and ends the stream; returns the recorder. */
export function record(chunks: Uint8Array | readonly Uint8Array[], limits: Partial<ParserLimits> = {}): Recorder {
  const rec = new Recorder();
  const parser = new Parser(rec, limits);
  const list = chunks instanceof Uint8Array ? [chunks] : chunks;
  for (const c of list) parser.feed(c);
  parser.end();
  return rec;
}

/** Parses and returns the readable event lines. */
export function events(chunks: Uint8Array | readonly Uint8Array[], limits: Partial<ParserLimits> = {}): string[] {
  return record(chunks, limits).lines();
}

/** Sanitizes `chunks` through the streaming API and returns text bytes and report. */
export function sanitizeChunks(chunks: readonly Uint8Array[], options: SanitizerOptions = {}): { text: Uint8Array; report: RemovalReport; sanitizer: Sanitizer } {
  const s = new Sanitizer(options);
  const parts = chunks.map((c) => s.write(c));
  parts.push(s.end());
  return { text: bytes(...parts), report: s.getReport(), sanitizer: s };
}

/** Sanitizes a whole input and decodes the text strictly (the text must be valid UTF-8). */
export function clean(input: Uint8Array, options: SanitizerOptions = {}): string {
  return decodeStrict(sanitize(input, options).text);
}
