/**
 * Proves the offset map that links sanitized text to raw bytes: for fixed samples in both CR modes,
 * textToRaw and rawToText give the exact byte each text byte came from (CR -> LF and U+FFFD map to
 * the raw byte they replace), removed bytes map to -1, out-of-range lookups give -1, the map covers
 * exactly the text, and the map is identical whatever the chunking.
 */
import { describe, expect, it } from 'vitest';
import { OffsetMap, SegmentKind } from '../../shared/sanitize/offset-map';
import { sanitize } from '../../shared/sanitize/sanitizer';
import { bytes, bytewise, sanitizeChunks, utf8 } from '../helpers/record';

const table = (map: OffsetMap, n: number, f: 'textToRaw' | 'rawToText'): number[] =>
  Array.from({ length: n }, (_, k) => map[f](k));

describe('newline mode', () => {
  //            a  b  ESC [  3  1  m  c  d  CR FF e  LF
  // raw:       0  1  2   3  4  5  6  7  8  9  10 11 12
  const input = bytes('ab\x1b[31mcd\r\xffe\n');
  const { text, map } = sanitize(input, { mapOffsets: true });

  it('produces the expected text', () => {
    expect(new TextDecoder().decode(text)).toBe('abcd\n\ufffde\n');
  });

  it('textToRaw: each text byte maps to the raw byte that produced it', () => {
    expect(table(map!, text.length, 'textToRaw')).toEqual([0, 1, 7, 8, 9, 10, 10, 10, 11, 12]);
  });

  it('rawToText: removed bytes map to -1, replaced bytes to the start of their replacement', () => {
    expect(table(map!, input.length, 'rawToText')).toEqual([0, 1, -1, -1, -1, -1, -1, 2, 3, 4, 5, 8, 9]);
  });

  it('every byte of a multi-byte invalid subpart maps to its U+FFFD', () => {
    // E2 A0 is one maximal ill-formed subpart: both bytes produced the one U+FFFD at text 0.
    const r = sanitize(bytes('\xe2\xa0A'), { mapOffsets: true });
    expect(table(r.map!, 3, 'rawToText')).toEqual([0, 0, 3]);
  });

  it('lookups outside the text or input give -1', () => {
    expect(map!.textToRaw(-1)).toBe(-1);
    expect(map!.textToRaw(text.length)).toBe(-1);
    expect(map!.rawToText(-1)).toBe(-1);
    expect(map!.rawToText(input.length)).toBe(-1);
  });

  it('covers exactly the text', () => {
    expect(map!.textLength).toBe(text.length);
  });

  it('a verbatim run costs one segment', () => {
    const long = sanitize(bytes('x'.repeat(10_000)), { mapOffsets: true });
    expect(long.map!.segments).toBe(1);
  });

  it('multi-byte characters map byte by byte', () => {
    const r = sanitize(bytes('\x1b[m', utf8('本€')), { mapOffsets: true });
    expect(table(r.map!, r.text.length, 'textToRaw')).toEqual([3, 4, 5, 6, 7, 8]);
  });

  it('an OSC 8 label maps into the raw bytes between the two OSC spans', () => {
    const raw = bytes('\x1b]8;;http://x\x07link\x1b]8;;\x07');
    const r = sanitize(raw, { mapOffsets: true });
    expect(new TextDecoder().decode(r.text)).toBe('link');
    expect(table(r.map!, 4, 'textToRaw')).toEqual([14, 15, 16, 17]);
    for (let i = 0; i < 14; i++) expect(r.map!.rawToText(i)).toBe(-1);
  });

  it('is off unless asked for', () => {
    expect(sanitize(input).map).toBeNull();
  });

  it('is the same whatever the chunking', () => {
    const a = sanitizeChunks([input], { mapOffsets: true }).sanitizer.map!;
    const b = sanitizeChunks(bytewise(input), { mapOffsets: true }).sanitizer.map!;
    expect(table(b, text.length, 'textToRaw')).toEqual(table(a, text.length, 'textToRaw'));
    expect(table(b, input.length, 'rawToText')).toEqual(table(a, input.length, 'rawToText'));
  });
});

