// Inputs and layouts for `airlock inspect`'s dump (app/cli/inspect/dump.ts), and a run of the dump
// in memory as the command feeds it. The cases are fixed by a seed: test/fixtures/inspect-dump.json
// holds the SHA-256 of each case's dump as the build before this one (be8ac32, whose WebAssembly
// dump was held byte for byte to the text definition) wrote it.
import fc from 'fast-check';
import { ByteBuffer } from '../../app/cli/inspect/bytes-out';
import { Dump, type DumpLayout } from '../../app/cli/inspect/dump';
import { Sanitizer } from '../../shared/sanitize';

export interface DumpCase {
  bytes: Uint8Array;
  /** Bytes per sanitizer write (the command writes FEED). */
  feed: number;
  /** Output gathered before it is written out. */
  flushAt: number;
  offset: number;
  length: number;
  width: number;
  color: boolean;
  columns: number;
}

const enc = (s: string): number[] => Array.from(new TextEncoder().encode(s));

/**
 * Code points of scripts whose text is mostly characters: CJK ideographs, Hangul (lead ED),
 * Devanagari (lead E0), Cyrillic and Greek (2 bytes), Hebrew and Arabic (right-to-left: shown as
 * notation), combining marks (notation), emoji (lead F0), plane 16 (lead F4), with ASCII, spaces,
 * and other characters shown as notation (U+30FB, a look-alike; U+200B, invisible).
 */
const scriptCodePoint = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x4e00, max: 0x9fff }) },
  { weight: 2, arbitrary: fc.integer({ min: 0xac00, max: 0xd7a3 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x0900, max: 0x097f }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x0391, max: 0x04ff }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x05d0, max: 0x06ff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x0300, max: 0x036f }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x1f300, max: 0x1faff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x100000, max: 0x10fffd }) },
  { weight: 3, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.constantFrom(0x30fb, 0x200b, 0x0a, 0x09, 0x7c) },
);
const scriptText = fc.array(scriptCodePoint, { minLength: 1, maxLength: 48 }).map((cps) => enc(String.fromCodePoint(...cps)));
const NEAR_MISSES = [
  [0xe0, 0x9f, 0x80], [0xe0, 0xa0], [0xed, 0xa0, 0x80], [0xed, 0x9f, 0xbf], [0xf0, 0x8f, 0x80, 0x80], [0xf0, 0x90, 0x80],
  [0xf4, 0x90, 0x80, 0x80], [0xf4, 0x8f, 0xbf, 0xbf], [0xc0, 0x80], [0xc1, 0xbf], [0xf5, 0x80, 0x80, 0x80], [0x80, 0xbf],
  [0xe2, 0x82, 0xe2, 0x82, 0xac], [0xc2], [0xe4, 0xb8],
];

