import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonSyntaxError } from '../../app/json/events';
import { LongArray, LongString, projectJson } from '../../app/json/project';

const ALL = { maxString: Number.MAX_SAFE_INTEGER, maxItems: Number.MAX_SAFE_INTEGER };

/** The bytes of `text` cut at the given offsets. */
function chunks(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.subarray(prev, c));
    prev = c;
  }
  return out;
}

/** What the projection should hold for `v`. */
function expected(v: unknown, maxString: number, maxItems: number): unknown {
  if (typeof v === 'string') return v.length > maxString ? new LongString(v.slice(0, maxString), v.length, v.split('\n').length - 1, v.endsWith('\n')) : v;
  if (Array.isArray(v)) {
    const items = v.slice(0, maxItems).map((x) => expected(x, maxString, maxItems));
    return v.length > maxItems ? new LongArray(items, v.length) : items;
  }
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expected(x, maxString, maxItems)]));
  return v;
}

describe('JsonReader and JsonProjection', () => {
  it('read any JSON document as JSON.parse does, however the bytes are cut', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.nat(), { maxLength: 12 }), fc.boolean(), (v, cuts, pretty) => {
        const text = JSON.stringify(v, null, pretty ? 2 : undefined);
        const bytes = new TextEncoder().encode(text);
        expect(projectJson(chunks(bytes, cuts), ALL)).toEqual(JSON.parse(text));
      }),
      { numRuns: 400 },
    );
  });

  it('keep long strings and arrays as their head, length and line count', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 4 }), fc.array(fc.nat(), { maxLength: 6 }), (v, maxString, maxItems, cuts) => {
        const bytes = new TextEncoder().encode(JSON.stringify(v));
        expect(projectJson(chunks(bytes, cuts), { maxString, maxItems })).toEqual(expected(JSON.parse(JSON.stringify(v)), maxString, maxItems));
      }),
      { numRuns: 400 },
    );
  });

  it('refuses what JSON.parse refuses', () => {
    const bad = ['', '{', '[1,]', '{"a":1,}', '{"a" 1}', '[1 2]', '"\u0001"', '"\\x"', '"\\u12g4"', '01', '1.', 'tru', 'nul', '[]]', '{}{}', '"abc', '[', '{"a":}', '{,}', '[,1]', '{"a":1 "b":2}'];
    for (const text of bad) {
      expect(() => JSON.parse(text), text).toThrow();
      expect(() => projectJson([new TextEncoder().encode(text)], ALL), text).toThrow(JsonSyntaxError);
    }
    expect(() => projectJson([Uint8Array.of(0x22, 0xff, 0x22)], ALL)).toThrow(JsonSyntaxError);
    expect(() => projectJson([new TextEncoder().encode('['.repeat(100) + ']'.repeat(100))], ALL)).toThrow(/nested deeper/);
  });

  it('streams selected strings instead of keeping them', () => {
    const pieces: string[] = [];
    const text = JSON.stringify({ a: { b: 'x'.repeat(50_000) + '\n€' }, c: 'keep' });
    const v = projectJson(chunks(new TextEncoder().encode(text), [7, 999, 30_001]), {
      maxString: 100,
      maxItems: 10,
      stream: (p) => p.join('.') === 'a.b',
      onText: (_p, t) => pieces.push(t),
    }) as { a: { b: LongString }; c: string };
    expect(pieces.join('')).toBe('x'.repeat(50_000) + '\n€');
    expect(v.a.b).toEqual(new LongString('', 50_002, 1, false));
    expect(v.c).toBe('keep');
  });
});
