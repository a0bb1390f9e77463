// Display lines, pieces, raw <-> text linking, spans by range, next/previous, minimap: against a
// direct Sanitizer run, and at every bound.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SPANS_PER_CALL, MAX_TEXT_LINES } from '../../../../shared/bridge/contract';
import type { SpanInfo, TextPiece } from '../../../../shared/bridge/types';
import { sanitize } from '../../../../shared/sanitize';
import { hostileStream } from '../../../helpers/arbitraries';
import { fixture, indexed, type Fixture } from './helpers';

function pieceText(p: TextPiece): string {
  if (p.t === 'chip') return p.span.cls === 9 ? '\uFFFD' : '';
  if (p.t === 'secret') throw new Error('these corpora hold no secret');
  return p.text;
}

async function allLines(f: Fixture, ref: string) {
  const first = await f.service.getTextLines(ref, 0, MAX_TEXT_LINES);
  const lines = [...first.lines];
  while (lines.length < first.totalLines) lines.push(...(await f.service.getTextLines(ref, lines.length, MAX_TEXT_LINES)).lines);
  return lines;
}

describe('text lines and linking', () => {
  it('pieces rebuild the sanitized text; chips cover every span; raw extents tile the artifact', async () => {
    await fc.assert(
      fc.asyncProperty(hostileStream(120), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 2, max: 40 }), async (bytes, page, maxLine) => {
        const f = await fixture({ pageBytes: page, maxLineBytes: maxLine });
        try {
          const { ref } = await indexed(f, bytes);
          const want = sanitize(bytes, { mapOffsets: true });
          const lines = await allLines(f, ref);
          if (bytes.length === 0) {
            expect(lines).toHaveLength(0);
            return;
          }
          expect(lines.map((l) => l.pieces.map(pieceText).join('')).join('')).toBe(new TextDecoder().decode(want.text));
          expect(lines[0].rawStart).toBe(0);
          expect(lines[lines.length - 1].rawEnd).toBe(bytes.length);
          for (let i = 1; i < lines.length; i++) expect(lines[i].rawStart).toBe(lines[i - 1].rawEnd);
          for (const l of lines) {
            expect(l.continued).toBe(l.textOffset > 0 && want.text[l.textOffset - 1] !== 0x0a);
            for (const p of l.pieces) {
              if (p.t === 'text' && p.direct) expect(Buffer.from(bytes.subarray(p.raw, p.raw + p.rawLength)).toString('utf8')).toBe(p.text);
            }
          }
          // Every span is a chip, or lies inside one (C0 executed inside a CSI).
          const chips = lines.flatMap((l) => l.pieces.filter((p): p is Extract<TextPiece, { t: 'chip' }> => p.t === 'chip').map((p) => p.span));
          const spans = await f.service.getSpans(ref, 0, bytes.length);
          // A CR the sanitizer turned into a line break is the synthetic piece instead.
          const made = lines.flatMap((l) => l.pieces.filter((p) => p.t === 'synthetic').map((p) => (p as { raw: number }).raw));
          for (const s of spans) {
            expect(chips.some((c) => c.offset <= s.offset && s.offset + s.length <= c.offset + c.length) || made.includes(s.offset)).toBe(true);
          }
          // Raw -> line: the line whose raw extent holds the byte, and the piece that holds it.
          for (let raw = 0; raw < bytes.length; raw++) {
            const pos = await f.service.textPositionOf(ref, raw);
            expect(pos).not.toBeNull();
            const l = lines[pos!.line];
            if (!(raw >= l.rawStart && raw < Math.max(l.rawEnd, l.rawStart + 1))) {
              throw new Error(`raw ${raw} -> ${JSON.stringify(pos)} outside ${JSON.stringify(lines.map((x) => [x.rawStart, x.rawEnd, x.textOffset]))}`);
            }
            const p = l.pieces[pos!.piece];
            if (p && pos!.kept) expect(p.t === 'text' && raw >= p.raw && raw < p.raw + p.rawLength).toBe(true);
          }
        } finally {
          await f.cleanup();
        }
      }),
      { numRuns: 40, examples: [[Uint8Array.from([158, 50, 128, 63]), 1, 2]] },
    );
  });

  it('overwrite mode: pieces rebuild the text, removed spans follow as chips, every kept byte links to its line and piece', async () => {
    await fc.assert(
      fc.asyncProperty(hostileStream(120), fc.integer({ min: 1, max: 50 }), async (bytes, page) => {
        const f = await fixture({ pageBytes: page, sanitizerFor: async () => ({ cr: 'overwrite', limits: { maxCsiParamBytes: 256, maxStringBytes: 65536, maxEscIntermediates: 8 } }) });
        try {
          const { ref, sha } = await indexed(f, bytes);
          const want = sanitize(bytes, { mapOffsets: true, cr: 'overwrite' });
          const lines = await allLines(f, ref);
          if (bytes.length === 0) return;
          // (An invalid byte that was overwritten is still a chip in its gap: U+FFFD aside.)
          const noFffd = (x: string): string => x.replaceAll('\uFFFD', '');
          expect(noFffd(lines.map((l) => l.pieces.map(pieceText).join('')).join(''))).toBe(noFffd(new TextDecoder().decode(want.text)));
          for (let i = 1; i < lines.length; i++) expect(lines[i].rawStart).toBe(lines[i - 1].rawEnd);
          // Reordered lines: chips stay inside their line's raw extent, after its text.
          const manifest = JSON.parse(readFileSync(join(f.vault.root, 'index', sha, 'manifest.json'), 'utf8')) as { monotonic: boolean };
          for (const l of lines.filter(() => !manifest.monotonic)) {
            const firstChip = l.pieces.findIndex((p) => p.t === 'chip');
            if (firstChip < 0) continue;
            expect(l.pieces.slice(firstChip).every((p) => p.t === 'chip')).toBe(true);
            for (const p of l.pieces.slice(firstChip)) if (p.t === 'chip') expect(p.span.offset).toBeGreaterThanOrEqual(l.rawStart);
          }
          // Every raw byte that became text: its line holds that text byte, and the piece holds the raw byte.
          const lineOfText = (t: number): number => {
            let k = 0;
            while (k + 1 < lines.length && lines[k + 1].textOffset <= t) k++;
            return k;
          };
          for (let t = 0; t < want.text.length; t++) {
            const raw = want.map!.textToRaw(t);
            const kept = want.map!.rawToText(raw) === t && bytes[raw] === want.text[t];
            if (!kept) continue;
            const pos = await f.service.textPositionOf(ref, raw);
            expect(pos, `raw ${raw} (text ${t})`).not.toBeNull();
            expect(pos!.kept).toBe(true);
            expect(pos!.line).toBe(lineOfText(t));
            const p = lines[pos!.line].pieces[pos!.piece];
            expect(p.t === 'text' && raw >= p.raw && raw < p.raw + p.rawLength).toBe(true);
          }
        } finally {
          await f.cleanup();
        }
      }),
      { numRuns: 30, examples: [[Uint8Array.from([27, 10]), 1], [Uint8Array.from([27, 91, 10]), 1], [Uint8Array.from([192, 13, 128]), 1]] },
    );
  });

  it('cuts long lines at character boundaries and marks them continued', async () => {
    const f = await fixture();
    try {
      const text = `${'€'.repeat(3000)}\nshort\n`;
      const { ref } = await indexed(f, Buffer.from(text));
      const lines = await allLines(f, ref);
      expect(lines.map((l) => l.continued)).toEqual([false, true, true, false]);
      expect(lines.map((l) => l.pieces.map(pieceText).join('')).join('')).toBe(text);
      for (const l of lines) expect(Buffer.byteLength(l.pieces.map(pieceText).join(''))).toBeLessThanOrEqual(4096 + 3);
      const page = await f.service.getTextLines(ref, 4, 10);
      expect(page.lines).toEqual([]);
      expect(page.totalLines).toBe(4);
      expect(await f.service.textPositionOf(ref, text.length * 10)).toBeNull();
    } finally {
      await f.cleanup();
    }
  });

  it('bounds a gap of many removed spans: chips then a count', async () => {
    const f = await fixture();
    try {
      const bytes = Buffer.from(`a\n${'\x1b[1m'.repeat(1000)}b`);
      const { ref } = await indexed(f, bytes);
      const page = await f.service.getTextLines(ref, 0, 10);
      const l1 = page.lines[1].pieces;
      const chips = l1.filter((p) => p.t === 'chip');
      expect(chips.length).toBe(64);
      expect((chips[63] as { more?: number }).more).toBe(1000 - 64);
      expect(pieceText(l1[l1.length - 1])).toBe('b');
      const synthetic = await indexed(f, Buffer.from('one\rtwo\r\n'));
      const p = await f.service.getTextLines(synthetic.ref, 0, 10);
      expect(p.lines[0].pieces.map((x) => x.t)).toEqual(['text', 'synthetic']);
    } finally {
      await f.cleanup();
    }
  });
});

