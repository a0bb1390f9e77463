// primeSanitizer warms the JIT before a large input (see shared/sanitize/prime.ts). It must take
// every path the parser and sanitizer have, or the deopts it exists to prevent still happen, and
// it must leave nothing behind in the caller's sanitizer.
import { describe, expect, it } from 'vitest';
import { SPAN_CLASS_NAMES, SpanClass } from '../../shared/parser';
import { primeSanitizer, sanitize, Sanitizer, worthPriming } from '../../shared/sanitize';
import { primingCorpus } from '../../shared/sanitize/prime';
import { bytes } from '../helpers/record';

describe('primeSanitizer', () => {
  it('its corpus holds every span class, an ambiguous stretch, line moves and long text runs', () => {
    const { pieces, byteByByte } = primingCorpus();
    for (const input of [pieces, byteByByte]) {
      const classes = new Set<SpanClass>();
      const s = new Sanitizer({ onSpan: (cls) => classes.add(cls) });
      s.write(input);
      s.end();
      const report = s.getReport();
      if (input === pieces) {
        for (const cls of SPAN_CLASS_NAMES.keys()) expect(classes, SPAN_CLASS_NAMES[cls]).toContain(cls);
        expect(report.ambiguous.count).toBeGreaterThan(0);
        expect(report.line_control.move_to_newline).toBeGreaterThan(0);
        expect(report.oversized).toBeGreaterThan(0);
        expect(report.invisible.tag).toBeGreaterThan(0);
        // A text run past the short-run copy (256 bytes) between two controls.
        expect(Buffer.from(sanitize(pieces).text).toString('utf8')).toMatch(/[^\n]{300}/);
      }
      expect(report.invalid_utf8).toBeGreaterThan(0);
    }
  });

  it('runs in both CR modes, with the offset map and tight limits, and changes nothing after it', () => {
    const input = bytes('\x1b]52;c;aGk=\x07ok \x1b[31mred\x1b[0m\r\n\x9b1m');
    const before = sanitize(input, { cr: 'overwrite', mapOffsets: true });
    for (const cr of ['newline', 'overwrite'] as const) {
      primeSanitizer({ cr, mapOffsets: true, limits: { maxCsiParamBytes: 0, maxStringBytes: 0, maxEscIntermediates: 0 } });
      primeSanitizer({ cr });
    }
    const after = sanitize(input, { cr: 'overwrite', mapOffsets: true });
    expect(after.text).toEqual(before.text);
    expect(after.report).toEqual(before.report);
    expect(after.map?.segments).toBe(before.map?.segments);
  });
});

describe('worthPriming', () => {
  it('is true for input with at least one escape per KiB in its first 64 KiB, false for plain text', () => {
    const plain = new Uint8Array(1 << 20).fill(0x61);
    expect(worthPriming(plain)).toBe(false);
    const some = plain.slice();
    for (let i = 0; i < 64; i++) some[i * 1024] = 0x1b;
    expect(worthPriming(some)).toBe(true);
    some[0] = 0x61;
    expect(worthPriming(some)).toBe(false);
    expect(worthPriming(bytes('\x9b31m'))).toBe(true);
    expect(worthPriming(new Uint8Array(0))).toBe(false);
  });
});
