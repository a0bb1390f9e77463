// app/terminal/fit.ts: widths and cuts of Airlock's own lines on a terminal (issue #9, bug class 5).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { charWidth, sgrLength, textWidth, utf8Width, wrapLine, wrapUtf8 } from '../../app/terminal/fit';
import { GrowingSink } from '../../shared/hex/sink';

/** The width rule as first written: each character (code point) 1 if ASCII, else 2. */
const byCharacter = (s: string): number => [...s].reduce((w, ch) => w + charWidth(ch), 0);

describe('textWidth', () => {
  it('counts characters as charWidth does, astral ones and lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom('a', ' ', '|', '€', '本', '\u{1f600}', '\ud800', '\udc00', '[', 'm', ';', '1'), fc.string({ unit: 'binary', maxLength: 1 })) }), (s) => {
        if (s.includes('\x1b')) return;
        expect(textWidth(s)).toBe(byCharacter(s));
      }),
      { numRuns: 500 },
    );
  });

  it("gives Airlock's own SGR no width, and anything else that starts with ESC its columns", () => {
    expect(textWidth('\x1b[1;34m^\x1b[0m ok')).toBe(4);
    expect(textWidth('\x1b[30;43mstring\x1b[0m')).toBe(6);
    expect(sgrLength('\x1b[m', 0)).toBe(3);
    // Not SGR: counted (terminal-safe text never holds these; if it did, a cut would come early).
    expect(textWidth('\x1b[2K')).toBe(4);
    expect(textWidth('\x1b]0;x')).toBe(5);
    expect(sgrLength('\x1b[1;34', 0)).toBe(0);
  });
});

describe('utf8Width', () => {
  it('is textWidth of the text its bytes encode, colour and non-ASCII included', () => {
    const unit = fc.constantFrom('a', ' ', '|', 'é', '€', '本', '\u{1f600}', '\x1b[1;34m', '\x1b[0m', '\x1b[', 'm', ';', '7', '\x1b');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }), fc.string({ maxLength: 3 }), (parts, pad) => {
        const text = parts.join('');
        const bytes = new TextEncoder().encode(`${pad}${text}${pad}`);
        const start = new TextEncoder().encode(pad).length;
        expect(utf8Width(bytes, start, bytes.length - start)).toBe(textWidth(text));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('wrapLine', () => {
  it('keeps a coloured line that fits on one row', () => {
    const line = `\x1b[1;34m^\x1b[0m ${'x'.repeat(78)}`;
    expect(wrapLine(line, 80, '+ ')).toEqual([line]);
    expect(wrapLine(line, 79, '+ ')).toHaveLength(2);
  });

  it('cuts a word wider than a row between characters, never inside its colour', () => {
    const word = `\x1b[35m${'y'.repeat(30)}\x1b[0m`;
    const rows = wrapLine(`a ${word}`, 12, '+ ');
    expect(rows.length).toBeGreaterThan(2);
    for (const row of rows) {
      expect(textWidth(row)).toBeLessThanOrEqual(12);
      // Every ESC in a row starts a whole SGR sequence.
      for (let i = row.indexOf('\x1b'); i >= 0; i = row.indexOf('\x1b', i + 1)) expect(sgrLength(row, i)).toBeGreaterThan(0);
    }
    expect(rows.join('').replace(/\+ /g, '').replace(/ /g, '')).toBe(`a${word}`);
  });
});

describe('wrapUtf8', () => {
  const unit = fc.constantFrom('a', 'bb', ' ', '  ', '\u3000', '\u00a0', '本', '🙂', '\x1b[1;34m', '\x1b[0m', '^', '+', 'xxxxxxxxxxxxxx', ')');

  it("is wrapLine on bytes: its rows, each ended by LF, after what the output held, whatever bytes follow the line in its buffer", () => {
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 40 }).map((a) => a.join('')), fc.integer({ min: 1, max: 60 }), fc.constantFrom('+ ', '          + '), fc.uint8Array({ maxLength: 8 }), fc.string({ maxLength: 4 }), (line, columns, cont, after, before) => {
        const text = Buffer.from(line, 'utf8');
        // The line in a larger buffer: the bytes after it (spaces, say) are not its.
        const src = Buffer.concat([text, Buffer.from(after), Buffer.from('    ')]);
        const out = new GrowingSink(8);
        const pre = Buffer.from(before, 'utf8');
        out.reserve(pre.length);
        out.buf.set(pre);
        out.p = pre.length;
        wrapUtf8(src, 0, text.length, columns, Buffer.from(cont, 'utf8'), out);
        const written = Buffer.from(out.buf.subarray(0, out.p)).toString('utf8');
        expect(written).toBe(`${before}${wrapLine(line, columns, cont).join('\n')}\n`);
      }),
      { numRuns: 2000 },
    );
  });
});