describe('spans, next/previous, minimap', () => {
  let f: Fixture;
  let ref: string;
  let bytes: Buffer;
  beforeAll(async () => {
    f = await fixture({ pageBytes: 4096 });
    const parts: string[] = [];
    for (let i = 0; i < 2000; i++) parts.push(`line ${i} \x1b[3${i % 8}m${i % 50 === 0 ? '\x1b]52;c;QUJD\x07' : ''}x\x1b[0m\n`);
    bytes = Buffer.from(parts.join(''));
    ref = (await indexed(f, bytes)).ref;
  });
  afterAll(() => f.cleanup());

  it('getSpans returns exactly the spans overlapping the range, sorted, at every bound', async () => {
    const all = await f.service.getSpans(ref, 0, bytes.length);
    expect(all.length).toBe(2000 * 2 + 40);
    expect(all.length).toBeLessThanOrEqual(MAX_SPANS_PER_CALL);
    for (const [a, len] of [[0, 1], [5, 1], [100, 37], [bytes.length - 5, 5], [bytes.length, 10], [bytes.length + 100, 1], [0, 0]] as const) {
      const got = await f.service.getSpans(ref, a, len);
      const want = all.filter((s) => s.offset < a + len && s.offset + s.length > a);
      expect(got).toEqual(want);
    }
  });

  it('findSpan walks next and previous, with class and meaning filters', async () => {
    const all = await f.service.getSpans(ref, 0, bytes.length);
    let at = 0;
    const walked: SpanInfo[] = [];
    for (;;) {
      const s = await f.service.findSpan(ref, at, 1, {});
      if (!s) break;
      walked.push(s);
      at = s.offset + 1;
    }
    expect(walked).toEqual(all);
    const osc = all.filter((s) => s.cls === 4);
    let back = bytes.length;
    const backWalk: SpanInfo[] = [];
    for (;;) {
      const s = await f.service.findSpan(ref, back, -1, { cls: 4 });
      if (!s) break;
      backWalk.push(s);
      back = s.offset;
    }
    expect(backWalk.reverse()).toEqual(osc);
    expect(osc[0].terminator).toBe('BEL');
    expect(all[0].terminator).toBe('final');
    expect(await f.service.findSpan(ref, 0, 1, { meaning: 'OSC 52 clipboard access' })).toEqual(osc[0]);
    expect(await f.service.findSpan(ref, 0, 1, { meaning: 'no such meaning' })).toBeNull();
    expect(await f.service.findSpan(ref, 0, -1, {})).toBeNull();
    expect(await f.service.findSpan(ref, bytes.length, 1, {})).toBeNull();
    expect(await f.service.findSpan(ref, 0, 1, { cls: 7 })).toBeNull();
  });

  it('minimap counts add up at every resolution', async () => {
    const report = await f.service.getReport(ref);
    for (const n of [1, 7, 100, 4096]) {
      const m = await f.service.getMinimap(ref, n);
      expect(m.buckets).toBeLessThanOrEqual(n);
      expect(m.bucketBytes * m.buckets).toBeGreaterThanOrEqual(bytes.length);
      expect(m.counts[3].reduce((a, b) => a + b, 0)).toBe(report.classes.csi.count);
      expect(m.counts[4].reduce((a, b) => a + b, 0)).toBe(40);
    }
  });

  it('refuses queries on an artifact without an index', async () => {
    const other = f.add(Buffer.from('nothing indexed'));
    await expect(f.service.getSpans(other.ref, 0, 10)).rejects.toThrow(/startIndex/);
    expect((await f.service.getIndexStatus(other.ref)).state).toBe('none');
    await expect(f.service.startIndex(`restricted:sha256:${'0'.repeat(64)}`)).rejects.toThrow(/no longer in the vault/);
  });
});

describe('getSpans limit', () => {
  it('returns at most MAX_SPANS_PER_CALL spans, and the rest from the last offset', async () => {
    const f = await fixture();
    try {
      const bytes = Buffer.from('\x1b[1m'.repeat(MAX_SPANS_PER_CALL + 500));
      const { ref } = await indexed(f, bytes);
      const first = await f.service.getSpans(ref, 0, bytes.length);
      expect(first).toHaveLength(MAX_SPANS_PER_CALL);
      const last = first[first.length - 1];
      const rest = await f.service.getSpans(ref, last.offset + last.length, bytes.length);
      expect(rest).toHaveLength(500);
      expect(rest[0].index).toBe(last.index + 1);
    } finally {
      await f.cleanup();
    }
  });
});
