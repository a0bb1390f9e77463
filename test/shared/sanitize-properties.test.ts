/**
 * Property tests (fast-check, fixed seeds) of the sanitizer on random hostile byte streams
 * weighted toward ESC, BEL, `\`, `[`, `]`, P/X/^/_, `;`, digits, raw C1 introducers, C2/E2/E6
 * lead bytes, continuation bytes, 0xFF, CAN/SUB, CR, BS, LF and TAB:
 *
 * (a) any chunking (random cuts, one-byte chunks, unaligned views) gives identical text bytes and a
 *     JSON-identical report, in both CR modes and with tiny limits;
 * (b) the text never holds a forbidden byte (ESC, C0 but LF/TAB, DEL, raw C1, C2 80-9F, bidi
 *     controls, tag characters) and always decodes as strict UTF-8;
 * (c) it never throws, and a 4 MiB hostile stream finishes within a time and memory budget;
 * (d) the payload of any removed string (OSC/DCS/APC/PM/SOS in 7-bit, 8-bit and UTF-8 encoded form,
 *     BEL/ST/C1-ST terminated, aborted, interrupted or unterminated) never reaches text or report;
 * (e) report arithmetic holds;
 * (f) the offset map is consistent with the raw input;
 * (g) sanitizing is idempotent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitize, Sanitizer, type SanitizerOptions } from '../../shared/sanitize/sanitizer';
import { bigHostileStream, cutPoints, hostileStream, tinyLimits } from '../helpers/arbitraries';
import { cpuMs, loadBundle } from '../helpers/bundle';
import { bytes, bytewise, decodeStrict, hex, sanitizeChunks, splitAt, utf8 } from '../helpers/record';

const SEED = 0x5eed;
const RUNS = 1500;
const params = (numRuns = RUNS) => ({ seed: SEED, numRuns, endOnFailure: true });

const optionsArb: fc.Arbitrary<SanitizerOptions> = fc.record({
  cr: fc.constantFrom('newline' as const, 'overwrite' as const),
  limits: fc.oneof(fc.constant({}), tinyLimits),
});

/** Chunks of `input` as unaligned views into a padded buffer. */
function unalignedChunks(input: Uint8Array, cuts: number[], pad: number): Uint8Array[] {
  return splitAt(input, cuts).map((c) => {
    const big = new Uint8Array(c.length + pad + 4).fill(0x1b);
    big.set(c, pad);
    return big.subarray(pad, pad + c.length);
  });
}

/** The first forbidden code point or byte in `text`, or null. */
function forbidden(text: Uint8Array): string | null {
  let s: string;
  try {
    s = decodeStrict(text);
  } catch {
    return 'ill-formed UTF-8';
  }
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c === 0x1b) return 'ESC';
    if (c < 0x20 && c !== 0x09 && c !== 0x0a) return `C0 ${c.toString(16)}`;
    if (c === 0x7f) return 'DEL';
    if (c >= 0x80 && c <= 0x9f) return `C1 U+${c.toString(16)}`;
    if (c >= 0x202a && c <= 0x202e) return `bidi U+${c.toString(16)}`;
    if (c >= 0x2066 && c <= 0x2069) return `bidi U+${c.toString(16)}`;
    if (c >= 0xe0000 && c <= 0xe007f) return `tag U+${c.toString(16)}`;
  }
  // Byte-level double check: no raw ESC or C1-range byte outside a multi-byte character.
  for (let i = 0; i < text.length; i++) {
    const b = text[i];
    if (b === 0x1b) return 'ESC byte';
    if (b === 0xc2 && text[i + 1] >= 0x80 && text[i + 1] <= 0x9f) return 'C2 80-9F';
  }
  return null;
}

