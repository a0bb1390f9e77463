/**
 * Proves what the sanitizer emits as text: the seed article's sample and the DESIGN's done-when
 * example, the documented CR/BS rule in both modes (newline: history; overwrite: what a terminal
 * shows), CRLF, repeated CRs, CR at line start and at EOF, BS, U+FFFD per maximal ill-formed
 * subpart, removal of invisible code points, OSC 8 label kept with its URI dropped, unterminated
 * strings swallowing the rest, and the streaming API (write/end) producing the same bytes.
 */
import { describe, expect, it } from 'vitest';
import { sanitize, Sanitizer } from '../../shared/sanitize/sanitizer';
import { bytes, bytewise, clean, decodeStrict, sanitizeChunks, utf8 } from '../helpers/record';

const SEED_SAMPLE = bytes('build: \x1b[31mFAIL\x1b[0m\nnotice\x1b[1A\x1b]8;;https://example.invalid\x1b\\open\x1b]8;;\x1b\\\rPASS\n');
const DONE_WHEN = bytes('build: \x1b[31mFAIL\x1b[0m\n\x1b]52;c;ZXZpbA==\x07ok\n');

describe('reference samples', () => {
  it("the seed article's printf sample (newline mode: CUU moves to another line, so a line break)", () => {
    expect(clean(SEED_SAMPLE)).toBe('build: FAIL\nnotice\nopen\nPASS\n');
  });

  it("the seed article's printf sample (overwrite mode: CUU leaves the line, PASS overwrites the next)", () => {
    expect(clean(SEED_SAMPLE, { cr: 'overwrite' })).toBe('build: FAIL\nnotice\nPASS\n');
  });

  it("the DESIGN's done-when example", () => {
    expect(clean(DONE_WHEN)).toBe('build: FAIL\nok\n');
  });

  it('plain text passes unchanged, byte for byte', () => {
    const text = utf8('plain ASCII, tabs\tand\nlines; € 本 🙂 ñ\u00a0x\n');
    expect(sanitize(text).text).toEqual(text);
    const noTabs = utf8('plain ASCII\nlines; € 本 🙂 ñ\u00a0x\n');
    expect(sanitize(noTabs, { cr: 'overwrite' }).text).toEqual(noTabs);
  });

  it('empty input gives empty text', () => {
    expect(sanitize(new Uint8Array(0)).text).toEqual(new Uint8Array(0));
  });
});

describe('CR rule, newline mode (default)', () => {
  it('the status line keeps its history', () => {
    expect(clean(bytes('working 10%\rworking 20%\rfailure'))).toBe('working 10%\nworking 20%\nfailure');
  });

  it('CRLF is a single LF', () => {
    expect(clean(bytes('a\r\nb\r\n'))).toBe('a\nb\n');
  });

  it('repeated CRs make one line break', () => {
    expect(clean(bytes('a\r\r\rb'))).toBe('a\nb');
    expect(clean(bytes('a\r\r\r\nb'))).toBe('a\nb');
  });

  it('a CR at the start of a line is dropped', () => {
    expect(clean(bytes('\rabc'))).toBe('abc');
    expect(clean(bytes('x\n\rabc'))).toBe('x\nabc');
  });

  it('a CR at EOF is dropped', () => {
    expect(clean(bytes('abc\r'))).toBe('abc');
    expect(clean(bytes('abc\r\r'))).toBe('abc');
  });

  it('a CR before removed sequences still breaks the line before the next text', () => {
    expect(clean(bytes('a\r\x1b[2K\x1b]0;t\x07b'))).toBe('a\nb');
  });

  it('a CR inside a CSI counts like any CR (VT500 executes it)', () => {
    expect(clean(bytes('a\x1b[1\rAb'))).toBe('a\nb');
  });

  it('a CR before invalid UTF-8 breaks the line before the U+FFFD', () => {
    expect(clean(bytes('a\r\xffb'))).toBe('a\n\ufffdb');
  });

  it('BS is removed (newline mode keeps what was written)', () => {
    expect(clean(bytes('ab\bc'))).toBe('abc');
    expect(clean(bytes('\b\bx'))).toBe('x');
  });
});

