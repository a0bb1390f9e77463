// inspect cuts an annotation line wider than the terminal on its bytes (wrapAsciiLine) instead of
// as text (wrapLine, the definition). For any ASCII line with Airlock's own colour, long words,
// runs of spaces and look-alike escapes, at any width, the two must be byte for byte the same.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiWidth, wrapAsciiLine, wrapBound } from '../../app/cli/inspect/wrap-bytes';
import { textWidth, wrapLine } from '../../app/node/fit';

const latin1 = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

const word = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9^().:;,=<>[\]-]{1,12}$/) },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-f0-9]{20,120}$/) },
  { weight: 2, arbitrary: fc.constantFrom('\x1b[1;34m^\x1b[0m', '\x1b[31mBEL\x1b[0m', '\x1b[2m', '\x1b[0m', '\x1b[30;43m(every\x1b[0m') },
  // Not SGR: an ESC that a terminal-safe line would never hold, counted as a column like any byte.
  { weight: 1, arbitrary: fc.constantFrom('\x1b[', '\x1b[3x', '\x1b', 'a\x1b[m') },
);
const gap = fc.constantFrom(' ', ' ', ' ', '  ', '   ', '\t', ' \t ');
const line = fc
  .tuple(fc.constantFrom('', ' ', '          ', '  '), fc.array(fc.tuple(word, gap), { minLength: 1, maxLength: 16 }), fc.constantFrom('', ' ', '   '))
  .map(([lead, parts, tail]) => lead + parts.map(([w, g]) => w + g).join('').trimEnd() + tail);

describe('inspect: annotation lines cut on their bytes', () => {
  it('writes what wrapLine makes of any wider ASCII line, at any width, row by row with LF', () => {
    fc.assert(
      fc.property(line, fc.oneof(fc.integer({ min: 1, max: 140 }), fc.constantFrom(44, 47, 80)), fc.constantFrom('          + ', '+ ', ''), (text, columns, continuation) => {
        fc.pre(textWidth(text) > columns);
        const src = latin1(`xx${text}yy`);
        // (asciiWidth decides which lines are cut here: it is textWidth for these.)
        expect(asciiWidth(src, 2, src.length - 2)).toBe(textWidth(text));
        const cont = latin1(continuation);
        const out = new Uint8Array(wrapBound(text.length, cont) + 8);
        const end = wrapAsciiLine(src, 2, src.length - 2, columns, cont, out, 3);
        const expected = wrapLine(text, columns, continuation).map((row) => `${row}\n`).join('');
        expect(Buffer.from(out.subarray(3, end)).toString('latin1')).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes only ASCII', () => {
    expect(asciiWidth(latin1('^ 00000000 c0  BEL'), 0, 18)).toBe(18);
    expect(asciiWidth(latin1('\x1b[31mBEL\x1b[0m x'), 0, 14)).toBe(5);
    expect(asciiWidth(Uint8Array.of(0x61, 0xc3, 0xa9), 0, 3)).toBe(-1);
    expect(asciiWidth(Uint8Array.of(0x61, 0xc3, 0xa9), 0, 1)).toBe(1);
  });
});