describe('(a) chunking never changes the result', () => {
  it('random cuts and one-byte chunks: identical text and report (default options)', () => {
    fc.assert(fc.property(hostileStream(), cutPoints, (input, cuts) => {
      const whole = sanitize(input);
      const cut = sanitizeChunks(splitAt(input, cuts));
      const single = sanitizeChunks(bytewise(input));
      expect(hex(cut.text), hex(input)).toBe(hex(whole.text));
      expect(hex(single.text), hex(input)).toBe(hex(whole.text));
      expect(JSON.stringify(cut.report)).toBe(JSON.stringify(whole.report));
      expect(JSON.stringify(single.report)).toBe(JSON.stringify(whole.report));
    }), params());
  });

  it('a separator space after a space already handed out by an earlier write (found by the index property test)', () => {
    // Two disagreeing stretches, each a separator space; the second lands where the previous write
    // ended with a space. Whole, it collapses; cut, it must too (the last byte survives the write).
    const input = Buffer.from('ok \x1b]52;c;\x9c hidden\x07 \x9dx\x07y', 'latin1');
    const whole = sanitize(input);
    for (const chunks of [bytewise(input), splitAt(input, [3, 20, 26]), splitAt(input, [25])]) {
      expect(hex(sanitizeChunks(chunks).text)).toBe(hex(whole.text));
      expect(JSON.stringify(sanitizeChunks(chunks).report)).toBe(JSON.stringify(whole.report));
    }
  });

  it('random cuts, any CR mode, tiny limits, unaligned chunk views', () => {
    fc.assert(fc.property(hostileStream(), cutPoints, optionsArb, fc.nat({ max: 7 }), (input, cuts, options, pad) => {
      const whole = sanitize(input, options);
      const cut = sanitizeChunks(unalignedChunks(input, cuts, pad), options);
      const single = sanitizeChunks(bytewise(input), options);
      expect(hex(cut.text), hex(input)).toBe(hex(whole.text));
      expect(hex(single.text), hex(input)).toBe(hex(whole.text));
      expect(JSON.stringify(cut.report)).toBe(JSON.stringify(whole.report));
      expect(JSON.stringify(single.report)).toBe(JSON.stringify(whole.report));
    }), params());
  });
});

describe('(b) the text never holds a forbidden byte and is valid UTF-8', () => {
  it('any stream, any options', () => {
    fc.assert(fc.property(hostileStream(), optionsArb, (input, options) => {
      expect(forbidden(sanitize(input, options).text), hex(input)).toBeNull();
    }), params(3000));
  });

  it('uniformly random bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), optionsArb, (input, options) => {
      expect(forbidden(sanitize(input, options).text), hex(input)).toBeNull();
    }), params(2000));
  });

  it('every pair of bytes (exhaustive), between text', () => {
    for (let a = 0; a < 256; a++) {
      for (let b = 0; b < 256; b++) {
        const input = Uint8Array.of(0x41, a, b, 0x42);
        const bad = forbidden(sanitize(input).text);
        if (bad !== null) expect.fail(`${hex(input)}: ${bad}`);
      }
    }
  });
});

