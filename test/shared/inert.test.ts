import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstNotInert, isInert } from '../../shared/sanitize/inert';
import { sanitize } from '../../shared/sanitize/sanitizer';

const enc = new TextEncoder();
const dec = new TextDecoder();

describe('inert text (what copy and export let through)', () => {
  it('keeps text real writing needs: emoji ZWJ sequences, VS16, Persian ZWNJ, CJK, TAB and LF', () => {
    for (const t of ['👨\u200d👩\u200d👧 family', '❤\ufe0f', 'می\u200cخواهم', '本 € café', 'a\tb\nc', '0x1b 5b 33 31 6d', '^[[31m']) {
      expect(firstNotInert(t), t).toBe(-1);
    }
  });

  it('names the first character no terminal shows as text', () => {
    expect(firstNotInert('ok\x1b[31m')).toBe(2);
    expect(firstNotInert('本\u202eexe')).toBe(1);
    expect(firstNotInert('a\u200b\u200bb')).toBe(1);
    expect(firstNotInert('x\u0085y')).toBe(1);
    expect(firstNotInert('cr\rlf')).toBe(2);
    expect(firstNotInert('del\x7f')).toBe(3);
    expect(firstNotInert('tag\u{e0041}')).toBe(3);
    expect(firstNotInert('😀\u{e0100}')).toBe(2);
    expect(firstNotInert('lone \ud800 surrogate')).toBe(5);
    expect(firstNotInert('\udc00')).toBe(0);
  });

  it('is exactly "the sanitizer keeps it unchanged"', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\t', '\r', '\x1b', '[', 'm', '\u200d', '\u200c', '\ufe0f', '😀', 'ی', '\u202e', '\u200b', '\u0085', '\x07', 'é') }), (t) => {
        const bytes = enc.encode(t);
        const kept = dec.decode(sanitize(bytes).text) === t;
        expect(isInert(t)).toBe(kept);
      }),
      { numRuns: 2000 },
    );
  });
});