describe('CR/BS rule, overwrite mode (what a terminal shows)', () => {
  const ow = (s: string | Uint8Array) => clean(typeof s === 'string' ? bytes(s) : s, { cr: 'overwrite' });

  it("the status line shows 'failure' over the first 7 cells of 'working 20%'", () => {
    expect(ow('working 10%\rworking 20%\rfailure')).toBe('failure 20%');
  });

  it('CRLF is a single LF', () => {
    expect(ow('abc\r\nd')).toBe('abc\nd');
  });

  it('repeated CRs are harmless', () => {
    expect(ow('a\r\r\rb')).toBe('b');
  });

  it('a CR at EOF leaves the line as it is', () => {
    expect(ow('abc\r')).toBe('abc');
  });

  it('BS moves one cell left: ab BS c shows ac', () => {
    expect(ow('ab\bc')).toBe('ac');
  });

  it('BS stops at column 0', () => {
    expect(ow('\b\bab\b\b\bX')).toBe('Xb');
    expect(ow('abc\b\b\b\b\bXY')).toBe('XYc');
  });

  it('overwriting stops at LF: each line is emulated on its own', () => {
    expect(ow('abc\rd\n\re')).toBe('dbc\ne');
  });

  it('multi-byte characters overwrite whole cells', () => {
    expect(ow(utf8('€€€\r本'))).toBe('本€€');
    expect(ow(utf8('abc\b🙂'))).toBe('ab🙂');
  });

  it('TAB moves to the next tab stop (every 8 columns) without erasing; skipped cells show as spaces', () => {
    expect(ow('abcdefgh\r\tX')).toBe('abcdefghX');
    expect(ow('x\ty\rab')).toBe('ab      y');
    expect(ow('a\tb')).toBe('a       b');
    expect(ow('abcdefghij\tk')).toBe('abcdefghij      k');
    expect(ow('a\t\bX')).toBe('a      X');
  });

  it('a trailing TAB writes nothing (a terminal shows blank cells)', () => {
    expect(ow('abc\t')).toBe('abc');
    expect(ow('abc\t\nd')).toBe('abc\nd');
  });

  it('U+FFFD for invalid UTF-8 takes a cell like any character', () => {
    expect(ow(bytes('abc\r\xff'))).toBe('\ufffdbc');
  });
});

describe('invalid UTF-8 becomes U+FFFD per maximal ill-formed subpart', () => {
  it.each([
    ['lone 0xFF', 'a\xffb', 'a\ufffdb'],
    ['truncated E2 A0 then A', '\xe2\xa0A', '\ufffdA'],
    ['truncated F0 A0 A0 then A', '\xf0\xa0\xa0A', '\ufffdA'],
    // A 0x80-0x9F continuation byte starts a subpart of its own: an 8-bit terminal reads it as C1.
    ['truncated E2 82 then A (0x82 stray)', '\xe2\x82A', '\ufffd\ufffdA'],
    ['truncated F0 9F 99 then A (0x9F opens an APC that 0x99 aborts)', '\xf0\x9f\x99A', '\ufffd\ufffdA'],
    ['F5', '\xf5A', '\ufffdA'],
    ['lone continuation A0', '\xa0A', '\ufffdA'],
    ['two lone continuations A0 BF', '\xa0\xbfA', '\ufffd\ufffdA'],
    ['incomplete at EOF', 'A\xe6\xa0', 'A\ufffd'],
    ['incomplete at EOF, cut before 0x9C', 'A\xe6\x9c', 'A\ufffd\ufffd'],
  ])('%s', (_name, input, want) => {
    expect(clean(bytes(input))).toBe(want);
  });

  it('overlong C0 80: U+FFFD for C0 and for the stray 0x80 (invalid UTF-8, PAD to an 8-bit terminal)', () => {
    expect(clean(bytes('\xc0\x80A'))).toBe('\ufffd\ufffdA');
  });

  it('surrogate ED A0 80: U+FFFD for ED, A0 and the stray 0x80', () => {
    expect(clean(bytes('\xed\xa0\x80A'))).toBe('\ufffd\ufffd\ufffdA');
  });

  it('an invalid lead byte next to ESC cannot glue with bytes after the sequence', () => {
    expect(clean(bytes('\xe2\x1b[31m\xa8\xaa'))).toBe('\ufffd\ufffd\ufffd');
  });

  it('the same replacement whatever the chunking', () => {
    const input = bytes('\xe2\x82A\xf0\x9f\x99\xff', utf8('本'), '\xe6');
    expect(decodeStrict(sanitizeChunks(bytewise(input)).text)).toBe(clean(input));
  });
});

