/**
 * Proves that parser state survives read boundaries: a sequence, a string terminator or a UTF-8
 * character split across chunks is parsed exactly as if it had arrived in one piece. Named cases
 * cover the splits the DESIGN calls out (ESC | `[`, ESC | `\`, a split ST inside an OSC, UTF-8
 * 1+2, 2+1, 1+1+1+1, C2 | 9B); an exhaustive check then tries every one- and two-cut split and
 * one-byte chunks of a hostile corpus, with empty chunks and unaligned views mixed in.
 */
import { describe, expect, it } from 'vitest';
import { Parser } from '../../shared/parser/parser';
import { bytes, bytewise, events, hex, Recorder, splitAt, utf8 } from '../helpers/record';

/** Events of `chunks` fed in order. */
const chunked = (...chunks: (string | Uint8Array)[]): string[] =>
  events(chunks.map((c) => (typeof c === 'string' ? bytes(c) : c)));

describe('named splits', () => {
  it('ESC | [ is one CSI', () => {
    expect(chunked('a\x1b', '[31mb')).toEqual(['text "a"@0', 'csi@1+5 SGR select graphic rendition', 'text "b"@6']);
  });

  it('ESC [ | params | final is one CSI', () => {
    expect(chunked('\x1b[', '3', '1', 'mX')).toEqual(['csi@0+5 SGR select graphic rendition', 'text "X"@5']);
  });

  it('ESC | \\ after an OSC payload is one ST (the OSC ends cleanly)', () => {
    expect(chunked('\x1b]0;title\x1b', '\\ok')).toEqual(['osc@0+11 OSC 0 set icon name and window title', 'text "ok"@11']);
  });

  it('`ESC ] 0 ; t` | `ESC` | `\\` is one OSC terminated by ST', () => {
    expect(chunked('\x1b]0;t', '\x1b', '\\')).toEqual(['osc@0+7 OSC 0 set icon name and window title']);
  });

  it('ESC at the end of an OSC chunk, then a non-backslash: the OSC is interrupted', () => {
    expect(chunked('\x1b]0;t\x1b', '[2Jx')).toEqual([
      'osc@0+5 OSC 0 set icon name and window title {malformed}', 'csi@5+4 ED erase display (all)', 'text "x"@9',
    ]);
  });

  it('ESC | \\ in ground is one stray ST sequence', () => {
    expect(chunked('a\x1b', '\\b')).toEqual(['text "a"@0', 'esc@1+2 ST string terminator (stray)', 'text "b"@3']);
  });

  it('a 3-byte character split 1+2 and 2+1', () => {
    const euro = utf8('€');
    expect(chunked('a', euro.subarray(0, 1), bytes(euro.subarray(1), 'b'))).toEqual(['text "a€b"@0']);
    expect(chunked(bytes('a', euro.subarray(0, 2)), bytes(euro.subarray(2), 'b'))).toEqual(['text "a€b"@0']);
  });

  it('a 4-byte character split 1+1+1+1', () => {
    const smile = utf8('🙂');
    expect(chunked(...bytewise(smile), 'x')).toEqual(['text "🙂x"@0']);
  });

  it('a split character whose continuation byte is 0x9C stays text (本 = E6 | 9C | AC)', () => {
    expect(chunked('\xe6', '\x9c', '\xacX')).toEqual(['text "本X"@0']);
  });

  it('a split invisible character is still invisible', () => {
    const rlo = utf8('\u202e');
    expect(chunked(rlo.subarray(0, 1), rlo.subarray(1, 2), rlo.subarray(2))).toEqual(['invisible@0+3 bidi embedding/override control']);
  });

  it('C2 | 9B is one UTF-8 encoded C1 CSI', () => {
    expect(chunked('a\xc2', '\x9b2Jb')).toEqual(['text "a"@0', 'csi@1+4 ED erase display (all) {8bit,utf8}', 'text "b"@5']);
  });

  it('C2 | 9C inside an OSC payload is one UTF-8 encoded ST (it ends the OSC for xterm.js only, so ok is withheld)', () => {
    expect(chunked('\x1b]0;t\xc2', '\x9cok')).toEqual(['osc@0+7 OSC 0 set icon name and window title', 'withheld@7+2 text not every terminal reading shows']);
  });

  it('a BOM split across reads after ESC (EF | BB | BF): still the BOM xterm.js drops, so ESC BOM ] is an OSC', () => {
    expect(chunked('a\x1b\xef', '\xbb', '\xbf]0;t\x07b')).toEqual(['text "a"@0', 'osc@1+9 OSC 0 set icon name and window title {malformed}', 'text "b"@10']);
  });

  it('a split character inside an OSC payload (E6 | 9C AC) does not end it', () => {
    expect(chunked('\x1b]0;\xe6', '\x9c\xac\x07ok')).toEqual(['osc@0+8 OSC 0 set icon name and window title', 'text "ok"@8']);
  });

  it('split inside an OSC payload, many times', () => {
    expect(chunked('\x1b]52;c;', 'ZXZp', 'bA==', '\x07', 'ok')).toEqual(['osc@0+16 OSC 52 clipboard access', 'text "ok"@16']);
  });

  it('split inside the OSC command number and the OSC 8 parameters', () => {
    expect(chunked('\x1b]5', '2;c;x\x07')).toEqual(['osc@0+9 OSC 52 clipboard access']);
    expect(chunked('\x1b]8;i', 'd=1', ';', 'http://x\x07L', '\x1b]8', ';;\x07')).toEqual([
      'osc@0+18 OSC 8 hyperlink (open)', 'text "L"@18', 'osc@19+6 OSC 8 hyperlink (close)',
    ]);
  });

  it('a split invalid sequence: E2 | A0 | A is one invalid subpart then text', () => {
    expect(chunked('\xe2', '\xa0', 'A')).toEqual(['invalid_utf8@0+2 invalid UTF-8', 'text "A"@2']);
  });

  it('a split invalid sequence cut before a 0x80-0x9F byte: E2 | 82 | A is invalid, a stray BPH, then text', () => {
    expect(chunked('\xe2', '\x82', 'A')).toEqual([
      'invalid_utf8@0+1 invalid UTF-8', 'invalid_utf8@1+1 invalid UTF-8 (8-bit terminal: BPH break permitted here) {stray}', 'text "A"@2',
    ]);
  });

  it('a lead byte at the end of the last chunk is invalid at end()', () => {
    expect(chunked('ab\xf0\xa0')).toEqual(['text "ab"@0', 'invalid_utf8@2+2 invalid UTF-8']);
    // F0 9F: the 0x9F is a stray APC to an 8-bit terminal, open at the end.
    expect(chunked('ab\xf0\x9f')).toEqual(['text "ab"@0', 'invalid_utf8@2+1 invalid UTF-8', 'apc@3+1 APC application program command {unterminated,8bit,stray}']);
  });

  it('a lead byte at the end of a chunk inside a string is payload at end() (unterminated string)', () => {
    expect(chunked('\x1b]0;\xe6')).toEqual(['osc@0+5 OSC 0 set icon name and window title {unterminated}']);
  });

  it('DCS header split from its payload and ST split', () => {
    expect(chunked('\x1bP', '$', 'q', 'm\x1b', '\\X')).toEqual(['dcs@0+7 DECRQSS request setting (query)', 'text "X"@7']);
  });

  it('empty chunks anywhere change nothing', () => {
    const empty = new Uint8Array(0);
    expect(chunked(empty, '\x1b', empty, '[1', empty, '\xe2', empty, '\x82\xac', empty, 'x', empty)).toEqual([
      'csi@0+7 DECREQTPARM request parameters {malformed}',
    ]);
    expect(chunked(empty, '\x1b]', empty, '0;\xe6', empty, '\x9c', empty, '\xac\x07', empty)).toEqual(['osc@0+8 OSC 0 set icon name and window title']);
  });
});

