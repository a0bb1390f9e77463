import { describe, expect, it } from 'vitest';
import { parseGoto } from '../../renderer/src/lib/goto';
import { PAGE_SIZE, PageCache, byteAt, sliceCached } from '../../renderer/src/lib/page-cache';
import { MIN_THUMB_PX, WINDOW_ROWS, fitsWindow, maxTop, revealRow, rowCount, rowOf, thumbPx, thumbTopPx, topRowAtThumbPx, windowBaseFor, windowCount } from '../../renderer/src/lib/scroll';
import { buildBlock, fetchBlockSpans } from '../../renderer/src/lib/span-cache';
import { chipLabel, describeSpan } from '../../renderer/src/lib/spans';
import { inspectByte } from '../../renderer/src/lib/inspect';
import type { SpanInfo } from '../../shared/bridge/types';

const GiB = 2 ** 30;

describe('scrollbar math at 4 GiB', () => {
  const size = 4 * GiB;
  const total = rowCount(size, 16);
  const track = { totalRows: total, visibleRows: 40, trackPx: 800 };
  it('counts rows and rows of offsets past 2^32 exactly', () => {
    expect(total).toBe(268_435_456);
    expect(rowOf(size - 1, 16)).toBe(total - 1);
    expect(rowOf(2 ** 32 + 17, 16)).toBe(2 ** 28 + 1);
    expect(rowOf(2 ** 40 + 31, 16)).toBe(2 ** 36 + 1);
  });
  it('keeps the thumb usable and maps its ends to the first and last row', () => {
    expect(thumbPx(track)).toBe(MIN_THUMB_PX);
    expect(thumbTopPx(track, 0)).toBe(0);
    expect(thumbTopPx(track, maxTop(total, 40))).toBe(800 - MIN_THUMB_PX);
    expect(topRowAtThumbPx(track, 0)).toBe(0);
    expect(topRowAtThumbPx(track, 800 - MIN_THUMB_PX)).toBe(total - 40);
    expect(topRowAtThumbPx(track, 10_000)).toBe(total - 40);
    expect(topRowAtThumbPx(track, -5)).toBe(0);
  });
  it('is monotonic and round-trips a thumb position to within one pixel', () => {
    let last = -1;
    for (let px = 0; px <= 776; px += 7) {
      const row = topRowAtThumbPx(track, px);
      expect(row).toBeGreaterThanOrEqual(last);
      last = row;
      expect(Math.abs(thumbTopPx(track, row) - px)).toBeLessThan(1);
    }
  });
  it('re-bases a bounded window around far rows', () => {
    const end = total - 40;
    const base = windowBaseFor(end, total);
    expect(base).toBe(total - WINDOW_ROWS);
    expect(windowCount(base, total)).toBe(WINDOW_ROWS);
    expect(fitsWindow(base, end, 40, total)).toBe(true);
    expect(fitsWindow(0, end, 40, total)).toBe(false);
    const mid = windowBaseFor(2 ** 27, total);
    expect(mid).toBe(2 ** 27 - WINDOW_ROWS / 2);
    expect(fitsWindow(mid, 2 ** 27, 40, total)).toBe(true);
    expect(fitsWindow(mid, mid + 10, 40, total)).toBe(false); // too near the window's low edge
  });
  it('reveals a row with the least movement', () => {
    expect(revealRow(100, 150, 40, total)).toBe(111);
    expect(revealRow(100, 90, 40, total)).toBe(90);
    expect(revealRow(100, 120, 40, total)).toBe(100);
    expect(revealRow(0, total - 1, 40, total)).toBe(total - 40);
  });
  it('uses no 32-bit operators in offset code', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dirs = ['renderer/src', 'renderer/src/lib', 'renderer/src/views', 'renderer/src/components', 'renderer/src/stores'];
    for (const d of dirs) for (const f of readdirSync(d).filter((n) => /\.tsx?$/.test(n))) {
      const src = readFileSync(join(d, f), 'utf8');
      expect(src, `${d}/${f}`).not.toMatch(/\|\s*0\b|>>>?\s*0\b|<<\s*\d|Int32Array\([^)]*(offset|size)/);
    }
  });
});

describe('page cache', () => {
  it('evicts the least recently used page and zeroes what it drops', () => {
    const cache = new PageCache(3);
    const pages = [0, 1, 2, 3].map((i) => new Uint8Array(PAGE_SIZE).fill(i + 1));
    cache.set(0, pages[0]);
    cache.set(1, pages[1]);
    cache.set(2, pages[2]);
    cache.get(0); // 0 is now most recent
    cache.set(3, pages[3]);
    expect(cache.keys()).toEqual([2, 0, 3]);
    expect(pages[1].every((b) => b === 0)).toBe(true);
    expect(cache.size).toBe(3);
    expect(cache.bytesHeld).toBe(3 * PAGE_SIZE);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(pages[0].every((b) => b === 0) && pages[3].every((b) => b === 0)).toBe(true);
  });
  it('slices across pages and at offsets past 4 GiB', () => {
    const cache = new PageCache(4);
    const base = Math.floor((5 * GiB) / PAGE_SIZE);
    const a = new Uint8Array(PAGE_SIZE).fill(0xaa);
    const b = new Uint8Array(PAGE_SIZE).fill(0xbb);
    cache.set(base, a);
    cache.set(base + 1, b);
    const at = (base + 1) * PAGE_SIZE - 2;
    expect(Array.from(sliceCached(cache, at, 4)!)).toEqual([0xaa, 0xaa, 0xbb, 0xbb]);
    expect(byteAt(cache, at + 3)).toBe(0xbb);
    expect(sliceCached(cache, (base + 2) * PAGE_SIZE - 1, 2)).toBeNull();
  });
});

