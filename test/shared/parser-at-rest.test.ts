// Parser.atRest: wherever it says so, a fresh Parser fed the rest of the stream reports exactly the
// spans the running one still reports (what the viewer's index checkpoints rely on).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Parser, type ParserSink, type SpanClass } from '../../shared/parser';
import { Sanitizer } from '../../shared/sanitize';
import { hostileStream } from '../helpers/arbitraries';

type Span = [number, number, number, string, number, number];

function recorder(shift = 0): { sink: ParserSink; spans: Span[] } {
  const spans: Span[] = [];
  return {
    spans,
    sink: {
      print() {},
      // A drawn glyph (character set, REP) as a span of class -1: a fresh parser must draw the same.
      drawn(cp: number, off: number, len: number) {
        spans.push([-1, off + shift, len, 'drawn', 0, cp]);
      },
      span(cls: SpanClass, off: number, len: number, meaning: string, flags: number, code: number) {
        spans.push([cls, off + shift, len, meaning, flags, code]);
      },
    },
  };
}

/** For every cut where the parser fed byte by byte is at rest: the tail parsed alone gives the same spans. */
function checkEveryCut(bytes: Uint8Array): number {
  const whole = recorder();
  const p = new Parser(whole.sink);
  const rests: Array<[number, number]> = [[0, 0]];
  expect(p.atRest).toBe(true);
  for (let i = 0; i < bytes.length; i++) {
    p.feed(bytes.subarray(i, i + 1));
    if (p.atRest) rests.push([i + 1, whole.spans.length]);
  }
  p.end();
  expect(p.atRest).toBe(true);
  for (const [at, first] of rests) {
    const tail = recorder(at);
    const q = new Parser(tail.sink);
    q.feed(bytes.subarray(at));
    q.end();
    expect(tail.spans).toEqual(whole.spans.slice(first));
  }
  return rests.length;
}

describe('Parser.atRest', () => {
  it('is false inside a stretch where the readings disagree, including one opened inside a sequence', () => {
    const p = new Parser(recorder().sink);
    p.feed(Uint8Array.of(0x1b, 0x5b)); // ESC [ : a CSI is open in both readings
    expect(p.atRest).toBe(false);
    p.feed(Uint8Array.of(0x80)); // a raw C1 cancels it in the 8-bit reading only
    expect(p.atRest).toBe(false);
    p.feed(Uint8Array.of(0x5f)); // the UTF-8 reading's final byte: both agree again
    expect(p.atRest).toBe(true);
  });

  it('is false in a split UTF-8 character, a held joiner and after a character a selector may follow', () => {
    const p = new Parser(recorder().sink);
    p.feed(Buffer.from('ab'));
    expect(p.atRest).toBe(true);
    p.feed(Uint8Array.of(0xe2, 0x82));
    expect(p.atRest).toBe(false);
    p.feed(Uint8Array.of(0xac, 0x20));
    expect(p.atRest).toBe(true);
    p.feed(Buffer.from('😀'));
    expect(p.atRest).toBe(false);
    p.feed(Buffer.from('\u200d'));
    expect(p.atRest).toBe(false);
    // The removed ZWJ leaves tmux drawing the next non-ASCII character elsewhere: not at rest until it came.
    p.feed(Buffer.from('x\n'));
    expect(p.atRest).toBe(false);
    p.feed(Buffer.from('é'));
    expect(p.atRest).toBe(true);
    p.feed(Buffer.from('\x1b]0;t'));
    expect(p.atRest).toBe(false);
  });

  it('a fresh parser from any point at rest reports the same spans (hostile streams)', () => {
    fc.assert(fc.property(hostileStream(120), (bytes) => {
      checkEveryCut(bytes);
    }), { numRuns: 200 });
  });

  it('covers selectors, joiners and withheld text', () => {
    const cases = ['1\ufe0f\u20e3 😀\ufe0f 本\u{e0100} a\u200db 👩\u200d💻 \u0628\u200c\u0628', '\x1b]52;c;\x9c hidden\x07 shown', '\x1b[\x80_ z \x9dx\x07y',
      // Character sets, saves and restores, REP, a removed ZWJ waiting for the next character.
      'a\x1b(0lqk\x1b(B b \x1b)0\x0eq\x0f c \x1b7\x1b(0\x1b(B\x1b8x d 1\x1b[3b2 e', 'x\u200d\nab 本 ok'];
    for (const c of cases) expect(checkEveryCut(Buffer.from(c, c.includes('\x9c') || c.includes('\x80') ? 'latin1' : 'utf8'))).toBeGreaterThan(1);
  });

  it('the Sanitizer passes it on between writes', () => {
    const s = new Sanitizer();
    s.write(Buffer.from('\x1b[31'));
    expect(s.parserAtRest).toBe(false);
    s.write(Buffer.from('m ok '));
    expect(s.parserAtRest).toBe(true);
  });
});
