import { describe, expect, it } from 'vitest';
import {
  CELL_KINDS, caretForByte, caretString, formatCells, splitCaretText, type Cell, type CellKind,
} from '../../shared/hex';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
/** Cells of a complete stream (nothing before, nothing after). */
const whole = (bytes: number[] | Uint8Array): Cell[] =>
  formatCells(Uint8Array.from(bytes), 0, { lookahead: new Uint8Array(0) });
const pairs = (cells: Cell[]): [string, CellKind][] => cells.map((c) => [c.text, c.kind]);

describe('single-byte notation', () => {
  it.each([
    [0x1b, '^[', 'c0'], [0x0d, '^M', 'c0'], [0x0a, '^J', 'c0'], [0x09, '^I', 'c0'],
    [0x00, '^@', 'c0'], [0x07, '^G', 'c0'], [0x1c, '^\\', 'c0'], [0x1f, '^_', 'c0'],
    [0x7f, '^?', 'del'], [0x20, ' ', 'space'], [0x41, 'A', 'printable'], [0x7e, '~', 'printable'],
    [0x3e, '>', 'printable'],
  ] as const)('byte %i is %s (%s)', (byte, text, kind) => {
    expect(pairs(whole([byte]))).toEqual([[text, kind]]);
    expect(caretForByte(byte)).toBe(text);
  });

  it('escapes the three notation introducers when they are printable text', () => {
    expect(pairs(whole(utf8('^\\<')))).toEqual([['\\^', 'printable'], ['\\\\', 'printable'], ['\\<', 'printable']]);
    // Without the escape, text "^[" would read exactly like ESC.
    expect(caretString(utf8('^['))).toBe('\\^[');
    expect(caretString(Uint8Array.of(0x1b))).toBe('^[');
  });

  it('names raw C1 bytes that no UTF-8 sequence claims', () => {
    expect(pairs(whole([0x9b]))).toEqual([['<CSI>', 'c1']]);
    expect(pairs(whole([0x80, 0x9c, 0x9d, 0x9f]))).toEqual([
      ['<PAD>', 'c1'], ['<ST>', 'c1'], ['<OSC>', 'c1'], ['<APC>', 'c1'],
    ]);
  });

  it('gives caretForByte a notation for every byte and rejects non-bytes', () => {
    expect(caretForByte(0x9b)).toBe('<CSI>');
    expect(caretForByte(0xa0)).toBe('\\xa0');
    expect(caretForByte(0xff)).toBe('\\xff');
    expect(caretForByte(0xe2)).toBe('\\xe2');
    for (let b = 0; b < 256; b++) expect(splitCaretText(caretForByte(b))).toHaveLength(1);
    for (const bad of [-1, 256, 1.5, Number.NaN]) expect(() => caretForByte(bad)).toThrow(RangeError);
  });
});

describe('UTF-8 characters', () => {
  it('shows the two-byte encoding of a C1 code point as C1, with a continuation cell', () => {
    expect(pairs(whole([0xc2, 0x9b]))).toEqual([['<CSI>', 'c1'], ['·', 'utf8-cont']]);
    expect(pairs(whole([0xc2, 0x80]))).toEqual([['<PAD>', 'c1'], ['·', 'utf8-cont']]);
  });

  it('shows € (E2 82 AC) in its lead cell; 0x82 is a continuation, not C1', () => {
    expect(pairs(whole(utf8('€')))).toEqual([['€', 'utf8-lead'], ['·', 'utf8-cont'], ['·', 'utf8-cont']]);
  });

  it('does not mistake 0x9C inside 本 (E6 9C AC) for ST', () => {
    expect(Array.from(utf8('本'))).toEqual([0xe6, 0x9c, 0xac]);
    expect(pairs(whole(utf8('本')))).toEqual([['本', 'utf8-lead'], ['·', 'utf8-cont'], ['·', 'utf8-cont']]);
  });

  it('shows a four-byte emoji', () => {
    expect(pairs(whole(utf8('🙂')))).toEqual([
      ['🙂', 'utf8-lead'], ['·', 'utf8-cont'], ['·', 'utf8-cont'], ['·', 'utf8-cont'],
    ]);
  });

  it('shows bidi controls and tag characters as invisible code points', () => {
    expect(pairs(whole(utf8('\u202e')))).toEqual([['<U+202E>', 'invisible'], ['·', 'utf8-cont'], ['·', 'utf8-cont']]);
    expect(pairs(whole([0xf3, 0xa0, 0x80, 0x81]))).toEqual([
      ['<U+E0001>', 'invisible'], ['·', 'utf8-cont'], ['·', 'utf8-cont'], ['·', 'utf8-cont'],
    ]);
    expect(caretString(utf8('\u{e0041}'))).toBe('<U+E0041>···');
  });

  it.each([
    0x202a, 0x202d, 0x2066, 0x2069, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2028, 0x2029, 0xfeff,
    0x00ad, 0x061c, 0x2060, 0x180e, 0xfe0f, 0x3164, 0xe007f,
  ])('treats U+%s as invisible', (cp) => {
    expect(whole(utf8(String.fromCodePoint(cp)))[0]).toEqual({
      text: `<U+${cp.toString(16).toUpperCase().padStart(4, '0')}>`,
      kind: 'invisible',
    });
  });

  it.each([
    ['combining acute', 0x0301], ['no-break space', 0x00a0], ['ideographic space', 0x3000],
    ['Hebrew alef (right-to-left)', 0x05d0], ['Arabic alef', 0x0627], ['Adlam letter', 0x1e900],
    ['private use', 0xe000], ['replacement character', 0xfffd], ['middle dot look-alike', 0x00b7],
    ['fullwidth less-than', 0xff1c], ['unassigned', 0x0378],
  ])('escapes %s as a code point', (_name, cp) => {
    expect(whole(utf8(String.fromCodePoint(cp)))[0].kind).toBe('utf8-escaped');
  });

  it('shows ordinary non-ASCII letters as themselves', () => {
    expect(caretString(utf8('é ß Ж 日本 한'))).toBe('é· ß· Ж· 日··本·· 한··');
  });
});

