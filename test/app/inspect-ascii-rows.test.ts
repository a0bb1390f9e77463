// A dump to a terminal or in colour builds rows as text (coloured per span, cut to the terminal's
// width). A row of printable ASCII that no span colours and that fits is written as bytes instead,
// as in the bulk case. The text rows are the definition: for any input, range, chunking, terminal
// width and colour, the dump with ASCII rows must be byte for byte the dump without them.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ByteBuffer, type ByteOutput } from '../../app/cli/inspect/bytes-out';
import { Dump } from '../../app/cli/inspect/dump';
import { SpanQueue } from '../../app/cli/inspect/span-queue';
import { wrapLine } from '../../app/node/fit';
import { HexRowWriter } from '../../shared/hex/row-bytes';
import { Sanitizer } from '../../shared/sanitize';

/** Output gathered in memory; written out (appended to `parts`) at `flushAt` like ByteOutput. */
class Collect extends ByteBuffer {
  readonly parts: Buffer[] = [];
  constructor(readonly flushAt: number) {
    super(flushAt + 4096);
  }
  get full(): boolean {
    return this.p >= this.flushAt;
  }
  async flush(): Promise<void> {
    this.parts.push(Buffer.from(this.buf.subarray(0, this.p)));
    this.reset();
  }
}

interface Case {
  bytes: Uint8Array;
  feed: number;
  offset: number;
  length: number;
  width: number;
  color: boolean;
  columns: number;
}

/** The dump of a case as `airlock inspect` runs it on a terminal (or in colour), with or without ASCII rows. */
async function dump({ bytes, feed, offset, length, width, color, columns }: Case, asciiRows: boolean): Promise<string> {
  const windowEnd = offset + length;
  const queue = new SpanQueue(offset, color ? 0 : width, offset, windowEnd);
  const sanitizer = new Sanitizer({ onSpan: queue.add, reuseOutputBuffer: true });
  const out = new Collect(4096);
  const own = (line: string, prefix: string): string[] => wrapLine(line, columns, `${prefix}+ `);
  const d = new Dump(queue, out as unknown as ByteOutput, { offset, windowEnd, width, color, columns, own, asciiRows });
  for (let i = 0; i < bytes.length; i += feed) {
    const chunk = bytes.subarray(i, i + feed);
    sanitizer.write(chunk);
    d.append(chunk);
    await d.advance(false);
  }
  sanitizer.end();
  await d.advance(true);
  await out.flush();
  return Buffer.concat(out.parts).toString('latin1');
}

const enc = (s: string): number[] => Array.from(new TextEncoder().encode(s));
// Mostly plain text (rows the bytes path takes), with what sends a row back to text: spans
// (coloured, and long ones reaching over later rows), controls, the escaped `\ ^ < |`, UTF-8
// across a row edge, invalid bytes.
const piece = fc.oneof(
  { weight: 10, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 8, maxLength: 120 }).map(enc) },
  { weight: 2, arbitrary: fc.constantFrom('\\', '^', '<', '|', '\\^<|').map(enc) },
  { weight: 2, arbitrary: fc.array(fc.nat(255), { maxLength: 3 }).map((ps) => enc(`\x1b[${ps.join(';')}m`)) },
  { weight: 2, arbitrary: fc.constantFrom('\x1b[2K', '\r', '\x07', '\x08', '\x1b]8;;https://x.test\x07', '\t', '\n', '\r\n').map(enc) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 300 }).map((n) => enc(`\x1b]2;${'x'.repeat(n)}\x07`)) },
  { weight: 1, arbitrary: fc.constantFrom('é', '本', '🙂', '\u200b', '\u202e').map(enc) },
  { weight: 1, arbitrary: fc.constantFrom([0x9b, 0x33, 0x6d], [0xc3], [0xe2, 0x82], [0xff], [0x1b]) },
);
const cases: fc.Arbitrary<Case> = fc.record({
  bytes: fc.array(piece, { maxLength: 200 }).map((ps) => Uint8Array.from(ps.flat())),
  feed: fc.constantFrom(1 << 15, 4096, 777, 64),
  offset: fc.oneof(fc.constant(0), fc.constant(0), fc.nat(600)),
  length: fc.oneof(fc.constant(Infinity), fc.integer({ min: 1, max: 4000 })),
  width: fc.constantFrom(16, 16, 8, 7, 24),
  color: fc.boolean(),
  columns: fc.constantFrom(Infinity, 132, 80, 79, 78, 77, 60, 44),
});

afterEach(() => vi.restoreAllMocks());

describe('inspect on a terminal or in colour: ASCII rows as bytes', () => {
  it('writes the bytes the text rows write, for any input, range, chunking, width and colour', async () => {
    // Rows written as bytes over all runs: the property must exercise that path.
    let byteRows = 0;
    const writeRow = HexRowWriter.prototype.writeRow;
    vi.spyOn(HexRowWriter.prototype, 'writeRow').mockImplementation(function (this: HexRowWriter, ...args: Parameters<HexRowWriter['writeRow']>) {
      byteRows++;
      return writeRow.apply(this, args);
    });
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        if (!c.color && c.columns === Infinity) return; // the bulk case, not this path
        expect(await dump(c, true)).toBe(await dump(c, false));
      }),
      { numRuns: 300, seed: 20261202 },
    );
    expect(byteRows).toBeGreaterThan(400);
  }, 120_000);

  it('keeps a row of plain text that is one column too wide for the terminal as text, cut', async () => {
    // 16 bytes of plain text: 78 columns; with one `|` (shown `\|`) 79.
    const bytes = Uint8Array.from(enc('abcdefghijklmno|'));
    const c = { bytes, feed: 1 << 15, offset: 0, length: Infinity, width: 16, color: false };
    expect(await dump({ ...c, columns: 79 }, true)).toBe(await dump({ ...c, columns: 79 }, false));
    const cut = await dump({ ...c, columns: 78 }, true);
    expect(cut).toBe(await dump({ ...c, columns: 78 }, false));
    expect(cut).toMatch(/\n {8}\+ /);
  });
});
