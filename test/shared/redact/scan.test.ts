import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../../shared/redact';
import { findKeys, LOOKALIKE } from '../../../shared/redact/scan';
// @ts-expect-error -- a plain .mjs fixture
import { BENIGN, SECRETS } from '../../fixtures/secrets/credentials.mjs';

const enc = new TextEncoder();

function found(bytes: Uint8Array, from: number, end: number): string[] {
  const out: string[] = [];
  findKeys(bytes, from, end, (rule, start) => out.push(`${rule}@${start}`));
  return out.sort();
}

const isWord = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);

/**
 * What findKeys must report, from the rules' key literals by plain string search over the bytes
 * (one character per byte): every occurrence of a key that lies in [from, end) (a `\b` key only
 * where no word character precedes it; a caseless rule's keys in any case of their ASCII letters),
 * and each marker look-alike.
 */
function expected(text: string, from: number, end: number): string[] {
  const latin = Array.from(enc.encode(text), (b) => String.fromCharCode(b)).join('');
  const folded = latin.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const out = new Set<string>();
  const search = (key: string, rule: number, wordStart: boolean, caseless: boolean): void => {
    const hay = caseless ? folded : latin;
    const needle = caseless ? key.toLowerCase() : key;
    for (let at = hay.indexOf(needle, from); at >= 0 && at + needle.length <= end; at = hay.indexOf(needle, at + 1)) {
      if (!wordStart || !isWord(latin[at - 1])) out.add(`${rule}@${at}`);
    }
  };
  RULES.forEach((r, i) => {
    for (const k of r.keys) search(k.startsWith('\\b') ? k.slice(2) : k, i, k.startsWith('\\b'), r.caseless === true);
  });
  for (const look of ['\u27e6', '\u301a']) search(Array.from(enc.encode(look), (b) => String.fromCharCode(b)).join(''), LOOKALIKE, false, false);
  return [...out].sort();
}

describe('findKeys (the one pass over the bytes)', () => {
  const pieces = [...(SECRETS as { line: string }[]).map((s) => s.line), ...(BENIGN as string[]), '\u27e6', '\u301a', ' ', '\n', '-', 'A', 'K', '_', '@', 'x', 'o', 'AUTHORIZATION', 'Pass', 'wOrD', 'ToKeN', 'api', 'éToken', 'Ñ'];

  it('reports exactly the key occurrences that a string search finds, for any text and range', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 60 }), fc.nat(300), fc.nat(300), (parts, a, b) => {
        const text = parts.join('');
        const bytes = enc.encode(text);
        const from = Math.min(a, bytes.length);
        const end = Math.max(from, bytes.length - Math.min(b, bytes.length));
        // Keys starting before `from` may be reported when their anchor is at or after it.
        expect(found(bytes, from, end).filter((h) => Number(h.split('@')[1]) >= from)).toEqual(expected(text, from, end));
      }),
      { numRuns: 300 },
    );
  });

  it('finds keys at every alignment and at the edges of the range', () => {
    for (let pad = 0; pad < 40; pad++) {
      const text = `${'x'.repeat(pad)}ghp_${'a'.repeat(pad)} AKIAZ7S3JAIQUVVPU5VE@`;
      const bytes = enc.encode(text);
      expect(found(bytes, 0, bytes.length)).toEqual(expected(text, 0, bytes.length));
      expect(found(bytes, 0, bytes.length).length).toBeGreaterThanOrEqual(3);
      expect(found(bytes, pad, pad + 4)).toEqual(expected(text, pad, pad + 4));
    }
  });
});
