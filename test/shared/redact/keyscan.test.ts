import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findKeys, findKeysJs } from '../../../shared/redact/scan';
// @ts-expect-error -- a plain .mjs fixture
import { BENIGN, SECRETS } from '../../fixtures/secrets/credentials.mjs';

const enc = new TextEncoder();
const hits = (f: typeof findKeys, b: Uint8Array, from: number, end: number): number[] => {
  const out: number[] = [];
  f(b, from, end, (rule, start) => out.push(rule, start));
  return out;
};

describe('SIMD key scan', () => {
  it('finds exactly what the JavaScript definition finds (random text with keys, every offset and length)', () => {
    const pieces = [...(SECRETS as { line: string }[]).map((s) => s.line), ...(BENIGN as string[]), '\u27e6', '\u301a', ' ', '\n', 'é', '-', 'A', '_', '@'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 60 }), fc.nat(300), fc.nat(300), (parts, a, b) => {
        const bytes = enc.encode(parts.join(''));
        const from = Math.min(a, bytes.length);
        const end = Math.max(from, bytes.length - Math.min(b, bytes.length));
        expect(hits(findKeys, bytes, from, end)).toEqual(hits(findKeysJs, bytes, from, end));
      }),
      { numRuns: 300 },
    );
  });

  it('finds keys at the edges of the scanned range and of a 16-byte block', () => {
    for (let pad = 0; pad < 40; pad++) {
      const bytes = enc.encode(`${'x'.repeat(pad)}ghp_${'a'.repeat(300)} AKIAZ7S3JAIQUVVPU5VE@`);
      expect(hits(findKeys, bytes, 0, bytes.length)).toEqual(hits(findKeysJs, bytes, 0, bytes.length));
      expect(hits(findKeys, bytes, 0, bytes.length).length).toBeGreaterThanOrEqual(6);
    }
  });

  it('the committed module is what its source builds to', () => {
    const r = spawnSync(process.execPath, ['scripts/build-redact-wasm.mjs', '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
