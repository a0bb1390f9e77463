/**
 * Proves that Airlock avoids each known failure of the seed article's example function
 * `clean_terminal_bytes` (ported faithfully in test/helpers/seed.ts). Every case runs both: the
 * seed's output is asserted to be wrong in the documented way (so the case really exercises the
 * pitfall), and Airlock's output is asserted to be right. Cases: continuation bytes 0x80-0x9F taken
 * for C1 (corrupting 本 and €, or a 0x9B inside 溛 eating following text); ESC inside a CSI;
 * CAN/SUB aborts; UTF-8 encoded C1 (C2 9B, C2 9D); decoding after filtering gluing bytes across a
 * removed sequence; 8-bit string introducers leaking payload; ESC forms with intermediates leaking
 * their final; BEL ending DCS/APC early; DEL kept; state lost at chunk boundaries.
 */
import { describe, expect, it } from 'vitest';
import { bytes, clean, decodeStrict, sanitizeChunks, utf8 } from '../helpers/record';
import { seedClean } from '../helpers/seed';

describe('the seed sample itself', () => {
  it('both agree on the seed printf sample apart from CR and cursor-up handling', () => {
    const input = bytes('build: \x1b[31mFAIL\x1b[0m\nnotice\x1b[1A\x1b]8;;https://example.invalid\x1b\\open\x1b]8;;\x1b\\\rPASS\n');
    expect(seedClean(input).text).toBe('build: FAIL\nnoticeopenPASS\n');
    expect(clean(input)).toBe('build: FAIL\nnotice\nopen\nPASS\n');
  });
});

describe('(a) UTF-8 continuation bytes in 0x80-0x9F are not C1', () => {
  it('本 and € survive (the seed strips their 0x9C/0x82 bytes and decodes U+FFFD)', () => {
    const input = utf8('本 costs 5 €');
    expect(seedClean(input).text).toBe('\ufffd costs 5 \ufffd');
    expect(clean(input)).toBe('本 costs 5 €');
  });

  it('a 0x9B continuation (溛 = E6 BA 9B) does not start a CSI that eats the next text', () => {
    const input = utf8('溛ok');
    expect(seedClean(input).text).toBe('\ufffdk');
    expect(clean(input)).toBe('溛ok');
  });

  it('inside an OSC payload a 0x9C continuation does not end the string early', () => {
    const input = bytes('\x1b]0;', utf8('本'), 'evil\x07ok');
    expect(clean(input)).toBe('ok');
    // A parser that took raw 0x9C as ST here would leak "\xac" + "evil".
    expect(clean(input)).not.toContain('evil');
  });
});

describe('(b) ESC inside a CSI', () => {
  it('the OSC started by the ESC is recognized and removed; its payload is absent', () => {
    const input = bytes('\x1b[31\x1b]0;evil\x07m');
    expect(seedClean(input).text).toBe('0;evilm');
    expect(clean(input)).toBe('m');
  });
});

describe('(c) CAN/SUB abort a string', () => {
  it('keeps the text after CAN, drops the title', () => {
    const input = bytes('\x1b]0;title\x18visible');
    expect(seedClean(input).text).toBe('');
    expect(clean(input)).toBe('visible');
  });

  it('SUB likewise', () => {
    expect(clean(bytes('\x1b]2;title\x1avisible'))).toBe('visible');
  });
});

describe('(d) C1 controls encoded as UTF-8', () => {
  it('C2 9B (CSI) is removed as one sequence', () => {
    const input = bytes('\xc2\x9b31mX');
    expect(seedClean(input).text).toBe('\ufffdX');
    expect(clean(input)).toBe('X');
  });

  it('C2 9D (OSC) is a string: its payload does not leak (the seed prints it)', () => {
    const input = bytes('\xc2\x9d0;evil\x07ok');
    expect(seedClean(input).text).toBe('\ufffd0;evilok');
    expect(clean(input)).toBe('ok');
  });
});

describe('(e) decoding after filtering glues bytes across a removed sequence', () => {
  it('E2 | CSI | A8 AA: the seed makes U+2A2A from bytes on both sides; Airlock emits valid UTF-8 with U+FFFD', () => {
    const input = bytes('\xe2\x1b[31m\xa8\xaa');
    expect(seedClean(input).text).toBe('\u2a2a');
    const out = clean(input);
    expect(out).toBe('\ufffd\ufffd\ufffd');
    expect(() => decodeStrict(utf8(out))).not.toThrow();
  });

  it('an invalid byte right before ESC does not swallow or alter the sequence', () => {
    expect(clean(bytes('\xff\x1b]52;c;ZXZpbA==\x07\xfeok'))).toBe('\ufffd\ufffdok');
  });
});

describe('further seed failures Airlock avoids', () => {
  it('8-bit OSC/DCS/APC introducers (0x9D, 0x90, 0x9F): the seed drops the byte and prints the payload', () => {
    for (const intro of ['\x9d0;', '\x90q', '\x9f']) {
      const input = bytes(intro, 'evil\x9cok');
      expect(seedClean(input).text).toContain('evil');
      expect(clean(input)).toBe('ok');
    }
  });

  it('ESC forms with intermediates (ESC ( 0, ESC # 8, ESC % G): the seed leaks the final byte', () => {
    const input = bytes('a\x1b(0b\x1b#8c\x1b%Gd');
    expect(seedClean(input).text).toBe('a0b8cGd');
    // b and c are drawn as every terminal draws them in DEC line drawing; DECALN fills the screen
    // (a line break); ESC % G resets xterm.js's G0 only, so d (ASCII there, ␌ elsewhere) is withheld.
    expect(clean(input)).toBe('a␉\n␌');
  });

  it('BEL does not end a DCS/APC (terminals ignore it there): the seed shows the agent text a terminal hides', () => {
    const input = bytes('\x1bPq\x07hidden from humans\x1b\\ok');
    expect(seedClean(input).text).toBe('hidden from humansok');
    expect(clean(input)).toBe('ok');
  });

  it('DEL is removed (the seed keeps it)', () => {
    expect(seedClean(bytes('a\x7fb')).text).toBe('a\x7fb');
    expect(clean(bytes('a\x7fb'))).toBe('ab');
  });

  it('invisible code points are removed and counted, not merely corrupted', () => {
    expect(clean(utf8('a\u202eb\u{e0041}c'))).toBe('abc');
  });

  it('a LF inside a CSI is kept (the seed swallows it)', () => {
    const input = bytes('a\x1b[1\nAb');
    expect(seedClean(input).text).toBe('ab');
    expect(clean(input)).toBe('a\nb');
  });

  it('state survives chunk boundaries: ESC | [31m (the seed, run per chunk, leaks "[31m")', () => {
    const chunks = [bytes('a\x1b'), bytes('[31mb')];
    expect(chunks.map((c) => seedClean(c).text).join('')).toBe('a[31mb');
    expect(decodeStrict(sanitizeChunks(chunks).text)).toBe('ab');
  });

  it('state survives chunk boundaries: an OSC split after ESC of its ST', () => {
    const chunks = [bytes('\x1b]0;evil\x1b'), bytes('\\ok')];
    expect(chunks.map((c) => seedClean(c).text).join('')).toBe('\\ok');
    expect(decodeStrict(sanitizeChunks(chunks).text)).toBe('ok');
  });
});
