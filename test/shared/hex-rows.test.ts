import { describe, expect, it } from 'vitest';
import { formatCells, formatHexRows, formatRowText, type Cell } from '../../shared/hex';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const bytesOf = (...parts: (string | number[])[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? Array.from(utf8(p)) : p)));
const texts = (cells: readonly Cell[]): string[] => cells.map((c) => c.text);

describe('formatRowText', () => {
  it('formats the build sample exactly', () => {
    const lines = formatHexRows(utf8('build: \x1b[31mFAIL\x1b[0m\n'), 0).map((row) => formatRowText(row));
    expect(lines).toEqual([
      '00000000  62 75 69 6c 64 3a 20 1b  5b 33 31 6d 46 41 49 4c  |build: ^[[31mFAIL|',
      '00000010  1b 5b 30 6d 0a' + ' '.repeat(36) + '|^[[0m^J|',
    ]);
    expect(lines[1].indexOf('|')).toBe(lines[0].indexOf('|'));
  });

  it('formats a full row with 8+8 grouping', () => {
    const [row] = formatHexRows(utf8('\x1b[31mFAIL\x1b[0m\nok'), 0);
    expect(formatRowText(row)).toBe(
      '00000000  1b 5b 33 31 6d 46 41 49  4c 1b 5b 30 6d 0a 6f 6b  |^[[31mFAIL^[[0m^Jok|',
    );
  });

  it('pads offsets to the requested digits and never cuts long ones', () => {
    const [row] = formatHexRows(utf8('a'), 0x1_2345_6789);
    expect(formatRowText(row).startsWith('123456789  61 ')).toBe(true);
    expect(formatRowText(formatHexRows(utf8('a'), 0x10)[0], { offsetDigits: 4 }).startsWith('0010  61 ')).toBe(true);
  });

  it('pads a short row to the given width', () => {
    const rows = formatHexRows(utf8('abcdefghij'), 0, { width: 8 });
    const lines = rows.map((row) => formatRowText(row, { width: 8 }));
    expect(lines).toEqual(['00000000  61 62 63 64 65 66 67 68  |abcdefgh|', '00000008  69 6a' + ' '.repeat(20) + '|ij|']);
  });

  it('keeps a row longer than the given width whole', () => {
    const [row] = formatHexRows(utf8('abcdefghijklmnop'), 0);
    expect(formatRowText(row, { width: 8 })).toBe('00000000  61 62 63 64 65 66 67 68  69 6a 6b 6c 6d 6e 6f 70  |abcdefghijklmnop|');
  });

  it('leaves a literal bar as it is (the inspect dump escapes it: RowWriter escapeBar)', () => {
    const [row] = formatHexRows(utf8('a|b'), 0);
    expect(formatRowText(row)).toBe('00000000  61 7c 62' + ' '.repeat(42) + '|a|b|');
  });
});

describe('formatHexRows', () => {
  it('gives each row its absolute offset and one hex and caret cell per byte', () => {
    const rows = formatHexRows(new Uint8Array(40), 0x1000);
    expect(rows.map((r) => r.offset)).toEqual([0x1000, 0x1010, 0x1020]);
    expect(rows.map((r) => [r.hex.length, r.cells.length])).toEqual([[16, 16], [16, 16], [8, 8]]);
    expect(rows[0].hex[0]).toBe('00');
  });

  it('returns no rows for an empty window', () => {
    expect(formatHexRows(new Uint8Array(0), 5, { context: new Uint8Array(0) })).toEqual([]);
  });

  it('shows a character crossing a row boundary in its lead row, continuations in the next', () => {
    const rows = formatHexRows(bytesOf('x'.repeat(15), '€', 'y'), 0);
    expect(rows[0].cells[15]).toEqual({ text: '€', kind: 'utf8-lead' });
    expect(texts(rows[1].cells)).toEqual(['·', '·', 'y']);
    expect(rows[1].cells[0].kind).toBe('utf8-cont');
    expect(rows[0].hex[15]).toBe('e2');
    expect(rows[1].hex.slice(0, 2)).toEqual(['82', 'ac']);
  });

  it('rejects bad widths and offsets', () => {
    const bytes = utf8('abc');
    for (const width of [0, -1, 1.5, 5000]) expect(() => formatHexRows(bytes, 0, { width })).toThrow(RangeError);
    for (const offset of [-1, 0.5, Number.NaN, 2 ** 60]) expect(() => formatHexRows(bytes, offset)).toThrow(RangeError);
    expect(() => formatHexRows(bytes, 2, { context: utf8('abc') })).toThrow(RangeError);
  });
});

