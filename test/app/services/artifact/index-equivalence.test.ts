// The index is the Sanitizer's own output, column by column: spans, text, offset map; page edges
// change nothing; checkpoints let a fresh Parser resume any page exactly.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Parser, NoopSink, SpanClass } from '../../../../shared/parser';
import { sanitize } from '../../../../shared/sanitize';
import { hostileStream } from '../../../helpers/arbitraries';
import { CHECKPOINT_FIELDS, MAP_RECORD } from '../../../../app/services/artifact/format';
import type { ArtifactServiceOptions } from '../../../../app/services/artifact';
import { fixture as baseFixture, indexed, readColumn, type Fixture } from './helpers';

type Span = [number, number, number, string, number, number];

function direct(bytes: Uint8Array, cr: 'newline' | 'overwrite' = 'newline') {
  const spans: Span[] = [];
  const r = sanitize(bytes, { mapOffsets: true, cr, hooks: { onSpan: (cls, off, len, meaning, flags, code) => spans.push([cls, off, len, meaning, flags, code]) } });
  return { ...r, spans };
}

async function check(f: Fixture, bytes: Uint8Array, cr: 'newline' | 'overwrite' = 'newline'): Promise<void> {
  const want = direct(bytes, cr);
  const a = await indexed(f, bytes);
  const { ref, sha } = a;
  const dir = join(f.vault.root, 'index', sha);
  // Text: byte for byte.
  expect(await readColumn(f, a, 'text.bin')).toEqual(Buffer.from(want.text));
  // Spans: all of them, in the parser's order (index), with meanings and codes.
  const got = await f.service.getSpans(ref, 0, Math.max(1, bytes.length));
  const byIndex = [...got].sort((a, b) => a.index - b.index);
  // Codes are span values: main hands them out for a grant's range only (here the whole artifact).
  const codes = new Map((await f.service.spanValues(ref, 0, Math.max(1, bytes.length), [0, bytes.length])).map((v) => [v.index, v.code]));
  expect(byIndex.map((s) => [s.cls, s.offset, s.length, s.meaning, s.flags, codes.get(s.index)])).toEqual(want.spans);
  expect(got.some((s) => 'code' in s)).toBe(false);
  expect(got.map((s) => s.offset)).toEqual([...got.map((s) => s.offset)].sort((a, b) => a - b));
  // Map: every text byte maps to the same raw byte.
  const map = await readColumn(f, a, 'map.bin');
  const segs = map.length / MAP_RECORD;
  const starts: number[] = [];
  for (let i = 0; i < segs; i++) starts.push(map.readDoubleLE(i * MAP_RECORD));
  for (let t = 0; t < want.text.length; t++) {
    let i = starts.length - 1;
    while (i > 0 && starts[i] > t) i--;
    const at = i * MAP_RECORD;
    const raw = map.readDoubleLE(at + 16) > 0 ? map.readDoubleLE(at + 8) + (t - map.readDoubleLE(at)) : map.readDoubleLE(at + 8);
    expect(raw).toBe(want.map!.textToRaw(t));
  }
  // Checkpoints: a fresh Parser from `resume` reports exactly the spans from `first span` on.
  const cps = readFileSync(join(dir, 'checkpoints.bin'));
  for (let c = 0; c < cps.length / (CHECKPOINT_FIELDS * 8); c++) {
    const base = c * CHECKPOINT_FIELDS * 8;
    const boundary = cps.readDoubleLE(base);
    const lowerBound = cps.readDoubleLE(base + 8);
    const resume = cps.readDoubleLE(base + 16);
    const firstSpan = cps.readDoubleLE(base + 48);
    // Every span before the lower bound ended by the boundary (span queries start their search there).
    for (let i = 0; i < lowerBound; i++) expect(want.spans[i][1] + want.spans[i][2]).toBeLessThanOrEqual(boundary);
    expect(resume).toBeGreaterThanOrEqual(boundary);
    const spans: Span[] = [];
    const sink = new (class extends NoopSink {
      override span(cls: SpanClass, off: number, len: number, meaning: string, flags: number, code: number): void {
        spans.push([cls, off + resume, len, meaning, flags, code]);
      }
    })();
    const p = new Parser(sink);
    p.feed(bytes.subarray(resume));
    p.end();
    const expected = want.spans.filter((_, i) => i >= firstSpan);
    // Same spans from the checkpoint on.
    expect(spans).toEqual(expected);
  }
}