/** What a dump shows: text, controls, sequences and strings of every class, UTF-8 of every length and notation, invalid bytes. */
export const piece = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map(enc) },
  { weight: 2, arbitrary: fc.constantFrom('\\', '^', '<', '|', '\\^<|', ' ', '   ').map(enc) },
  { weight: 4, arbitrary: fc.array(fc.nat(255), { maxLength: 3 }).map((ps) => enc(`\x1b[${ps.join(';')}m`)) },
  {
    weight: 3,
    arbitrary: fc.constantFrom('\x1b[2K', '\r', '\x07', '\x08', '\x07\x08\x07\x08', '\x1b]8;;https://x.test\x07', '\x1b]0;title\x07',
      '\x1b(B', '\t', '\n', '\r\n', '\x1bP$qm\x1b\\', '\x1b_apc\x1b\\', '\x7f', '\x00', '\x1b[?25l', '\x1b[31\x07m').map(enc),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 600 }).map((n) => enc(`\x1b]2;${'x'.repeat(n)}\x07`)) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 80 }).map((n) => enc('\x07'.repeat(n))) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }).map((n) => enc('\x07\x08'.repeat(8 * n))) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }).map((n) => enc('='.repeat(16 * n))) },
  { weight: 2, arbitrary: fc.constantFrom('é', '本', '─', '🙂', '✓', '\u200b', '\u0085', '\u202e', '\u00b7', '\u0301', '\ufeff', '\u{e0041}', '\u{10ffff}').map(enc) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0x10ffff }).filter((cp) => cp < 0xd800 || cp > 0xdfff).map((cp) => enc(String.fromCodePoint(cp))) },
  { weight: 1, arbitrary: fc.constantFrom([0x9b, 0x33, 0x6d], [0xc3], [0xe2, 0x82], [0xff], [0x1b], [0x90, 0x71], [0xc2, 0x9b, 0x31, 0x6d], [0xf0, 0x9f]) },
  // Near misses of well-formed UTF-8 (Table 3-7's narrowed second bytes, overlongs, stray and
  // missing continuation bytes) among text in other scripts.
  { weight: 2, arbitrary: fc.tuple(scriptText, fc.constantFrom(...NEAR_MISSES), scriptText).map(([a, b, c]) => [...a, ...b, ...c]) },
  { weight: 3, arbitrary: scriptText },
  // A row's worth of controls, text and sequences repeated: rows and lines alike, as templates serve them.
  {
    weight: 2,
    arbitrary: fc.tuple(fc.array(fc.constantFrom(0x07, 0x08, 0x00, 0x7f, 0x20, 0x61, 0x3d, 0x1b, 0x5b, 0x6d, 0x7c, 0x0a), { minLength: 1, maxLength: 16 }), fc.integer({ min: 2, max: 12 }))
      .map(([unit, times]) => Array.from({ length: times }, () => unit).flat()),
  },
);

/** Any input, range, chunking, output size, row width, colour and terminal width. */
export const dumpCases: fc.Arbitrary<DumpCase> = fc.record({
  bytes: fc.array(piece, { maxLength: 300, size: 'max' }).map((ps) => Uint8Array.from(ps.flat())),
  feed: fc.constantFrom(1 << 15, 1 << 15, 4096, 777, 64, 1),
  flushAt: fc.constantFrom(1 << 20, 8192, 1500, 300),
  offset: fc.oneof(fc.constant(0), fc.constant(0), fc.nat(700)),
  length: fc.oneof(fc.constant(Infinity), fc.integer({ min: 1, max: 5000 })),
  width: fc.constantFrom(16, 16, 16, 8, 7, 24, 1, 64, 130),
  color: fc.boolean(),
  columns: fc.oneof(fc.constantFrom(Infinity, Infinity, 132, 80, 79, 78, 61, 60, 44), fc.integer({ min: 1, max: 140 })),
});

/** The seed and number of the cases whose dumps test/fixtures/inspect-dump.json records. */
export const RECORDED = { seed: 20261207, count: 300 };

/** Output gathered in memory, written out (appended to `parts`) every `flushAt` bytes as the command's is. */
class Collect extends ByteBuffer {
  readonly parts: Buffer[] = [];
  constructor(readonly flushAt: number) {
    super(flushAt + (64 << 10));
  }
  get full(): boolean {
    return this.p >= this.flushAt;
  }
  async flush(): Promise<void> {
    this.parts.push(Buffer.from(this.buf.subarray(0, this.p)));
    this.reset();
  }
}

/** The layout of a case. */
export function layoutOf(c: DumpCase): DumpLayout {
  return { offset: c.offset, windowEnd: c.offset + c.length, width: c.width, color: c.color, columns: c.columns };
}

/** The dump of a case, as `airlock inspect` writes it (without its header and summary). */
export async function dumpOf(c: DumpCase): Promise<Buffer> {
  const out = new Collect(c.flushAt);
  const dump = new Dump(out, layoutOf(c));
  const sanitizer = new Sanitizer({ spanLog: dump.spans, reuseOutputBuffer: true });
  dump.meanings = sanitizer;
  for (let i = 0; i < c.bytes.length; i += c.feed) {
    const chunk = c.bytes.subarray(i, i + c.feed);
    sanitizer.write(chunk);
    dump.append(chunk);
    await dump.advance(false);
  }
  sanitizer.end();
  await dump.advance(true);
  await out.flush();
  return Buffer.concat(out.parts);
}