describe('windows into a larger stream', () => {
  it('uses the context to recognise continuations of a character begun before the window', () => {
    const cells = formatCells(bytesOf([0x82, 0xac], 'A'), 10, { context: bytesOf('xy', [0xe2]) });
    expect(cells.map((c) => c.kind)).toEqual(['utf8-cont', 'utf8-cont', 'printable']);
    const emoji = formatCells(bytesOf([0x82], ' '), 10, { context: Uint8Array.of(0xf0, 0x9f, 0x99) });
    expect(emoji.map((c) => c.kind)).toEqual(['utf8-cont', 'space']);
  });

  it('uses the context to reject a character the window breaks', () => {
    const cells = formatCells(bytesOf([0x82], 'A'), 10, { context: bytesOf('xy', [0xe2]) });
    expect(texts(cells)).toEqual(['\\x82', 'A']);
  });

  it('reads only the last three context bytes', () => {
    const cells = formatCells(Uint8Array.of(0xac), 100, { context: bytesOf('a'.repeat(50), [0xe2, 0x82]) });
    expect(cells[0].kind).toBe('utf8-cont');
  });

  it('marks leading continuation bytes partial when the bytes before are unknown', () => {
    expect(texts(formatCells(bytesOf([0x82, 0xac], 'A'), 10))).toEqual(['<82?>', '<ac?>', 'A']);
    // A character is at most 4 bytes, so a fourth leading continuation byte is certainly stray.
    expect(texts(formatCells(Uint8Array.of(0x80, 0x80, 0x80, 0x9b), 10))).toEqual(['<80?>', '<80?>', '<80?>', '<CSI>']);
    // Only one known byte before: the two after it could still be covered by an unseen lead.
    expect(texts(formatCells(Uint8Array.of(0x80, 0x80, 0x9b), 10, { context: Uint8Array.of(0x80) }))).toEqual([
      '<80?>', '<80?>', '<CSI>',
    ]);
  });

  it('treats a window at offset 0 without context as the stream start', () => {
    expect(texts(formatCells(bytesOf([0x82, 0xac], 'A'), 0))).toEqual(['<BPH>', '\\xac', 'A']);
    expect(texts(formatCells(Uint8Array.of(0x82), 3, { context: utf8('abc') }))).toEqual(['<BPH>']);
  });

  it('marks a character cut by the window end partial unless the lookahead settles it', () => {
    const bytes = bytesOf('ok', [0xe2, 0x82]);
    expect(texts(formatCells(bytes, 0))).toEqual(['o', 'k', '<e2?>', '<82?>']);
    expect(formatCells(bytes, 0).slice(2).map((c) => c.kind)).toEqual(['partial', 'partial']);
    expect(texts(formatCells(bytes, 0, { lookahead: Uint8Array.of(0xac) }))).toEqual(['o', 'k', '€', '·']);
    expect(texts(formatCells(bytes, 0, { lookahead: utf8('A') }))).toEqual(['o', 'k', '\\xe2', '\\x82']);
    expect(texts(formatCells(bytes, 0, { lookahead: new Uint8Array(0) }))).toEqual(['o', 'k', '\\xe2', '\\x82']);
  });

  it('joins context and lookahead around a window shorter than a character', () => {
    const window = Uint8Array.of(0x9f);
    const context = Uint8Array.of(0xf0);
    expect(texts(formatCells(window, 1, { context, lookahead: Uint8Array.of(0x99, 0x82) }))).toEqual(['·']);
    expect(texts(formatCells(window, 1, { context }))).toEqual(['<9f?>']);
    expect(texts(formatCells(window, 1, { context, lookahead: Uint8Array.of(0x99) }))).toEqual(['\\x9f']);
    expect(texts(formatCells(window, 1, { context, lookahead: utf8('A') }))).toEqual(['\\x9f']);
  });

  it('decodes a stream paged at every offset exactly as the whole stream', () => {
    const stream = bytesOf('a€', [0xff, 0xe2, 0x82], '本🙂', [0xc2, 0x9b, 0x9b, 0xf4, 0x90], '\u202e!');
    const wholeTexts = texts(formatCells(stream, 0, { lookahead: new Uint8Array(0) }));
    for (let size = 1; size <= 5; size++) {
      const paged: string[] = [];
      for (let at = 0; at < stream.length; at += size) {
        const page = stream.subarray(at, at + size);
        const cells = formatCells(page, at, {
          context: stream.subarray(Math.max(0, at - 3), at),
          lookahead: stream.subarray(at + size, at + size + 3),
        });
        paged.push(...texts(cells));
      }
      expect(paged).toEqual(wholeTexts);
    }
  });
});