describe('ill-formed UTF-8', () => {
  it('marks a stray 0xFF invalid', () => {
    expect(pairs(whole([0xff]))).toEqual([['\\xff', 'invalid']]);
  });

  it('marks a truncated € (E2 82) followed by A as one invalid subpart, not C1', () => {
    expect(pairs(whole([0xe2, 0x82, 0x41]))).toEqual([['\\xe2', 'invalid'], ['\\x82', 'invalid'], ['A', 'printable']]);
  });

  it('claims a 0x80–0x9F byte for the failed sequence that reached it', () => {
    // E2 9B is a valid prefix that A breaks: 9B belongs to that broken character.
    expect(pairs(whole([0xe2, 0x9b, 0x41]))).toEqual([['\\xe2', 'invalid'], ['\\x9b', 'invalid'], ['A', 'printable']]);
    // E0 needs A0–BF next, so E0 is a subpart on its own and 9B is unclaimed: C1.
    expect(pairs(whole([0xe0, 0x9b]))).toEqual([['\\xe0', 'invalid'], ['<CSI>', 'c1']]);
  });

  it('follows Table 3-7: overlongs, surrogates and code points above U+10FFFF are invalid', () => {
    expect(caretString(Uint8Array.of(0xc0, 0xaf))).toBe('\\xc0\\xaf');
    expect(caretString(Uint8Array.of(0xe0, 0x80, 0xaf))).toBe('\\xe0<PAD>\\xaf');
    expect(caretString(Uint8Array.of(0xed, 0xa0, 0x80))).toBe('\\xed\\xa0<PAD>');
    expect(caretString(Uint8Array.of(0xf4, 0x90, 0x80, 0x80))).toBe('\\xf4<DCS><PAD><PAD>');
    expect(caretString(Uint8Array.of(0xf5, 0x80))).toBe('\\xf5<PAD>');
    expect(caretString(Uint8Array.of(0xed, 0x95, 0x9c))).toBe('한··'); // ED 80–9F is fine
    expect(caretString(Uint8Array.of(0xf4, 0x8f, 0xbf, 0xbf))).toBe('<U+10FFFF>···');
  });

  it('treats a sequence cut by the end of a complete stream as invalid', () => {
    expect(caretString(Uint8Array.of(0x41, 0xe2, 0x82))).toBe('A\\xe2\\x82');
  });
});

describe('kinds', () => {
  it('lists every kind once', () => {
    expect(new Set(CELL_KINDS).size).toBe(CELL_KINDS.length);
    expect(CELL_KINDS).toHaveLength(11);
  });

  it('reuses frozen cells instead of allocating one per byte', () => {
    const cells = whole(utf8('aa€€'));
    expect(cells[0]).toBe(cells[1]);
    expect(cells[2]).toBe(cells[5]);
    expect(Object.isFrozen(cells[2])).toBe(true);
  });
});

describe('caretString', () => {
  it('renders an OSC 52 snippet on one line', () => {
    expect(caretString(utf8('\x1b]52;c;aGk=\x07'))).toBe('^[]52;c;aGk=^G');
  });

  it('renders 8-bit CSI and its UTF-8-encoded twin distinctly', () => {
    expect(caretString(Uint8Array.of(0x9b, 0x33, 0x31, 0x6d))).toBe('<CSI>31m');
    expect(caretString(Uint8Array.of(0xc2, 0x9b, 0x33, 0x31, 0x6d))).toBe('<CSI>·31m');
  });
});