/**
 * Inputs that reach each way the dump writes rows and lines (as the WebAssembly dump before it took them:
 * repeated rows and takes, cuts at every terminal width, text in other scripts across row edges,
 * near misses of characters shown before, a character at every range edge), in the layouts
 * that matter for each.
 */
export function scenarioCases(): DumpCase[] {
  const cases: DumpCase[] = [];
  const all = { feed: 1 << 15, flushAt: 1 << 20, offset: 0, length: Infinity, width: 16, color: false, columns: Infinity };
  const views = [{ color: false, columns: Infinity }, { color: true, columns: Infinity }, { color: true, columns: 80 }, { color: false, columns: 50 }];
  const row = (s: string): string => s.padEnd(16, '.').slice(0, 16);
  const repeated = [
    enc('\x07\x08'.repeat(40_000)),
    // A take of many groups, then takes of none or one between takes of its shape.
    enc(`${row('\x07\x08'.repeat(8))}${row('plain text')}${row('\x1b[0m one span')}${row('\x07\x08'.repeat(8))}${row('\x07')}`.repeat(300)),
    enc(`${'\x07\x08'.repeat(24)}${row('\x1b[1m\x1b[2m')}${'\x07\x08\x07'.repeat(16)}`.repeat(200)),
    enc(`${row('\x07\x08'.repeat(8))}${'\x00\x01\x02\x03\x04\x05\x06\x0e\x0f\x10\x11\x12\x13\x14\x15\x16'}`.repeat(300)),
    // Rows of the same bytes in a CSI's parameters and in an OSC's payload: alike but for their colour.
    enc(`\x1b[${'1;'.repeat(200)}m\x1b]2;x${'1;'.repeat(200)}\x07`.repeat(20)),
    enc('='.repeat(30_000)),
    enc(`${'\x07\x08'.repeat(3000)}x${'\x07\x08'.repeat(3000)}\x1b[31m${'\x07'.repeat(5000)}`),
    enc(`${'\x1b[0m'.repeat(4000)}${'\x07 '.repeat(4000)}`),
  ];
  for (const bytes of repeated) {
    for (const view of views) for (const flushAt of [1 << 20, 700]) cases.push({ ...all, ...view, flushAt, bytes: Uint8Array.from(bytes) });
  }
  // Rows of 128 bytes with an `at` line of many offsets between takes of a kept shape.
  const wide = enc(`${'\x07\x08'.repeat(16)}${'a'.repeat(96)}\x08a\x08a\x08a\x1b[0m${'\x07a\x07a\x07bb'.repeat(16)}\x07a\x07a\x07b`.repeat(50));
  for (const view of [{ color: false, columns: Infinity }, { color: true, columns: 200 }]) cases.push({ ...all, ...view, width: 128, bytes: Uint8Array.from(wide) });
  // Takes of one to three groups (single spans and runs) that recur.
  const takes = [
    '\x1b[0m\x1b[1m', '\x1b[0m\x1b[1m\x1b[2m', '\x1b[0m\x1b[31m', '\x1b[0m\x1b[31m\x1b[32m',
    '\x1b[0mab\x1b[31m', '\x1b[0mab\x1b[1m', '\x1b[0mab\x1b[1mc\x1b[2m', '\x07a\x1b[0mb\x1b[31m',
    '\x1b[0m\x1b[1mab\x1b[31m', '\x1b[0mab\x1b[0m\x1b[1m', '\x07a\x1b[0m\x1b[1mb\x07', '\x1b[0m',
    '\x1b[31m', '\x07', '\x07\x08', '\x1b[0mabcdef\x1b[1m',
  ];
  for (const bytes of [enc(takes.map(row).join('').repeat(40)), enc(takes.map(row).reverse().join('').repeat(40)), enc(takes.flatMap((a) => takes.map((b) => row(a) + row(b))).join(''))]) {
    for (const view of [...views.slice(0, 3), { color: false, columns: 44 }]) for (const flushAt of [1 << 20, 300]) cases.push({ ...all, ...view, flushAt, bytes: Uint8Array.from(bytes) });
  }
  // Rows of 16 cells of every width (characters, notation, invalid bytes, C1), twice, at every terminal width.
  const rows = [
    [0xff, 0xfe, 0xc0, 0xc1, 0xf5, 0xff, 0xfe, 0xc0, 0xc1, 0xf5, 0xff, 0xfe, 0xc0, 0xc1, 0xf5, 0xff],
    [0x85, 0x9b, 0x90, 0x9d, 0x61, 0x85, 0x9b, 0x90, 0x9d, 0x62, 0x85, 0x9b, 0x90, 0x9d, 0x63, 0x85],
    [...enc('\u200b\u202e\ufeff\u0301'), ...enc('ab')],
    [...enc('本🙂é'), ...enc('x\u200by')],
    [0xe2, 0x82, 0x41, 0xf0, 0x9f, 0x42, 0xe2, 0x82, 0x43, 0xf0, 0x9f, 0x44, 0xe2, 0x82, 0x45, 0x46],
    [...enc('\x07\\^<|'), ...enc('✓─'), 0xff, 0xc3],
  ];
  const once = rows.flatMap((r) => [...r.slice(0, 16), ...Array(16 - Math.min(16, r.length)).fill(0x2e)]);
  const cells = Uint8Array.from([...once, ...once, ...Array(16).fill(0x2e)]);
  for (let columns = 61; columns <= 140; columns++) for (const color of [false, true]) cases.push({ ...all, bytes: cells, color, columns });
  // Text in other scripts: thousands of code points, each at every position of a row, in every chunking.
  const cps: number[] = [];
  for (let k = 0; k < 6000; k++) {
    cps.push(k % 7 === 0 ? 0x61 + (k % 26) : k % 5 === 0 ? 0xac00 + k * 3 : k % 11 === 0 ? 0x0905 + (k % 40) : k % 17 === 0 ? 0x0621 + (k % 40) : k % 19 === 0 ? 0xf0000 + k : 0x4e00 + ((k * 7919) % 20000));
    if (k % 13 === 0) cps.push(k % 2 ? 0x20 : 0x0a);
  }
  const text = enc(String.fromCodePoint(...cps));
  for (const shift of [0, 1, 2, 5]) {
    const bytes = Uint8Array.from([...enc('x'.repeat(shift)), ...text, ...enc('\u{1f642}\u{10fffd}'), ...text.slice(0, 4000)]);
    for (const [feed, view] of [[1 << 15, { color: false, columns: Infinity }], [4096, { color: true, columns: 80 }], [97, { color: true, columns: 61 }], [1 << 15, { color: false, columns: 79 }]] as const) {
      cases.push({ ...all, ...view, feed, bytes });
    }
  }
  // Near misses of characters shown before (overlong forms, a last byte replaced by ASCII), at every position of a row.
  const misses = [[0xe0, 0x83, 0xa9], [0xf0, 0x86, 0x9c, 0xac], [0xe6, 0x9c, 0x6c], [0xf0, 0x8d, 0x84, 0x9e], [0xe0, 0x98, 0xa7], [0xf0, 0x80, 0x98, 0xa7]];
  for (const miss of misses) {
    for (let at = 0; at < 16; at++) {
      const bytes = Uint8Array.from([...enc('本é\u{1d11e}\u0627'), ...enc('x'.repeat(16 + at)), ...miss, ...enc('y'.repeat(40))]);
      for (const view of [{ color: false, columns: Infinity }, { color: true, columns: 80 }]) cases.push({ ...all, ...view, bytes });
    }
  }
  // A character across a row edge, at a range edge and at the end of input.
  const edges = Uint8Array.from([...enc('abcdefghijklmno'), ...enc('本'), ...enc('xyz\u202e'), 0xe2, 0x82]);
  for (let offset = 0; offset < 20; offset++) {
    for (const length of [Infinity, 1, 2, 3, 5, 16, 17]) {
      for (const view of [{ color: false, columns: Infinity }, { color: true, columns: 80 }]) cases.push({ ...all, ...view, bytes: edges, feed: 7, offset, length });
    }
  }
  return cases;
}