describe('(c) never throws; time and memory budget', () => {
  it('never throws, for any stream, options, and chunking', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), cutPoints, optionsArb, fc.boolean(), (input, cuts, options, map) => {
      const s = new Sanitizer({ ...options, mapOffsets: map });
      for (const c of splitAt(input, cuts)) s.write(c);
      s.end();
      s.getReport();
    }), params(1000));
  });

  it('a 4 MiB hostile stream sanitizes in < 2 s and < 64 MiB, whole and streamed, in both modes', async () => {
    // Timed on the production-like bundle (see test/helpers/bundle.ts), in CPU time.
    const shipped = await loadBundle();
    const input = bigHostileStream(4 * 1024 * 1024, 7);
    for (const cr of ['newline', 'overwrite'] as const) {
      const heap0 = process.memoryUsage();
      let whole: ReturnType<typeof sanitize> | undefined;
      const ms = cpuMs(() => {
        whole = shipped.sanitize(input, { cr });
      });
      const heap1 = process.memoryUsage();
      expect(ms).toBeLessThan(2000);
      expect(heap1.heapUsed - heap0.heapUsed).toBeLessThan(64 * 1024 * 1024);
      expect(heap1.arrayBuffers - heap0.arrayBuffers).toBeLessThan(64 * 1024 * 1024);
      expect(forbidden(whole!.text)).toBeNull();
      // The sources under test give the same result as the bundle.
      expect(hex(sanitize(input.subarray(0, 200_000), { cr }).text)).toBe(hex(shipped.sanitize(input.subarray(0, 200_000), { cr }).text));

      const s = new shipped.Sanitizer({ cr });
      let out = 0;
      const streamed = cpuMs(() => {
        for (let i = 0; i < input.length; i += 65536) out += s.write(input.subarray(i, i + 65536)).length;
        out += s.end().length;
      });
      expect(streamed).toBeLessThan(2000);
      expect(out).toBe(whole!.text.length);
      expect(s.getReport().input_bytes).toBe(input.length);
    }
  });

  it('overwrite mode: inserts, deletes and erases on a long line, and cursor moves, stay fast', async () => {
    const shipped = await loadBundle();
    const cases = [
      bytes('x'.repeat(600), '\r', '\x1b[@'.repeat(1024 * 1024)),
      bytes('x'.repeat(600), '\r', '\x1b[P'.repeat(1024 * 1024)),
      bytes('x'.repeat(60000), '\x1b[1K'.repeat(1024 * 1024)),
      bytes('\x1b[99999C\x1b[99999Dx'.repeat(256 * 1024)),
      bytes('x'.repeat(400), '\x1b[200D\x1b[100@\x1b[100P'.repeat(128 * 1024)),
    ];
    for (const input of cases) {
      let text: Uint8Array = new Uint8Array(0);
      const ms = cpuMs(() => {
        text = shipped.sanitize(input, { cr: 'overwrite' }).text;
      });
      expect(ms).toBeLessThan(2000);
      expect(forbidden(text)).toBeNull();
    }
  });

  it('pathological runs (ESC ] x 2M, ESC [ + 4M `;`, unterminated OSC + 4 MiB, 4M 0xC2, disagreeing readings) stay fast', async () => {
    const shipped = await loadBundle();
    const cases = [
      bytes('\x1b]'.repeat(2 * 1024 * 1024)),
      bytes('\x1b[', ';'.repeat(4 * 1024 * 1024), 'm'),
      bytes('\x1b]0;', 'a'.repeat(4 * 1024 * 1024)),
      new Uint8Array(4 * 1024 * 1024).fill(0xc2),
      // The readings disagree for the whole stream (one raw 0x9D), or flip back and forth.
      bytes('\x9d', 'a'.repeat(4 * 1024 * 1024)),
      bytes('\x1b]0;\x9cab\x07'.repeat(512 * 1024)),
      bytes('\x9b', '1;'.repeat(2 * 1024 * 1024)),
      // Joiner runs and selectors.
      utf8('\u{1f468}' + '\u200d'.repeat(1024 * 1024)),
      utf8('\u{1f600}\ufe0f'.repeat(512 * 1024)),
    ];
    for (const input of cases) {
      let text: Uint8Array = new Uint8Array(0);
      const ms = cpuMs(() => {
        text = shipped.sanitize(input).text;
      });
      expect(ms).toBeLessThan(2000);
      expect(forbidden(text)).toBeNull();
    }
  });
});

// ---- (d) payload leaks -----------------------------------------------------------------------

const INTROS: Record<string, string[]> = {
  osc: ['\x1b]', '\x9d', '\xc2\x9d'],
  dcs: ['\x1bP', '\x90', '\xc2\x90'],
  apc: ['\x1b_', '\x9f', '\xc2\x9f'],
  pm: ['\x1b^', '\x9e', '\xc2\x9e'],
  sos: ['\x1bX', '\x98', '\xc2\x98'],
};
const HEADERS: Record<string, string[]> = {
  osc: ['0;', '2;', '8;;', '8;id=QZXid;', '52;c;', '1337;File=', '9999;', ';', '', 'x'],
  dcs: ['$q', '+q', 'q', '1;2|', '0;1;0q', '', '1;2'],
  apc: ['', 'G'],
  pm: [''],
  sos: [''],
};
/** Terminators, or what ends the string otherwise (abort, interruption, another introducer). */
const ENDINGS = ['\x07', '\x1b\\', '\x9c', '\xc2\x9c', '\x18', '\x1a', '\x1b[m', '\x1b7', '\x9b1m', '\x1b]0;x\x07'];

const markerArb = fc.integer({ min: 0, max: 0xffffffff }).map((n) => `QZX${n.toString(16).padStart(8, '0')}`);
/** Benign text: never holds a Q, so a marker can only come from a payload. */
const benignArb = fc.oneof(
  fc.stringMatching(/^[a-pR-Z0-9 ,.:\-\n\t]{0,16}$/),
  fc.constantFrom('本', '€', '溛 ok', '🙂', 'label', '\r', '\b'),
).map((s) => utf8(s));
/** Payload filler around the marker: printable ASCII and text whose continuation bytes are 0x80-0x9F. */
const fillerArb = fc.oneof(fc.stringMatching(/^[ -~]{0,8}$/), fc.constantFrom('本', '€溛', 'é')).map((s) => utf8(s));

