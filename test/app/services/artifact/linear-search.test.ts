// The searches' matchers (fold.ts) against naive references on random input: every overlapping
// hit, nothing else, at chunk-like limits. The Unicode case-insensitive one is checked against the
// definition itself (a hit is a range of whole characters whose case fold equals the query's).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileMasked, failureTable, foldCodePoint, foldQuery, scanBytes, scanFolded, scanMasked } from '../../../../app/services/artifact/fold';
import { compileMatch, matchStarts, textMatch } from '../../../../app/services/artifact/search';

const collect = (f: (hit: (i: number) => void) => void): number[] => {
  const out: number[] = [];
  f((i) => out.push(i));
  return out;
};

function naiveBytes(hay: Uint8Array, needle: Uint8Array, mask: Uint8Array | null, limit: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < limit && i + needle.length <= hay.length; i++) {
    let ok = true;
    for (let k = 0; k < needle.length && ok; k++) ok = (mask !== null && !mask[k]) || hay[i + k] === needle[k];
    if (ok) out.push(i);
  }
  return out;
}

/** Starts (raw byte offsets) of ranges of whole characters of `text` whose fold equals the query's. */
function naiveFolded(text: string, query: string, limit: number): number[] {
  const want = Buffer.from(foldQuery(query)).toString('latin1');
  const cps = [...text];
  const offs: number[] = [];
  let at = 0;
  for (const c of cps) {
    offs.push(at);
    at += Buffer.byteLength(c);
  }
  const out: number[] = [];
  for (let i = 0; i < cps.length; i++) {
    if (offs[i] >= limit) break;
    let folded = '';
    for (let j = i; j < cps.length && folded.length < want.length; j++) {
      folded += Buffer.from(foldCodePoint(cps[j].codePointAt(0)!)).toString('latin1');
      if (folded === want) {
        out.push(offs[i]);
        break;
      }
    }
  }
  return out;
}

const smallBytes = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b.map((x) => x % 4 + 0x61)));
const letters = fc.constantFrom(...'aAbBsSßẞσςΣéÉиИ i İıKk\u212a\ufb01fF');
const text = fc.array(letters, { maxLength: 80 }).map((a) => a.join(''));

describe('linear matchers', () => {
  it('KMP finds every overlapping hit below the limit (small alphabet: many partial matches)', () => {
    fc.assert(fc.property(smallBytes, fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => Buffer.from(b.map((x) => x % 4 + 0x61))), fc.nat(320), (hay, needle, limit) => {
      expect(collect((hit) => scanBytes(needle, failureTable(needle), hay, limit, hit))).toEqual(naiveBytes(hay, needle, null, limit));
    }), { numRuns: 800 });
  });

  it('Shift-And finds every hit of a pattern with wildcards, up to 256 bytes', () => {
    const pattern = fc.integer({ min: 1, max: 70 }).chain((n) => fc.tuple(fc.uint8Array({ minLength: n, maxLength: n }), fc.uint8Array({ minLength: n, maxLength: n })));
    fc.assert(fc.property(smallBytes, pattern, fc.nat(320), (hay, [bytes, m], limit) => {
      const needle = Uint8Array.from(bytes, (x) => x % 4 + 0x61);
      const mask = Uint8Array.from(m, (x) => (x % 3 === 0 ? 0 : 1));
      expect(collect((hit) => scanMasked(compileMasked(needle, mask), hay, limit, hit))).toEqual(naiveBytes(hay, needle, mask, limit));
    }), { numRuns: 800 });
    const long = Buffer.alloc(256, 0x61);
    expect(collect((hit) => scanMasked(compileMasked(long, new Uint8Array(256).fill(1)), Buffer.alloc(300, 0x61), 300, hit))).toHaveLength(45);
    expect(() => compileMasked(Buffer.alloc(257), new Uint8Array(257))).toThrow(/1 to 256 bytes/);
  });

  it('case folding: every range of whole characters that folds to the query, overlapping too', () => {
    fc.assert(fc.property(text, fc.array(letters, { minLength: 1, maxLength: 5 }).map((a) => a.join('')), fc.nat(200), (t, q, limit) => {
      const hay = Buffer.from(t, 'utf8');
      const needle = foldQuery(q);
      expect(collect((hit) => scanFolded(needle, failureTable(needle), hay, limit, hit)), `${t} / ${q}`).toEqual(naiveFolded(t, q, limit));
    }), { numRuns: 1500 });
  });

  it('a query with a non-ASCII letter folds both sides (ß and SS, σ ς Σ, the Kelvin sign); an ASCII one folds A-Z only', () => {
    const starts = (t: string, q: string): number[] => {
      const m = compileMatch(textMatch(q, false));
      const hay = Buffer.from(t);
      if (m.m.kind === 'bytes' && m.m.fold) for (let i = 0; i < hay.length; i++) if (hay[i] >= 0x41 && hay[i] <= 0x5a) hay[i] |= 0x20;
      return collect((hit) => matchStarts(m, hay, hay.length, hit));
    };
    expect(starts('STRASSE straße Strasse', 'straße')).toEqual([0, 8, 16]);
    expect(starts('ΟΔΟΣ οδος οδοσ', 'οδος')).toEqual([0, 9, 18]);
    expect(starts('\u212a k K', '\u212a')).toEqual([0, 4, 6]);
    // ASCII only: 'ss' stays bytes (no ß), the text's case folds.
    expect(starts('ß SS ss', 'ss')).toEqual([3, 6]);
    // A hit never starts or ends inside a character's fold: 's' is not half of 'ß'.
    expect(starts('ß', 'sé')).toEqual([]);
  });
});