describe('overwrite mode', () => {
  //            a  b  ESC [  3  1  m  c  d  CR X  LF
  // raw:       0  1  2   3  4  5  6  7  8  9  10 11
  const input = bytes('ab\x1b[31mcd\rX\n');
  const { text, map } = sanitize(input, { cr: 'overwrite', mapOffsets: true });

  it('produces the overwritten line', () => {
    expect(new TextDecoder().decode(text)).toBe('Xbcd\n');
  });

  it('textToRaw follows the cell that survived', () => {
    expect(table(map!, text.length, 'textToRaw')).toEqual([10, 1, 7, 8, 11]);
  });

  it('rawToText: an overwritten byte maps to -1, like a removed one', () => {
    expect(table(map!, input.length, 'rawToText')).toEqual([-1, 1, -1, -1, -1, -1, -1, 2, 3, -1, 0, 4]);
  });

  it('each TAB owns the blanks it skipped', () => {
    //                 TAB TAB X  LF
    const r = sanitize(bytes('\t\tX\n'), { cr: 'overwrite', mapOffsets: true });
    expect(new TextDecoder().decode(r.text)).toBe(`${' '.repeat(16)}X\n`);
    expect(table(r.map!, 16, 'textToRaw')).toEqual([...Array(8).fill(0), ...Array(8).fill(1)]);
    expect(table(r.map!, 4, 'rawToText')).toEqual([0, 8, 16, 17]);
  });

  it('spaces made by a TAB map to the TAB', () => {
    const r = sanitize(bytes('a\tb'), { cr: 'overwrite', mapOffsets: true });
    expect(new TextDecoder().decode(r.text)).toBe('a       b');
    expect(table(r.map!, r.text.length, 'textToRaw')).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 2]);
  });
});

describe('OffsetMap directly', () => {
  it('merges adjacent verbatim segments and keeps replaced ones apart', () => {
    const m = new OffsetMap();
    m.add(0, 2, 10, 2, SegmentKind.Verbatim);
    m.add(2, 3, 12, 3, SegmentKind.Verbatim);
    m.add(5, 3, 20, 1, SegmentKind.Replaced);
    m.add(8, 1, 21, 1, SegmentKind.Verbatim);
    expect(m.segments).toBe(3);
    expect(m.textLength).toBe(9);
    expect(table(m, 9, 'textToRaw')).toEqual([10, 11, 12, 13, 14, 20, 20, 20, 21]);
    expect(m.rawToText(15)).toBe(-1);
    expect(m.rawToText(20)).toBe(5);
  });

  it('answers rawToText when segments are out of raw order (overwrite)', () => {
    const m = new OffsetMap();
    m.add(0, 1, 30, 1, SegmentKind.Verbatim);
    m.add(1, 1, 5, 1, SegmentKind.Verbatim);
    m.add(2, 1, 17, 1, SegmentKind.Verbatim);
    expect([m.rawToText(30), m.rawToText(5), m.rawToText(17), m.rawToText(6)]).toEqual([0, 1, 2, -1]);
  });

  it('grows past its initial capacity', () => {
    const m = new OffsetMap();
    for (let i = 0; i < 1000; i++) m.add(i, 1, 2 * i, 1, SegmentKind.Verbatim);
    expect(m.segments).toBe(1000);
    expect(m.textToRaw(999)).toBe(1998);
    expect(m.rawToText(1998)).toBe(999);
    expect(m.rawToText(1997)).toBe(-1);
  });

  it('a map of several pages (over 65,536 segments) answers like one built in a single array, lookups interleaved', () => {
    const m = new OffsetMap();
    const model: { t: number; r: number; len: number; kind: SegmentKind }[] = [];
    let t = 0;
    let r = 0;
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
    for (let k = 0; k < 300_000; k++) {
      const kind = rnd(5) === 0 ? SegmentKind.Replaced : SegmentKind.Verbatim;
      const len = 1 + rnd(4);
      const rawLen = kind === SegmentKind.Verbatim ? len : 1 + rnd(3);
      r += rnd(3); // gaps (removed spans) between segments; 0 lets verbatim runs merge
      m.add(t, len, r, rawLen, kind);
      const last = model[model.length - 1];
      if (kind === SegmentKind.Verbatim && last?.kind === SegmentKind.Verbatim && last.r + last.len === r && last.t + last.len === t) last.len += len;
      else model.push({ t, r, len: kind === SegmentKind.Verbatim ? len : rawLen, kind });
      if (kind === SegmentKind.Replaced) model[model.length - 1].len = rawLen;
      t += len;
      r += rawLen;
      if (k % 50_000 === 0) expect(m.textToRaw(t - 1)).toBe(kind === SegmentKind.Verbatim ? r - 1 : r - rawLen);
    }
    expect(m.segments).toBe(model.length);
    expect(m.textLength).toBe(t);
    for (let k = 0; k < model.length; k += 997) {
      const s = model[k];
      expect(m.textToRaw(s.t)).toBe(s.r);
      expect(m.rawToText(s.r)).toBe(s.t);
    }
  });
});