const controlFields = {
  kind: fc.constantFrom('osc', 'dcs', 'apc', 'pm', 'sos'),
  intro: fc.nat({ max: 2 }),
  header: fc.nat({ max: 9 }),
  before: fillerArb,
  marker: markerArb,
  after: fillerArb,
};
/** A control string ended by a terminator, an abort, an interruption, or (null) nothing at all. */
const controlArb = fc.record({ ...controlFields, ending: fc.oneof(fc.constantFrom(...ENDINGS), fc.constant(null)) });
/** A control string ended by a proper terminator (BEL, ST in its three forms). */
const terminatedArb = fc.record({ ...controlFields, ending: fc.constantFrom('\x07', '\x1b\\', '\x9c', '\xc2\x9c') });

type Control = typeof controlArb extends fc.Arbitrary<infer T> ? T : never;

function controlBytes(c: Control, last: boolean): Uint8Array {
  const headers = HEADERS[c.kind];
  // An unterminated string is only possible at the end of the stream.
  const ending = c.ending ?? (last ? '' : '\x1b\\');
  return bytes(INTROS[c.kind][c.intro], headers[c.header % headers.length], c.before, c.marker, c.after, ending);
}

const leakCaseArb = fc.array(fc.oneof(benignArb, controlArb), { minLength: 1, maxLength: 8 }).map((parts) => {
  const markers: string[] = [];
  const chunks = parts.map((p, i) => {
    if (p instanceof Uint8Array) return p;
    markers.push(p.marker);
    return controlBytes(p, i === parts.length - 1);
  });
  return { input: bytes(...chunks), markers };
});

describe('(d) payloads never leak', () => {
  it('markers inside OSC/DCS/APC/PM/SOS payloads reach neither the text nor the report', () => {
    fc.assert(fc.property(leakCaseArb, cutPoints, optionsArb, ({ input, markers }, cuts, options) => {
      for (const { text, report } of [sanitize(input, options), sanitizeChunks(splitAt(input, cuts), options)]) {
        const out = decodeStrict(text);
        const json = JSON.stringify(report);
        expect(out, hex(input)).not.toContain('QZX');
        expect(json).not.toContain('QZX');
        for (const m of markers) {
          expect(out).not.toContain(m.slice(3));
          expect(json).not.toContain(m.slice(3));
        }
      }
    }), params(2500));
  });

  it('the benign text around the strings survives (no over-deletion when strings are terminated)', () => {
    const terminated = fc.array(fc.oneof(
      fc.stringMatching(/^[a-z]{1,8}$/).map((s) => ({ text: s })),
      terminatedArb.map((c) => ({ control: c })),
    ), { maxLength: 8 });
    fc.assert(fc.property(terminated, (parts) => {
      const chunks: Uint8Array[] = [];
      let want = '';
      for (const p of parts) {
        if ('text' in p) {
          chunks.push(utf8(p.text));
          want += p.text;
        } else {
          const c = p.control;
          // BEL only ends an OSC; use ST for the other kinds. A C1 ST (raw 0x9C, or C2 9C) ends no
          // string for libvterm and tmux (what follows is withheld): use ESC \.
          const ending = (c.kind !== 'osc' && c.ending === '\x07') || c.ending === '\x9c' || c.ending === '\xc2\x9c' ? '\x1b\\' : c.ending;
          chunks.push(controlBytes({ ...c, ending }, false));
        }
      }
      // A string introduced by a raw 8-bit byte is text to a UTF-8 terminal, an APC, PM or SOS is
      // text to libvterm: one space or line break stands for it.
      expect(decodeStrict(sanitize(bytes(...chunks)).text).replace(/[ \n]/g, '')).toBe(want);
    }), params(1000));
  });
});

