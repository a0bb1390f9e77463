// `airlock inspect` writes an annotation line shaped like one before it (BEL, BS, BEL, … every
// row alike) from a template of that shape with its offsets rewritten. That may not change a byte
// of the dump: the bulk output (a file or pipe) must equal the rendering on a terminal wide enough
// that nothing is cut, through the CLI, for repeated motifs with a byte changed here and there.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAirlock } from '../helpers/cli';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-inspect-repeats-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The bulk dump and the wide-terminal dump of `bytes`. */
async function bothWays(bytes: Uint8Array, width: number): Promise<[string, string]> {
  const file = join(dir, 'f.bin');
  writeFileSync(file, bytes);
  const args = ['inspect', file, '--width', String(width), '--color', 'never'];
  const bulk = await runAirlock(args);
  const wide = await runAirlock(args, { columns: 1_000_000 });
  expect(bulk.code).toBe(0);
  expect(wide.code).toBe(0);
  return [bulk.out.toString('utf8'), wide.out.toString('utf8')];
}

/** A motif of controls and text repeated, with a byte changed here and there (a row that differs). */
const motifs = fc.record({
  motif: fc.array(fc.constantFrom(0x07, 0x08, 0x00, 0x1b, 0x5b, 0x6d, 0x41, 0x9b, 0xe2, 0x80, 0x8b, 0x20), { minLength: 1, maxLength: 12 }),
  repeats: fc.integer({ min: 1, max: 300 }),
  changes: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
  width: fc.constantFrom(16, 16, 8, 7, 4),
});

describe('inspect: repeated rows', () => {
  it('prints the same bytes whether lines are copied from the row before or built anew', async () => {
    await fc.assert(fc.asyncProperty(motifs, async ({ motif, repeats, changes, width }) => {
      const bytes = new Uint8Array(motif.length * repeats);
      for (let i = 0; i < bytes.length; i++) bytes[i] = motif[i % motif.length];
      for (const [at, b] of changes) bytes[at % bytes.length] = b;
      const [bulk, wide] = await bothWays(bytes, width);
      expect(bulk).toBe(wide);
    }), { numRuns: 80, seed: 20261201 });
  });

  it('copies lines across output flushes and over long stretches of changing shapes', async () => {
    // 64 KiB of BEL/BS rows (2 MB of dump, flushed every 1 MiB), then rows whose shapes keep
    // changing (a pause in keeping shapes), then BEL/BS rows again, with a lone NUL among them.
    const parts: Buffer[] = [Buffer.from('\x07\x08'.repeat(32 * 1024), 'latin1')];
    for (let k = 0; k < 40; k++) parts.push(Buffer.from(`\x07${'x'.repeat(k % 7)}\x08\x1b[${k}m${'y'.repeat(k % 5)}\x07`, 'latin1'));
    parts.push(Buffer.from('\x07\x08'.repeat(4 * 1024), 'latin1'), Buffer.from([0]), Buffer.from('\x07\x08'.repeat(4 * 1024), 'latin1'));
    const [bulk, wide] = await bothWays(Buffer.concat(parts), 16);
    expect(bulk).toBe(wide);
    expect(bulk.split('\n').filter((l) => l.includes('8x BEL bell  (every 2 B to ')).length).toBeGreaterThan(4000);
  });
});