describe.each([['pages replayed', false], ['every page stored', true]] as const)('span index (%s) equals a direct Sanitizer run', (_kind, storeAllPages) => {
  const fixture = (o: Partial<ArtifactServiceOptions> = {}): Promise<Fixture> => baseFixture({ ...o, storeAllPages });
  let small: Fixture;
  beforeAll(async () => {
    small = await fixture({ pageBytes: 7 });
  });
  afterAll(() => small.cleanup());

  it('handles the empty artifact and text-free artifacts', async () => {
    const f = await fixture({ pageBytes: 3 });
    try {
      const { ref } = await indexed(f, new Uint8Array(0));
      expect((await f.service.getTextLines(ref, 0, 10)).totalLines).toBe(0);
      await check(f, Buffer.from('\x1b[31m\x1b]0;t\x07\x07\x07'));
      const { ref: r2 } = await indexed(f, Buffer.from('\x1b[31m\x1b[0m'));
      const page = await f.service.getTextLines(r2, 0, 5);
      expect(page.totalLines).toBe(1);
      expect(page.lines[0].pieces.map((p) => p.t)).toEqual(['chip', 'chip']);
    } finally {
      await f.cleanup();
    }
  });

  it('matches on hostile corpora at random page sizes (spans crossing page edges are exact)', async () => {
    await fc.assert(
      fc.asyncProperty(hostileStream(120), fc.integer({ min: 1, max: 64 }), async (bytes, page) => {
        const f = await fixture({ pageBytes: page });
        try {
          await check(f, bytes);
        } finally {
          await f.cleanup();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('matches in overwrite mode', async () => {
    await fc.assert(
      fc.asyncProperty(hostileStream(80), fc.integer({ min: 1, max: 32 }), async (bytes, page) => {
        const f = await fixture({ pageBytes: page, sanitizerFor: async () => ({ cr: 'overwrite', limits: { maxCsiParamBytes: 256, maxStringBytes: 65536, maxEscIntermediates: 8 } }) });
        try {
          await check(f, bytes, 'overwrite');
        } finally {
          await f.cleanup();
        }
      }),
      { numRuns: 25 },
    );
  });

  it('resumes only where both readings are in ground (a stretch opened inside a CSI, page size 1)', async () => {
    const f = await fixture({ pageBytes: 1 });
    try {
      await check(f, Uint8Array.from([27, 91, 128, 95]));
      await check(f, Uint8Array.from([27, 91, 128, 32]));
      await check(f, Buffer.from('ok \x1b]52;c;\x9c hidden\x07 z \x1b[\x9d1m', 'latin1'));
      await check(f, Buffer.from('1\ufe0f\u20e3 😀\u200d💻 本\u{e0100} \u0628\u200c\u0628', 'utf8'));
    } finally {
      await f.cleanup();
    }
  });

  it('finds text withheld inside a sequence in every range (reported before the sequence, also when the input ends in it)', async () => {
    // ESC _ opens an APC in the UTF-8 reading; 0x9B is a CSI in the 8-bit one, so the TAB after it
    // is text to one reading only. It is reported before the CSI that holds it, which a scan in
    // report order must read past, as it reads past a C0 control executed inside a CSI.
    const inputs = [[27, 95, 155, 9], [27, 95, 155, 9, 0x6d], [27, 95, 155, 9, 0x41, 0x6d, 0x41], [0x41, 27, 95, 155, 0x41, 9, 0x42, 0x6d, 0x43, 27, 95, 155, 9]];
    for (const page of [1, 2, 3, 64]) {
      const f = await fixture({ pageBytes: page });
      try {
        for (const input of inputs) {
          const bytes = Uint8Array.from(input);
          await check(f, bytes);
          const want = direct(bytes).spans;
          const { ref } = await indexed(f, bytes);
          for (let a = 0; a < bytes.length; a++) {
            for (let b = a + 1; b <= bytes.length; b++) {
              const got = (await f.service.getSpans(ref, a, b - a)).map((s) => [s.cls, s.offset, s.length]).sort();
              expect(got, `[${input}] page ${page} [${a}, ${b})`).toEqual(want.filter((s) => s[1] < b && s[1] + s[2] > a).map((s) => [s[0], s[1], s[2]]).sort());
            }
            const next = await f.service.findSpan(ref, a, 1, { cls: SpanClass.Withheld });
            expect(next?.offset ?? null, `[${input}] page ${page} next from ${a}`).toBe(want.filter((s) => s[0] === SpanClass.Withheld && s[1] >= a).map((s) => s[1]).sort((x, y) => x - y)[0] ?? null);
            const prev = await f.service.findSpan(ref, a + 1, -1, {});
            expect(prev?.offset ?? null, `[${input}] page ${page} before ${a + 1}`).toBe(Math.max(-1, ...want.filter((s) => s[1] < a + 1).map((s) => s[1])) === -1 ? null : Math.max(...want.filter((s) => s[1] < a + 1).map((s) => s[1])));
          }
        }
      } finally {
        await f.cleanup();
      }
    }
  });

  it('splits a UTF-8 character and an OSC across page edges', async () => {
    await check(small, Buffer.from('ab€€本\x1b]52;c;QUFB\x1b\\z\x1b[1;31mX\x1b', 'utf8'));
  });
});
