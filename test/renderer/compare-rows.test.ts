// Compare rows never split an escape sequence: checked on the real artifact service's lines and
// spans (the seed's `notice ESC[1A ESC]8;;…` case, where the line break the sanitizer made for the
// cursor-up ends one line's raw range at its ESC), and as a property over hostile inputs: the rows
// of consecutive lines tile the artifact without gaps or overlaps and no span crosses a row edge.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpanInfo, TextLine } from '../../shared/bridge/types';
import { compareRange } from '../../renderer/src/lib/compare-rows';
import { SpanCache } from '../../renderer/src/lib/span-cache';
import { fixture, indexed, type Fixture } from '../app/services/artifact/helpers';
import { hostileStream } from '../helpers/arbitraries';
import { bytes } from '../helpers/record';

let f: Fixture;
beforeAll(async () => {
  f = await fixture();
});
afterAll(async () => f.cleanup());

/** Every line and span of an artifact through the real service. */
async function load(input: Uint8Array): Promise<{ lines: TextLine[]; spans: SpanInfo[] }> {
  const a = await indexed(f, input);
  const page = await f.service.getTextLines(a.ref, 0, 2000);
  const spans = await f.service.getSpans(a.ref, 0, Math.max(1, input.length));
  return { lines: [...page.lines], spans };
}

/** The outermost span over each byte, as the renderer's span cache answers it. */
function outerOf(spans: SpanInfo[], size: number): (o: number) => SpanInfo | null {
  const outer: (SpanInfo | null)[] = new Array(size).fill(null);
  for (const s of [...spans].sort((a, b) => a.length - b.length)) for (let k = s.offset; k < s.offset + s.length && k < size; k++) outer[k] = s;
  return (o) => outer[o] ?? null;
}

function rows(lines: TextLine[], spans: SpanInfo[], size: number): Array<[number, number]> {
  const at = outerOf(spans, size);
  return lines.map((l, i) => compareRange(l, lines[i + 1], at, lines[i - 1]));
}

/** The rows of `input`'s lines tile the artifact: no gap, no overlap, no span cut by a row edge. */
async function expectTiles(input: Uint8Array): Promise<void> {
  const { lines, spans } = await load(input);
  if (lines.length === 0) return;
  const r = rows(lines, spans, input.length);
  expect(r[0][0]).toBe(lines[0].rawStart);
  for (let i = 1; i < r.length; i++) expect(r[i][0], `row ${i} starts where row ${i - 1} ends`).toBe(r[i - 1][1]);
  expect(r.at(-1)![1]).toBe(lines.at(-1)!.rawEnd);
  for (const s of spans) {
    for (const [a, b] of r) {
      const cutInside = (a > s.offset && a < s.offset + s.length) || (b > s.offset && b < s.offset + s.length);
      expect(cutInside, `${s.meaning} [${s.offset}, ${s.offset + s.length}) cut by row [${a}, ${b})`).toBe(false);
    }
  }
}

describe('compare rows', () => {
  it('keeps ESC [1A and the OSC 8 after it whole, on the row that shows their chips', async () => {
    const input = bytes('build: \x1b[31mFAIL\x1b[0m\nnotice\x1b[1A\x1b]8;;https://example.invalid\x1b\\open\x1b]8;;\x1b\\\rPASS\n');
    const { lines, spans } = await load(input);
    const cuu = spans.find((s) => s.meaning === 'CUU cursor up')!;
    // The line's own range ends inside the sequence (what Compare used to draw: `notice^[` / `[1A…`).
    const cut = lines.find((l) => l.rawEnd > cuu.offset && l.rawEnd < cuu.offset + cuu.length);
    expect(cut, 'a line edge falls inside ESC [1A').toBeDefined();
    const r = rows(lines, spans, input.length);
    for (const s of spans) {
      const holder = r.findIndex(([a, b]) => a <= s.offset && s.offset + s.length <= b);
      expect(holder, `${s.meaning} at ${s.offset} lies in one row`).toBeGreaterThanOrEqual(0);
      const chipLine = lines.findIndex((l) => l.pieces.some((p) => p.t === 'chip' && p.span.index === s.index));
      if (chipLine >= 0) expect(holder, `${s.meaning} is on the row of its chip`).toBe(chipLine);
    }
  });

  it('tiles the artifact: no gap, no overlap, no span cut, whatever the bytes (property, real service)', async () => {
    await fc.assert(fc.asyncProperty(hostileStream(60), async (input) => {
      if (input.length > 0) await expectTiles(input);
    }), { numRuns: 60 });
  });

  it('tiles the artifact where line breaks run inside an unterminated CSI, whose chip shows on each of its lines', async () => {
    // The property's counterexample: ESC [ LF CR LF, two lines inside one CSI, both showing its chip.
    const counterexample = Uint8Array.from([0x1b, 0x5b, 0x0a, 0x0d, 0x0a]);
    const { lines, spans } = await load(counterexample);
    const csi = spans.find((s) => s.offset === 0 && s.length === 5)!;
    expect(lines.filter((l) => l.pieces.some((p) => p.t === 'chip' && p.span.index === csi.index)).length).toBe(2);
    expect(rows(lines, spans, counterexample.length)).toEqual([[0, 5], [5, 5]]);
    for (const input of [counterexample, bytes('\x1b[\n\n\n'), bytes('a\x1b[\nb\r\nc\rd\n'), bytes('x\x1b[1\n\r\n\r\ny'), bytes('\x1b[\r\n\x1b]0;t\n\n\x07z\n')]) {
      await expectTiles(input);
    }
  });

  it('the span cache answers the outermost span at a byte (a C0 inside a CSI: the CSI), as compareRange needs', async () => {
    const csi: SpanInfo = { index: 0, offset: 10, length: 8, cls: 3, meaning: 'CSI', flags: 0, code: 0, terminator: 'final' };
    const c0: SpanInfo = { index: 1, offset: 12, length: 1, cls: 0, meaning: 'CR', flags: 0, code: 13, terminator: null };
    const cache = new SpanCache(async () => [csi, c0], 64, () => undefined);
    expect(cache.outerAt(12)).toBeUndefined(); // not loaded: unknown, and no fetch from here
    await cache.ensureRange(0, 64);
    expect(cache.spanAt(12)).toBe(c0);
    expect(cache.outerAt(12)).toBe(csi);
    expect(cache.outerAt(9)).toBeNull();
  });
});