describe('go to', () => {
  const size = 4 * GiB;
  it.each([
    ['0x1f', 31], ['1fh', 31], ['$1f', 31], ['31', 31], ['0xFFFFFFFF', 2 ** 32 - 1], ['end', size - 1], ['4_294_967_295', 2 ** 32 - 1],
  ])('%s → %d', (input, offset) => {
    expect(parseGoto(input, 0, size)).toEqual({ ok: true, offset, end: null });
  });
  it('relative moves and ranges', () => {
    expect(parseGoto('+16', 100, size)).toEqual({ ok: true, offset: 116, end: null });
    expect(parseGoto('-0x10', 100, size)).toEqual({ ok: true, offset: 84, end: null });
    expect(parseGoto('0x10-0x1f', 0, size)).toEqual({ ok: true, offset: 16, end: 32 });
    expect(parseGoto('16:32', 0, size)).toEqual({ ok: true, offset: 16, end: 32 });
    expect(parseGoto('16+4', 0, size)).toEqual({ ok: true, offset: 16, end: 20 });
  });
  it('refuses what is not an offset inside the file', () => {
    expect(parseGoto('', 0, size).ok).toBe(false);
    expect(parseGoto('zz', 0, size).ok).toBe(false);
    expect(parseGoto(String(size), 0, size).ok).toBe(false);
    expect(parseGoto('-5', 2, size).ok).toBe(false);
  });
});

const span = (o: Partial<SpanInfo>): SpanInfo => ({ index: 0, offset: 0, length: 1, cls: 0, meaning: 'BEL bell', flags: 0, terminator: null, ...o });

describe('spans', () => {
  it('the innermost span owns its bytes in a block', () => {
    const outer = span({ index: 0, offset: 10, length: 20, cls: 3, meaning: 'CSI unknown' });
    const inner = span({ index: 1, offset: 15, length: 1, cls: 0 });
    const b = buildBlock(0, 64, [outer, inner]);
    expect(b.spans[b.cover[12]]).toBe(outer);
    expect(b.spans[b.cover[15]]).toBe(inner);
    expect(b.cover[30]).toBe(-1);
  });
  it('follows the per-call span limit', async () => {
    const all = Array.from({ length: 45_000 }, (_, i) => span({ index: i, offset: i }));
    const calls: number[] = [];
    const got = await fetchBlockSpans(async (offset, length) => {
      calls.push(offset);
      return all.filter((s) => s.offset >= offset && s.offset < offset + length).slice(0, 20_000);
    }, 0, 65_536);
    expect(got).toHaveLength(45_000);
    expect(calls.length).toBe(3);
  });
  it('names a span with class, meaning, length, terminator and flags', () => {
    expect(describeSpan(span({ cls: 4, meaning: 'OSC 52 clipboard access', length: 44, terminator: 'BEL' }))).toBe('OSC 52 clipboard access, 44 bytes, ended by BEL');
    expect(describeSpan(span({ cls: 4, meaning: 'OSC 2 set window title', length: 9, terminator: 'EOF', flags: 1 }))).toBe('OSC 2 set window title, 9 bytes, unterminated at end of input · unterminated');
    expect(describeSpan(span({ cls: 3, meaning: 'SGR select graphic rendition', length: 5, terminator: 'final', flags: 8 }))).toBe('CSI SGR select graphic rendition, 5 bytes · 8-bit introducer');
    expect(chipLabel(span({ cls: 4, meaning: 'OSC 52 clipboard access' }))).toEqual({ cls: 'OSC', what: '52 clipboard' });
    expect(chipLabel(span({ cls: 3, meaning: 'SGR select graphic rendition' }))).toEqual({ cls: 'CSI', what: 'SGR' });
  });
  it('chips say what kind of invisible or invalid byte without a grant, which one only with its value', () => {
    const tag = span({ cls: 10, length: 4, meaning: 'tag character (ASCII smuggling)' });
    expect(chipLabel(tag)).toEqual({ cls: 'Invisible', what: 'tag character' });
    expect(chipLabel(tag, 0xe0041)).toEqual({ cls: 'Invisible', what: 'U+E0041' });
    expect(chipLabel(span({ cls: 10, length: 3, meaning: 'bidi embedding/override control' }))).toEqual({ cls: 'Invisible', what: 'bidi override' });
    const bad = span({ cls: 9, length: 1, meaning: 'invalid UTF-8' });
    expect(chipLabel(bad)).toEqual({ cls: 'UTF-8', what: 'invalid, 1 byte' });
    expect(chipLabel(bad, 0xe4)).toEqual({ cls: 'UTF-8', what: 'invalid \\xe4' });
    expect(chipLabel(span({ cls: 9, length: 1, meaning: 'invalid UTF-8 (8-bit terminal: IND index)', flags: 32 }))).toEqual({ cls: 'UTF-8', what: 'stray C1 byte' });
  });
});