/** A hostile corpus: every DESIGN item plus the pitfalls. */
const CORPUS: Uint8Array[] = [
  bytes('build: \x1b[31mFAIL\x1b[0m\nnotice\x1b[1A\x1b]8;;https://example.invalid\x1b\\open\x1b]8;;\x1b\\\rPASS\n'),
  bytes('build: \x1b[31mFAIL\x1b[0m\n\x1b]52;c;ZXZpbA==\x07ok\n'),
  bytes('\x1b]0;', utf8('本'), '\x07ok', utf8('€🙂'), '\x9b2J', utf8('\u009b'), '1A'),
  bytes('\x1b[31\x1b]0;evil\x07m\x1b]0;title\x18visible\x1bPtmux;x\x1b\\'),
  bytes('\xe2\x1b[31m\x82\xac\xff\xc0\x80\xed\xa0\x80', utf8('\u202e\u{e0041}x'), '\x1b_apc\x9c\x9epm\x9c'),
  bytes('working 10%\rworking 20%\rfailure\r\nab\bc\x1b[?1049h\x1b[38:2::1:2:3m\x1b[1?m\x1b( \x1bP1;2q#0\x1b'),
  bytes('\x1b]2;unterminated ', utf8('本溛'), ' title'),
];

describe('exhaustive splits of a hostile corpus', () => {
  it.each(CORPUS.map((c, i) => [i, c] as const))('corpus #%i: every single cut gives the same events', (_i, input) => {
    const whole = events(input);
    for (let cut = 0; cut <= input.length; cut++) {
      expect(events(splitAt(input, [cut])), `cut at ${cut} of ${hex(input)}`).toEqual(whole);
    }
  });

  it.each(CORPUS.map((c, i) => [i, c] as const))('corpus #%i: every pair of cuts gives the same events', (_i, input) => {
    const whole = events(input);
    for (let a = 1; a < input.length; a++) {
      for (let b = a + 1; b < input.length; b++) {
        expect(events(splitAt(input, [a, b])), `cuts at ${a},${b}`).toEqual(whole);
      }
    }
  });

  it.each(CORPUS.map((c, i) => [i, c] as const))('corpus #%i: one byte per chunk gives the same events', (_i, input) => {
    expect(events(bytewise(input))).toEqual(events(input));
  });

  it.each(CORPUS.map((c, i) => [i, c] as const))('corpus #%i: unaligned views into larger buffers give the same events', (_i, input) => {
    const whole = events(input);
    for (let pad = 0; pad < 8; pad++) {
      const big = new Uint8Array(input.length + 16).fill(0x1b);
      big.set(input, pad);
      const view = big.subarray(pad, pad + input.length);
      expect(events(view)).toEqual(whole);
      const half = view.length >> 1;
      expect(events([view.subarray(0, half), view.subarray(half)])).toEqual(whole);
    }
  });

  it('a chunk may be reused (overwritten) by the caller right after feed()', () => {
    for (const input of CORPUS) {
      const rec = new Recorder();
      const parser = new Parser(rec);
      const buf = new Uint8Array(3);
      for (let i = 0; i < input.length; i += 3) {
        const n = Math.min(3, input.length - i);
        buf.set(input.subarray(i, i + n));
        parser.feed(buf.subarray(0, n));
        buf.fill(0x1b);
      }
      parser.end();
      expect(rec.lines()).toEqual(events(input));
    }
  });
});
