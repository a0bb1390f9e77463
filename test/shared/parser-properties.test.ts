/**
 * Property tests (fast-check, fixed seed) of the parser's sink contract on random hostile streams:
 * every print is a non-empty run of well-formed UTF-8 with no control but LF/TAB, no C1 and no
 * invisible code point; spans carry sane codes for their class; events tile the input exactly;
 * the events (text runs merged) are identical for any chunking, including unaligned views and
 * tiny limits; span meanings come from a bounded table and never echo input bytes; and feeding
 * never throws.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Parser } from '../../shared/parser/parser';
import type { ParserSink } from '../../shared/parser/sink';
import { SpanClass } from '../../shared/parser/span-class';
import { cutPoints, hostileStream, tinyLimits } from '../helpers/arbitraries';
import { bytes, bytewise, decodeStrict, events, hex, record, splitAt, tilingProblem } from '../helpers/record';

const SEED = 0xfa57;
const params = (numRuns: number) => ({ seed: SEED, numRuns, endOnFailure: true });
const limitsArb = fc.oneof(fc.constant({}), tinyLimits);

/** A sink that records contract violations instead of events. */
class ContractSink implements ParserSink {
  readonly problems: string[] = [];
  readonly meanings = new Set<string>();
  last = -1;

  print(b: Uint8Array, start: number, end: number, offset: number): void {
    if (end <= start) this.problems.push(`empty print at ${offset}`);
    if (start < 0 || end > b.length) this.problems.push(`print out of its array at ${offset}`);
    let s: string;
    try {
      s = decodeStrict(b.subarray(start, end));
    } catch {
      this.problems.push(`ill-formed UTF-8 printed at ${offset}: ${hex(b.subarray(start, end))}`);
      return;
    }
    for (const ch of s) {
      const c = ch.codePointAt(0)!;
      if ((c < 0x20 && c !== 0x09 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f)
        || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || (c >= 0xe0000 && c <= 0xe007f)) {
        this.problems.push(`forbidden U+${c.toString(16)} printed at ${offset}`);
      }
    }
  }

  drawn(cp: number, offset: number, length: number): void {
    if (length !== 1 || cp < 0xa0) this.problems.push(`drawn U+${cp.toString(16)} for ${length} bytes at ${offset}`);
  }

  span(cls: SpanClass, offset: number, length: number, meaning: string, _flags: number, code: number): void {
    this.meanings.add(meaning);
    if (length < 1) this.problems.push(`empty span at ${offset}`);
    const bad = (why: string) => this.problems.push(`${why}: class ${cls} code ${code} at ${offset}`);
    switch (cls) {
      case SpanClass.C0:
        if (!((code >= 0 && code < 0x20) || code === 0x7f) || length !== 1) bad('C0 code/length');
        break;
      case SpanClass.C1:
        if (!(code >= 0x80 && code <= 0x9f) || length > 2) bad('C1 code/length');
        break;
      case SpanClass.InvalidUtf8:
        if (code < 0x80 || length > 3) bad('invalid UTF-8 code/length');
        break;
      case SpanClass.Invisible:
        if (!((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || (code >= 0xe0000 && code <= 0xe007f))) bad('invisible code');
        break;
      default:
        break;
    }
  }
}

describe('sink contract', () => {
  it('prints are clean UTF-8 text runs; spans have sane codes and lengths', () => {
    fc.assert(fc.property(hostileStream(), cutPoints, limitsArb, (input, cuts, limits) => {
      const sink = new ContractSink();
      const p = new Parser(sink, limits);
      for (const c of splitAt(input, cuts)) p.feed(c);
      p.end();
      expect(sink.problems, hex(input)).toEqual([]);
    }), params(2000));
  });

  it('events tile the input exactly (nested controls inside their sequence)', () => {
    fc.assert(fc.property(hostileStream(), limitsArb, (input, limits) => {
      expect(tilingProblem(record(input, limits).events, input.length), hex(input)).toBeNull();
    }), params(2000));
  });
});

describe('chunking', () => {
  it('events are identical for random cuts, one-byte chunks and unaligned views', () => {
    fc.assert(fc.property(hostileStream(), cutPoints, limitsArb, fc.nat({ max: 7 }), (input, cuts, limits, pad) => {
      const whole = events(input, limits);
      expect(events(splitAt(input, cuts), limits), hex(input)).toEqual(whole);
      expect(events(bytewise(input), limits), hex(input)).toEqual(whole);
      const big = new Uint8Array(input.length + 8).fill(0x1b);
      big.set(input, pad);
      const view = big.subarray(pad, pad + input.length);
      expect(events(splitAt(view, cuts).map((c) => c), limits)).toEqual(whole);
      expect(events(view, limits)).toEqual(whole);
    }), params(1500));
  });
});

describe('meanings', () => {
  it('come from a bounded table and never contain input bytes', () => {
    const all = new Set<string>();
    const marker = bytes('QZXmeaning');
    fc.assert(fc.property(hostileStream(), (input) => {
      const sink = new ContractSink();
      const p = new Parser(sink);
      p.feed(bytes(input, marker, input));
      p.end();
      for (const m of sink.meanings) {
        expect(m).not.toContain('QZX');
        all.add(m);
      }
    }), params(1500));
    // However hostile the input, the set of meanings stays small (an attacker cannot mint keys).
    expect(all.size).toBeLessThan(400);
  });
});

describe('robustness', () => {
  it('never throws on uniformly random bytes in random chunks', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 400 }), cutPoints, limitsArb, (input, cuts, limits) => {
      const p = new Parser(new ContractSink(), limits);
      for (const c of splitAt(input, cuts)) p.feed(c);
      p.end();
    }), params(1500));
  });
});