describe('(e) report arithmetic', () => {
  it('kept + removed = input; text_bytes = output length; class and meaning counts sum to removed_spans', () => {
    fc.assert(fc.property(hostileStream(), optionsArb, (input, options) => {
      const { text, report: r } = sanitize(input, options);
      expect(r.input_bytes).toBe(input.length);
      expect(r.kept_bytes + r.removed_bytes).toBe(r.input_bytes);
      expect(r.kept_bytes).toBeGreaterThanOrEqual(0);
      expect(r.text_bytes).toBe(text.length);
      const classes = Object.values(r.classes);
      expect(classes.reduce((n, c) => n + c.count, 0)).toBe(r.removed_spans);
      expect(Object.values(r.meanings).reduce((n, c) => n + c, 0)).toBe(r.removed_spans);
      expect(r.classes.invalid_utf8.count).toBe(r.invalid_utf8);
      expect(Object.values(r.invisible).reduce((n, c) => n + c, 0)).toBe(r.classes.invisible.count);
      for (const c of classes) expect(c.bytes).toBeGreaterThanOrEqual(c.count);
      expect(r.kept_bytes).toBeLessThanOrEqual(r.text_bytes);
      if (options.cr !== 'overwrite') {
        const lc = r.line_control;
        expect(r.text_bytes).toBe(r.kept_bytes + 3 * r.invalid_utf8 + r.drawn.bytes + lc.cr_to_newline + lc.move_to_newline + lc.move_to_space);
        expect(r.line_control.cr_applied + r.line_control.bs_applied).toBe(0);
        expect(r.line_control.cr_to_newline + r.line_control.cr_dropped).toBe(r.meanings['c0: CR carriage return'] ?? 0);
      } else {
        expect(r.line_control.cr_to_newline + r.line_control.cr_dropped).toBe(0);
        expect(r.line_control.cr_applied).toBe(r.meanings['c0: CR carriage return'] ?? 0);
      }
      expect(r.line_control.bs_applied + r.line_control.bs_dropped).toBe(r.meanings['c0: BS backspace'] ?? 0);
    }), params());
  });
});

describe('(f) offset map consistency', () => {
  it('every text byte maps into the input, verbatim bytes map to an equal raw byte, and rawToText inverts textToRaw', () => {
    const withTab = fc.tuple(hostileStream(80), fc.constantFrom('newline' as const, 'overwrite' as const));
    fc.assert(fc.property(withTab, ([input, cr]) => {
      const { text, map } = sanitize(input, { cr, mapOffsets: true });
      const m = map!;
      expect(m.textLength).toBe(text.length);
      let prev = -1;
      for (let k = 0; k < text.length; k++) {
        const r = m.textToRaw(k);
        expect(r).toBeGreaterThanOrEqual(0);
        expect(r).toBeLessThan(input.length);
        const verbatim = input[r] === text[k] && m.rawToText(r) === k;
        if (!verbatim) {
          // Made text: LF for CR, U+FFFD for an invalid subpart, spaces for a TAB (overwrite).
          const start = m.rawToText(r);
          const fffd = start >= 0 && k - start < 3 && text[start] === 0xef && text[start + 1] === 0xbf && text[start + 2] === 0xbd;
          // A line break or space stands for a control (CR, VT, a cursor move, a stretch the readings disagree about).
          // (a stray byte can stand for both its U+FFFD and the space after its stretch, so start <= k).
          const made = ((text[k] === 0x0a || text[k] === 0x20) && start >= 0 && start <= k)
            || (fffd && input[r] >= 0x80)
            // A glyph a character set draws for a printable ASCII byte (DEC line drawing).
            || (start >= 0 && start <= k && input[r] >= 0x20 && input[r] < 0x7f && text[start] >= 0xc2)
            || (cr === 'overwrite' && text[k] === 0x20 && (input[r] === 0x09 || input[r] === 0x1b || input[r] >= 0x80));
          expect(made, `text[${k}]=${text[k]} from raw[${r}]=${input[r]} in ${hex(input)}`).toBe(true);
        }
        if (cr === 'newline') {
          expect(r).toBeGreaterThanOrEqual(prev);
          prev = r;
        }
      }
      for (let i = 0; i < input.length; i++) {
        const t = m.rawToText(i);
        expect(t).toBeGreaterThanOrEqual(-1);
        if (t < 0) continue;
        const back = m.textToRaw(t);
        // Only the later bytes of one invalid subpart (at most 3 bytes, all >= 0x80) share the
        // U+FFFD of the subpart's first byte; every other byte maps back to itself.
        if (back !== i) expect(back < i && i - back < 3 && input[i] >= 0x80 && text[t] === 0xef, `raw[${i}] in ${hex(input)}`).toBe(true);
      }
    }), params());
  });
});

describe('(g) idempotence', () => {
  it('sanitizing the sanitized text changes nothing and removes nothing', () => {
    fc.assert(fc.property(hostileStream(), optionsArb, (input, options) => {
      const once = sanitize(input, options).text;
      const twice = sanitize(once, options);
      expect(hex(twice.text)).toBe(hex(once));
      expect(twice.report.removed_spans).toBe(0);
    }), params());
  });
});
