// The dump writes rows that take no span in stretches, straight (no colour, nothing cut), into
// an output that is written out and reused as it fills; on a terminal every row's width is
// counted and a row too wide is laid out piece by piece. On a terminal wide enough that nothing
// is cut, the two must be the same bytes.
import { describe, expect, it } from 'vitest';
import { runAirlock } from '../helpers/cli';

/** ~1.5 MiB of log text, colour, controls, UTF-8 (shown and as notation) and invalid bytes. */
function mixed(): Uint8Array {
  const parts = ['compiling src/parser.ts ', '\x1b[32m✓\x1b[0m ok ', 'résumé 本日 ', '\x07\x08', '\u200b', '🙂 ', '\x1b]8;;https://x.test\x07link\x1b]8;;\x07 ', '\n'];
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let k = 0; size < 1.5 * 2 ** 20; k++) {
    const b = enc.encode(parts[(k * 7 + (k >> 3)) % parts.length]);
    chunks.push(b);
    size += b.length;
    if (k % 97 === 0) {
      chunks.push(Uint8Array.of(0x9b, 0xc3, 0xe2, 0x82));
      size += 4;
    }
  }
  const out = new Uint8Array(size);
  let p = 0;
  for (const c of chunks) {
    out.set(c, p);
    p += c.length;
  }
  return out;
}

describe('inspect bulk dump', () => {
  it('equals the row-by-row terminal rendering for a large mixed input read as one chunk', async () => {
    const stdin = mixed();
    const args = ['inspect', '-', '--color', 'never'];
    const bulk = await runAirlock(args, { stdin });
    const wide = await runAirlock(args, { stdin, columns: 1_000_000 });
    expect(bulk.code).toBe(0);
    expect(wide.code).toBe(0);
    expect(bulk.out.length).toBeGreaterThan(8 * 2 ** 20);
    expect(bulk.out.equals(wide.out)).toBe(true);
  }, 120_000);
});
