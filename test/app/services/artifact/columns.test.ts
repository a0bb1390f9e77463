// ColumnWriter: the block sums a reader checks from offset 0 in BLOCK_BYTES blocks must match
// the file for any mix of record sizes. Before the fix, 56-byte checkpoint records (which do not
// divide the 768 KiB buffer) flushed a partial block mid-file: an index of more than ~14,000 pages
// (a 14 GiB artifact at 1 MiB pages) failed its own checksums at open.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BUFFER_BYTES, ColumnWriter } from '../../../../app/services/artifact/columns';
import { BLOCK_BYTES, CHECKPOINT_RECORD } from '../../../../app/services/artifact/format';
import { SEARCH_CHUNK } from '../../../../app/services/artifact/search';
import { fixture, indexed } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'airlock-columns-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sumsOf(bytes: Buffer): number[] {
  const out: number[] = [];
  for (let b = 0; b < bytes.length; b += BLOCK_BYTES) out.push(crc32(bytes.subarray(b, Math.min(bytes.length, b + BLOCK_BYTES))));
  return out;
}

describe('ColumnWriter', () => {
  it('sums every BLOCK_BYTES block from offset 0, whatever the record size', () => {
    expect(BUFFER_BYTES % CHECKPOINT_RECORD).not.toBe(0); // the case that broke
    for (const record of [CHECKPOINT_RECORD, 8, 24, 40]) {
      const path = join(dir, `r${record}.bin`);
      const w = new ColumnWriter(path);
      const count = Math.ceil((3 * BUFFER_BYTES) / record) + 7;
      for (let i = 0; i < count; i++) {
        const at = w.reserve(record) / 8;
        for (let k = 0; k < record / 8; k++) w.f64[at + k] = i * 1000 + k;
      }
      const { bytes, sums } = w.close();
      const file = readFileSync(path);
      expect(bytes).toBe(count * record);
      expect(file.length).toBe(bytes);
      expect(sums).toEqual(sumsOf(file));
      const f64 = new Float64Array(file.buffer, file.byteOffset, file.length / 8);
      expect(f64[(count - 1) * (record / 8)]).toBe((count - 1) * 1000);
    }
  });

  it('mixes raw writes and records', () => {
    const path = join(dir, 'mixed.bin');
    const w = new ColumnWriter(path);
    const chunk = Buffer.alloc(100_003, 0x61);
    for (let i = 0; i < 20; i++) {
      w.write(chunk);
      const at = w.reserve(8);
      w.u8.fill(i, at, at + 8);
    }
    const { sums } = w.close();
    expect(sums).toEqual(sumsOf(readFileSync(path)));
  });

  it('an index with more checkpoints than fit one buffer opens and answers', async () => {
    const f = await fixture({ pageBytes: 64 });
    try {
      const raw = Buffer.from(`head\n${'x'.repeat(SEARCH_CHUNK)}\nend`);
      const { ref } = await indexed(f, raw);
      expect((await f.service.searchText(ref, 'end', {})).hits).toEqual([raw.length - 3]);
    } finally {
      await f.cleanup();
    }
  });
});