describe('invisible code points are removed', () => {
  it('bidi embedding, override and isolate controls (Trojan Source)', () => {
    expect(clean(utf8('if (\u202eaccess\u2066 ok\u2069\u202c)'))).toBe('if (access ok)');
  });

  it('tag characters (ASCII smuggling)', () => {
    const smuggled = [...'ignore previous'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    expect(clean(utf8(`hello${smuggled}\u{e007f} world`))).toBe('hello world');
  });

  it('zero-width characters, bidi marks and other default-ignorable code points are removed', () => {
    expect(clean(utf8('a\u200bb\u2060c\ufeffd\u200ee\u200ff\u061cg\u00adh\u034fi\u3164j\u{1d173}k'))).toBe('abcdefghijk');
    // LRM/RLM reorder digits and neutrals in a bidi renderer: x = RLM 10 - 5 would show as 5 - 10.
    expect(clean(utf8('x = \u200f10 - 5'))).toBe('x = 10 - 5');
  });

  it('variation selectors after a character that does not take them carry hidden bytes: removed', () => {
    const smuggled = [...'hi'].map((c) => String.fromCodePoint(0xe0100 + c.charCodeAt(0))).join('');
    expect(clean(utf8(`build finished 😀${smuggled}`))).toBe('build finished 😀');
    expect(clean(utf8('a\ufe0fb\ufe00c'))).toBe('abc');
  });
});

describe('OSC 8 hyperlinks', () => {
  it('keeps the label, drops the URI (BEL and ST forms)', () => {
    expect(clean(bytes('see \x1b]8;;https://evil.invalid/x\x07the docs\x1b]8;;\x07.'))).toBe('see the docs.');
    expect(clean(bytes('see \x1b]8;id=7;https://evil.invalid/x\x1b\\the docs\x1b]8;;\x1b\\.'))).toBe('see the docs.');
  });

  it('an unclosed link keeps its label', () => {
    expect(clean(bytes('\x1b]8;;https://evil.invalid\x07label'))).toBe('label');
  });
});

describe('strings are removed whole', () => {
  it.each([
    ['OSC 52 clipboard', '\x1b]52;c;ZXZpbA==\x07'],
    ['OSC 0 title', '\x1b]0;rm -rf ~\x1b\\'],
    ['OSC 1337 file', '\x1b]1337;File=inline=1:AAAA\x07'],
    ['DCS', '\x1bP$qm\x1b\\'],
    ['sixel', '\x1bPq#0;2;0;0;0~~\x1b\\'],
    ['APC', '\x1b_Gf=100;AAAA\x1b\\'],
    ['PM', '\x1b^private\x1b\\'],
    ['SOS', '\x1bXstart of string\x1b\\'],
  ])('%s', (_name, seq) => {
    expect(clean(bytes('a', seq, 'b'))).toBe('ab');
  });

  it.each([
    ['8-bit OSC', '\x9d0;title\x9c'],
    ['8-bit DCS', '\x90qpayload\x9c'],
    ['UTF-8 encoded OSC', '\xc2\x9d0;title\xc2\x9c'],
  ])('%s: removed; a UTF-8 terminal (libvterm and tmux: also for the encoded one) shows the payload as text, so one space keeps a and b apart', (_name, seq) => {
    expect(clean(bytes('a', seq, 'b'))).toBe('a b');
  });

  it('an unterminated OSC swallows the rest of the input', () => {
    expect(clean(bytes('visible\x1b]0;evil title\nand every line after\n'))).toBe('visible');
  });

  it('an unterminated DCS/APC swallows the rest too', () => {
    expect(clean(bytes('v\x1bPqsixel data\nmore'))).toBe('v');
    expect(clean(bytes('v\x1b_apc data\nmore'))).toBe('v');
  });

  it('an oversized string is discarded up to its terminator, never returned as text', () => {
    const input = bytes('a\x1b]0;', 'x'.repeat(5000), '\x07b');
    expect(clean(input, { limits: { maxStringBytes: 16 } })).toBe('ab');
  });

  it('CAN aborts a string: what follows is text, the payload is not', () => {
    expect(clean(bytes('\x1b]0;title\x18visible'))).toBe('visible');
  });
});

describe('controls that are not text', () => {
  it('C0 other than LF and TAB, DEL, and C1 in both forms are removed (VT, FF, NEL, IND move lines; raw C1 is invalid UTF-8)', () => {
    expect(clean(bytes('a\x00\x05\x07\x0e\x0f\x1f\x7fb', utf8('\u0085\u0084'), 'd'))).toBe('ab\nd');
    expect(clean(bytes('a\x0b\x0cb\x84\x85c'))).toBe('a\nb\ufffd\ufffdc');
  });

  it('ESC sequences and lone ESC are removed', () => {
    expect(clean(bytes('a\x1b7\x1b(B\x1b%G\x1b Fb\x1b'))).toBe('ab');
  });

  it('CSI of every kind is removed, 7-bit, 8-bit and UTF-8 encoded', () => {
    expect(clean(bytes('a\x1b[2J\x1b[?25h\x1b[21t\x1b[6n\x1b[2Kb'))).toBe('ab');
    expect(clean(bytes('a\x9b1A\x9b31mb'))).toBe('a\nb');
    // C2 9B is a CSI to xterm.js only: libvterm and tmux show 2K, so one space keeps a and b apart.
    expect(clean(bytes('a\xc2\x9b2Kb'))).toBe('a b');
  });
});

describe('streaming API', () => {
  it('write() returns the text completed so far; end() the rest', () => {
    const s = new Sanitizer();
    expect(decodeStrict(s.write(bytes('ab\x1b[3')))).toBe('ab');
    expect(decodeStrict(s.write(bytes('1mcd\r')))).toBe('cd');
    expect(decodeStrict(s.write(bytes('\nef\xe2\xa0')))).toBe('\nef');
    expect(decodeStrict(s.end())).toBe('\ufffd');
    expect(s.end()).toEqual(new Uint8Array(0));
    expect(() => s.write(bytes('x'))).toThrow();
  });

  it('overwrite mode emits a line only once it is complete (LF or end)', () => {
    const s = new Sanitizer({ cr: 'overwrite' });
    expect(decodeStrict(s.write(bytes('abc\rX')))).toBe('');
    expect(decodeStrict(s.write(bytes('\nnext')))).toBe('Xbc\n');
    expect(decodeStrict(s.end())).toBe('next');
  });

  it('reuseOutputBuffer: each result is a view valid until the next call, with the same bytes', () => {
    const input = bytes('ab\x1b[31mcd\r\nef', utf8('本'), '\xff\x1b]0;x\x07gh\n');
    for (const cr of ['newline', 'overwrite'] as const) {
      const s = new Sanitizer({ cr, reuseOutputBuffer: true });
      const copies: number[] = [];
      for (const c of bytewise(input)) copies.push(...s.write(c));
      copies.push(...s.end());
      expect(Uint8Array.from(copies)).toEqual(sanitize(input, { cr }).text);
    }
  });

  it('without reuseOutputBuffer every result is a fresh array the caller owns', () => {
    const s = new Sanitizer();
    const a = s.write(bytes('first\n'));
    const b = s.write(bytes('second\n'));
    expect(decodeStrict(a)).toBe('first\n');
    expect(decodeStrict(b)).toBe('second\n');
    expect(a.buffer).not.toBe(b.buffer);
  });

  it('the onSpan hook sees every span the parser reports, in order', () => {
    const seen: string[] = [];
    sanitize(bytes('a\x1b[31mb\rc\x1b]0;t\x07'), { hooks: { onSpan: (cls, offset, length) => seen.push(`${cls}@${offset}+${length}`) } });
    expect(seen).toEqual(['3@1+5', '0@7+1', '4@9+6']);
  });

  it('the sample, fed one byte at a time, gives the same text', () => {
    expect(decodeStrict(sanitizeChunks(bytewise(SEED_SAMPLE)).text)).toBe('build: FAIL\nnotice\nopen\nPASS\n');
    expect(decodeStrict(sanitizeChunks(bytewise(SEED_SAMPLE), { cr: 'overwrite' }).text)).toBe('build: FAIL\nnotice\nPASS\n');
  });
});
