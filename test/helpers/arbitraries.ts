/**
 * fast-check generators of hostile terminal byte streams, shared by the property, linearity and
 * xterm differential suites, plus a seeded PRNG for building large deterministic inputs.
 */
import fc from 'fast-check';
import { bytes, utf8 } from './record';

/** Bytes that sit on the grammar's edges, weighted up in random streams. */
export const EDGE_BYTES = [
  0x1b, 0x07, 0x5c, 0x5b, 0x5d, 0x50, 0x58, 0x5e, 0x5f, 0x3b, 0x3a, 0x3f, 0x20, 0x24,
  0x30, 0x31, 0x32, 0x35, 0x38, 0x39, 0x6d, 0x71, 0x41, 0x4a,
  0x9b, 0x9c, 0x9d, 0x90, 0x98, 0x9e, 0x9f, 0x84, 0x85,
  0xc2, 0xe2, 0xe6, 0xf0, 0xf3, 0xed, 0xc0, 0xff,
  0x18, 0x1a, 0x0d, 0x08, 0x0a, 0x09, 0x7f, 0x00,
];

/** Multi-byte tokens: sequence starts, terminators, text with 0x80-0x9F continuations, invisibles. */
export const TOKENS: Uint8Array[] = [
  bytes('\x1b['), bytes('\x1b]'), bytes('\x1b]8;;'), bytes('\x1b]52;c;'), bytes('\x1b]0;'), bytes('\x1bP'), bytes('\x1bP$q'),
  bytes('\x1b_'), bytes('\x1b^'), bytes('\x1bX'), bytes('\x1b\\'), bytes('\x1b[?1049h'), bytes('\x1b[38:2::1:2:3m'),
  bytes('\x1b(0'), bytes('\xc2\x9b'), bytes('\xc2\x9c'), bytes('\xc2\x9d'), bytes('\r\n'),
  utf8('本'), utf8('€'), utf8('🙂'), utf8('溛'), utf8('\u202e'), utf8('\u2066'), utf8('\u{e0041}'), utf8('\u0085'),
];

/** One byte, weighted toward the grammar's edges and UTF-8 continuation bytes. */
export const hostileByte: fc.Arbitrary<number> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...EDGE_BYTES) },
  { weight: 3, arbitrary: fc.integer({ min: 0x80, max: 0xbf }) },
  { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x00, max: 0xff }) },
);

/** A random hostile stream of up to `maxParts` bytes and tokens. */
export function hostileStream(maxParts = 160): fc.Arbitrary<Uint8Array> {
  return fc.array(
    fc.oneof(
      { weight: 5, arbitrary: hostileByte.map((b) => Uint8Array.of(b)) },
      { weight: 2, arbitrary: fc.constantFrom(...TOKENS) },
    ),
    { maxLength: maxParts },
  ).map((parts) => bytes(...parts));
}

/** Cut points for a stream (clamped to its length by splitAt). */
export const cutPoints: fc.Arbitrary<number[]> = fc.array(fc.nat({ max: 2000 }), { maxLength: 12 });

/** Small limits so that oversize paths are exercised. */
export const tinyLimits = fc.record({
  maxCsiParamBytes: fc.integer({ min: 0, max: 4 }),
  maxStringBytes: fc.integer({ min: 0, max: 6 }),
  maxEscIntermediates: fc.integer({ min: 0, max: 2 }),
});

/** Deterministic PRNG (mulberry32) for large inputs. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A large deterministic hostile stream of exactly `size` bytes. */
/**
 * {@link bigHostileStream} in parts of 4096 bytes that each end at rest: ESC \ and CAN end any
 * string or sequence in every terminal reading (tmux's DCS and ESC k strings included), RIS resets
 * the character sets, and a character after it ends any wait on a removed ZWJ. Random hostile bytes
 * otherwise rarely leave every reading at rest (a designation, an ESC k), and index builds that
 * splice at rest points on page boundaries (of 4096 bytes or a divisor) need some.
 */
export function restingHostileStream(size: number, seed = 1): Uint8Array {
  const rest = utf8('\x1b\\\x18\x1bc\u00e9\n');
  const every = 4096 - rest.length;
  const body = bigHostileStream(size, seed);
  const parts: Uint8Array[] = [];
  for (let k = 0; k < body.length; k += every) parts.push(body.subarray(k, k + every), rest);
  return bytes(...parts);
}

export function bigHostileStream(size: number, seed = 1): Uint8Array {
  const rnd = prng(seed);
  const out = new Uint8Array(size);
  let i = 0;
  while (i < size) {
    const r = rnd();
    if (r < 0.15) {
      const t = TOKENS[Math.floor(rnd() * TOKENS.length)];
      const n = Math.min(t.length, size - i);
      out.set(t.subarray(0, n), i);
      i += n;
    } else if (r < 0.55) {
      out[i++] = EDGE_BYTES[Math.floor(rnd() * EDGE_BYTES.length)];
    } else if (r < 0.7) {
      out[i++] = 0x80 + Math.floor(rnd() * 0x40);
    } else {
      out[i++] = 0x20 + Math.floor(rnd() * 0x5f);
    }
  }
  return out;
}