describe('byte inspector', () => {
  it('reads a C1 byte differently in a UTF-8 terminal and an 8-bit VT500', () => {
    const f = inspectByte(Uint8Array.of(0x41, 0x9b, 0x41), 100, 101);
    expect(f).toMatchObject({ hex: '0x9b', dec: '155', oct: '0o233', bin: '1001 1011' });
    expect(f.utf8Reading).toMatch(/ill-formed/);
    expect(f.vt500Reading).toMatch(/^C1 CSI/);
    expect(f.sequence).toBeNull();
  });
  it('names the UTF-8 sequence a continuation byte belongs to', () => {
    // U+202E RIGHT-TO-LEFT OVERRIDE = e2 80 ae; byte 0x80 is also C1 PAD for a VT500
    const f = inspectByte(Uint8Array.of(0x2f, 0xe2, 0x80, 0xae, 0x65), 2 ** 32, 2 ** 32 + 2);
    expect(f.sequence).toEqual({ start: 2 ** 32 + 1, bytes: 'e2 80 ae', codePoint: 'U+202E', glyph: '<U+202E>' });
    expect(f.utf8Reading).toBe('continuation byte of U+202E');
    expect(f.vt500Reading).toMatch(/^C1 PAD/);
  });
  it('names C0 controls and an encoded C1', () => {
    expect(inspectByte(Uint8Array.of(0x1b), 0, 0).utf8Reading).toMatch(/^C0 ESC/);
    const c1 = inspectByte(Uint8Array.of(0xc2, 0x9b), 0, 0);
    expect(c1.utf8Reading).toMatch(/lead byte of encoded C1 CSI/);
    expect(c1.vt500Reading).toMatch(/^GR graphic/);
  });
  it('names what an ESC is from the span under it: the sequence it introduces, the ST it starts, or a lone ESC', () => {
    const sp = (o: Partial<SpanInfo>): SpanInfo => ({ index: 1, offset: 10, length: 44, cls: 4, meaning: 'OSC 52 clipboard access', flags: 0, terminator: 'BEL', ...o });
    // ESC ] 5 2 ; …: the opening ESC of an OSC 52
    const osc = inspectByte(Uint8Array.of(0x41, 0x1b, 0x5d, 0x35), 9, 10, sp({}));
    expect(osc.utf8Reading).toBe('ESC — introduces OSC 52 clipboard access');
    expect(osc.vt500Reading).toBe('ESC — introduces OSC 52 clipboard access');
    expect(osc.utf8Reading).not.toMatch(/lone/);
    const csi = inspectByte(Uint8Array.of(0x1b, 0x5b, 0x33), 0, 0, sp({ offset: 0, length: 5, cls: 3, meaning: 'SGR select graphic rendition', terminator: 'final' }));
    expect(csi.utf8Reading).toBe('ESC — introduces CSI SGR select graphic rendition');
    const dcs = inspectByte(Uint8Array.of(0x1b, 0x50), 0, 0, sp({ offset: 0, length: 9, cls: 5, meaning: 'DCS sixel graphics', terminator: 'ST' }));
    expect(dcs.utf8Reading).toBe('ESC — introduces DCS sixel graphics');
    // … ESC \: the ESC of the ST that ends an OSC 8 hyperlink
    const st = inspectByte(Uint8Array.of(0x3b, 0x1b, 0x5c), 14, 15, sp({ offset: 10, length: 7, meaning: 'OSC 8 hyperlink (close)', terminator: 'ST' }));
    expect(st.utf8Reading).toBe('ESC — starts the ST (ESC \\) that ends OSC 8 hyperlink (close)');
    // a lone ESC keeps its name; an ESC sequence names itself
    const lone = inspectByte(Uint8Array.of(0x1b, 0x41), 0, 0, sp({ offset: 0, length: 1, cls: 2, meaning: 'ESC escape (lone)', terminator: null }));
    expect(lone.utf8Reading).toBe('C0 ESC escape (lone)');
    expect(lone.vt500Reading).toBe('C0 ESC escape (lone)');
    const save = inspectByte(Uint8Array.of(0x1b, 0x37), 0, 0, sp({ offset: 0, length: 2, cls: 2, meaning: 'DECSC save cursor', terminator: 'final' }));
    expect(save.utf8Reading).toBe('ESC — first byte of ESC DECSC save cursor');
    // without a span (spans not loaded) it does not claim "lone"
    expect(inspectByte(Uint8Array.of(0x1b), 0, 0).utf8Reading).toBe('C0 ESC escape');
  });
});
