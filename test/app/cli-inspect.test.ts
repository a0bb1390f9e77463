// `airlock inspect`: a byte viewer whose own output is inert — whatever the input, it prints no
// control byte unless it coloured a TTY itself — and that names each class it found.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAirlock } from '../helpers/cli';
import { SPAN_CLASS_NAMES, SpanFlag } from '../../shared/parser/span-class';
import { Sanitizer } from '../../shared/sanitize';

const SAMPLE = join(__dirname, '../../assets/samples/hostile-transcript.bin');
/** What inert output may not contain: C0 except LF, DEL, C1, bidi controls, tag characters. */
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\u{e0000}-\u{e007f}/u;

/** The names `inspect --json` gives a span's flag bits. */
function flagNames(flags: number): string[] {
  const names: [number, string][] = [[SpanFlag.Unterminated, 'unterminated'], [SpanFlag.Oversized, 'oversized'], [SpanFlag.Malformed, 'malformed'],
    [SpanFlag.EightBit, 'eight_bit'], [SpanFlag.Utf8Encoded, 'utf8_encoded'], [SpanFlag.Stray, 'stray']];
  return names.filter(([bit]) => flags & bit).map(([, name]) => name);
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'airlock-inspect-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('airlock inspect', () => {
  it('dumps the hostile sample inertly and names every class it holds', async () => {
    const r = await runAirlock(['inspect', SAMPLE]);
    expect(r.code).toBe(0);
    const text = r.out.toString('utf8');
    expect(text).not.toMatch(UNSAFE);
    expect(text).toContain('|$ make test^J^[]0;|');
    for (const cls of ['osc', 'csi', 'dcs', 'apc', 'pm', 'invisible', 'invalid_utf8', 'c0']) {
      expect(text).toMatch(new RegExp(`^\\s+\\^ [0-9a-f]{8} ${cls} `, 'm'));
    }
    expect(text).toContain('OSC 52 clipboard access');
    expect(text).toContain('[unterminated]');
    expect(text).toContain('47x tag character (ASCII smuggling)');
    expect(text).toMatch(/summary: sha256: [0-9a-f]{64}/);
  });

  it('colours only when asked (or on a TTY), and only with its own SGR', async () => {
    const plain = await runAirlock(['inspect', SAMPLE, '--color', 'never']);
    expect(plain.out.includes(0x1b)).toBe(false);
    const coloured = (await runAirlock(['inspect', SAMPLE, '--color', 'always'])).out.toString('utf8');
    // A span is coloured over its whole extent (the OSC's payload too) as one run, LF as kept text, with a legend.
    expect(coloured).toContain('\x1b[2m0a\x1b[0m \x1b[30;43m1b 5d 30 3b\x1b[0m');
    expect(coloured).toContain('|\x1b[30;43mbuild passed - s\x1b[0m|');
    expect(coloured).toContain('|$ make test\x1b[2m^J\x1b[0m');
    expect(coloured).toMatch(/^\x1b\[1;34mlegend:/m);
    // Every ESC in the coloured output starts one of Airlock's SGR sequences.
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).not.toMatch(UNSAFE);
  });

  it('shows only the requested range but still knows spans from before it', async () => {
    const r = await runAirlock(['inspect', SAMPLE, '--offset', '0x10', '--length', '32', '--summary-only']);
    expect(r.code).toBe(0);
    expect(r.out.toString()).not.toMatch(/^0000/m);
    const ranged = (await runAirlock(['inspect', SAMPLE, '--offset', '16', '--length', '32'])).out.toString();
    expect(ranged.match(/^[0-9a-f]{8} {2}/gm)).toEqual(['00000010  ', '00000020  ']);
  });

  it('parses the whole file when showing a range: spans crossing it are whole, the digest is the file\'s', async () => {
    const file = join(dir, 'osc.bin');
    writeFileSync(file, 'ab\x1b]0;title\x07rest\n');
    const ranged = (await runAirlock(['inspect', file, '--length', '4'])).out.toString();
    const whole = (await runAirlock(['inspect', file])).out.toString();
    expect(ranged).toContain('osc              10 B  OSC 0 set icon name and window title\n');
    expect(ranged).not.toContain('unterminated');
    expect(ranged).not.toContain('truncated');
    expect(ranged.match(/sha256: \w+/)?.[0]).toBe(whole.match(/sha256: \w+/)?.[0]);
  });

  it('coalesces equal spans of a row into one line with a count, keeping differing spans apart', async () => {
    const file = join(dir, 'coalesce.bin');
    // Row 0: BEL BS x8 (evenly spaced). Row 1: BEL at 0x10, 0x12, 0x15 (unevenly), a NUL, an OSC
    // that starts in row 1 and ends in row 2, then a lone BS in row 2.
    writeFileSync(file, Buffer.concat([
      Buffer.from('\x07\x08'.repeat(8), 'latin1'),
      Buffer.from('\x07a\x07bc\x07\x00xyzq\x1b]0;t', 'latin1'),
      Buffer.from('itle\x07\x08end\n', 'latin1'),
    ]));
    const text = (await runAirlock(['inspect', file])).out.toString();
    const lines = text.split('\n');
    const notes = lines.filter((l) => /^ {10}\^ /.test(l));
    expect(notes).toEqual([
      '          ^ 00000000 c0                1 B each  8x BEL bell  (every 2 B to 0000000e)',
      '          ^ 00000001 c0                1 B each  8x BS backspace  (every 2 B to 0000000f)',
      '          ^ 00000010 c0                1 B each  3x BEL bell  (at 00000010 00000012 00000015)',
      '          ^ 00000016 c0                1 B  NUL null',
      expect.stringMatching(/^ {10}\^ 0000001b osc +10 B {2}OSC 0 /),
      '          ^ 00000025 c0                1 B  BS backspace',
    ]);
    // Each line sits under the row where its first span starts.
    expect(lines.indexOf(notes[2]) - lines.findIndex((l) => l.startsWith('00000010  '))).toBe(1);
    expect(lines.indexOf(notes[5]) - lines.findIndex((l) => l.startsWith('00000020  '))).toBe(1);
    // Runs of adjacent equal spans stay one span with a total length, not a coalesced line.
    writeFileSync(file, Buffer.from('\x07\x07\x07x\x07', 'latin1'));
    const runs = (await runAirlock(['inspect', file])).out.toString().split('\n').filter((l) => /^ {10}\^ /.test(l));
    expect(runs).toEqual(['          ^ 00000000 c0                3 B  3x BEL bell', '          ^ 00000004 c0                1 B  BEL bell']);
  });

  it('prints annotation lines in proportion to rows, not spans', async () => {
    const file = join(dir, 'belbs.bin');
    writeFileSync(file, Buffer.from('\x07\x08'.repeat(32 * 1024), 'latin1'));
    const lines = (await runAirlock(['inspect', file])).out.toString().split('\n');
    const rows = lines.filter((l) => /^[0-9a-f]{8} {2}/.test(l)).length;
    expect(rows).toBe(4096);
    expect(lines.filter((l) => /^ {10}\^ /.test(l))).toHaveLength(2 * rows);
  });

  it('an --offset at or past the end is an error: one line, exit 1, nothing dumped (file, stdin, every mode)', async () => {
    const size = readFileSync(SAMPLE).length;
    for (const mode of [[], ['--summary-only'], ['--json']]) {
      for (const at of ['1000000', String(size)]) {
        const r = await runAirlock(['inspect', SAMPLE, '--offset', at, ...mode]);
        expect(r.code, `${at} ${mode.join(' ')}`).toBe(1);
        expect(r.err.toString()).toBe(`airlock inspect: --offset ${at} is at or past the end of the input (${size} bytes): nothing to show\n`);
        expect(r.out.toString(), 'a file: refused before anything is written').toBe('');
      }
    }
    // From stdin the end is known only when it comes: the same error, after the header line.
    const piped = await runAirlock(['inspect', '-', '--offset', '64'], { stdin: Buffer.from('short\n') });
    expect(piped.code).toBe(1);
    expect(piped.err.toString()).toBe('airlock inspect: --offset 64 is at or past the end of the input (6 bytes): nothing to show\n');
    expect(piped.out.toString()).toBe('airlock inspect: (stdin)\n');
    // The last byte is still a range; an empty input with no --offset is no error.
    expect((await runAirlock(['inspect', SAMPLE, '--offset', String(size - 1)])).code).toBe(0);
    expect((await runAirlock(['inspect', '-'], { stdin: Buffer.alloc(0) })).code).toBe(0);
  });

  it('--length 0 is a usage error; a length past the end shows what there is', async () => {
    const zero = await runAirlock(['inspect', SAMPLE, '--length', '0']);
    expect(zero.code).toBe(2);
    expect(zero.err.toString()).toMatch(/^airlock inspect: --length needs a positive byte count .*\n$/);
    const size = readFileSync(SAMPLE).length;
    const past = await runAirlock(['inspect', SAMPLE, '--offset', String(size - 20), '--length', '1G']);
    const tail = await runAirlock(['inspect', SAMPLE, '--offset', String(size - 20)]);
    expect(past.code).toBe(0);
    expect(past.out.toString()).toBe(tail.out.toString());
  });

  it('--json lists the spans: each span the sanitizer reports, with its class, meaning and flags', async () => {
    const bytes = readFileSync(SAMPLE);
    const expected: { offset: number; length: number; class: string; meaning: string; flags: number }[] = [];
    const s = new Sanitizer({ hooks: { onSpan: (cls, offset, length, meaning, flags) => void expected.push({ offset, length, class: SPAN_CLASS_NAMES[cls], meaning, flags }) } });
    s.write(bytes);
    s.end();
    const r = await runAirlock(['inspect', SAMPLE, '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out.toString());
    expect(Object.keys(out)).toEqual(['source', 'spans', 'spans_listed', 'spans_total', 'bytes', 'sha256', 'report']);
    expect(out.spans).toEqual(expected.map((e) => ({ offset: e.offset, length: e.length, class: e.class, meaning: e.meaning, flags: flagNames(e.flags) })));
    expect(out.spans_total).toBe(out.report.removed_spans);
    expect(out.spans.some((x: { flags: string[] }) => x.flags.includes('unterminated'))).toBe(true);
    // One span a line: a line-oriented tool can take them without a JSON parser.
    expect(r.out.toString().split('\n').filter((l) => l.startsWith('    {"offset": '))).toHaveLength(expected.length);
    // A range lists the spans that overlap it (a span that starts before it too); --max-spans caps the list, not the count.
    const ranged = JSON.parse((await runAirlock(['inspect', SAMPLE, '--json', '--offset', '0x130', '--length', '16'])).out.toString());
    const overlapping = expected.filter((e) => e.offset < 0x140 && e.offset + e.length > 0x130);
    expect(ranged.spans.map((x: { offset: number }) => x.offset)).toEqual(overlapping.map((e) => e.offset));
    expect(overlapping[0].offset).toBeLessThan(0x130);
    const capped = JSON.parse((await runAirlock(['inspect', SAMPLE, '--json', '--max-spans', '3'])).out.toString());
    expect(capped).toMatchObject({ spans_listed: 3, spans_total: expected.length });
    expect(capped.spans).toEqual(out.spans.slice(0, 3));
    expect(JSON.parse((await runAirlock(['inspect', SAMPLE, '--json', '--max-spans', '0'])).out.toString())).toMatchObject({ spans: [], spans_listed: 0, spans_total: expected.length });
    expect((await runAirlock(['inspect', SAMPLE, '--max-spans', '3'])).code).toBe(2);
    expect((await runAirlock(['inspect', SAMPLE, '--json', '--max-spans', '-1'])).code).toBe(2);
  });

  it('reads stdin with -', async () => {
    const r = await runAirlock(['inspect', '-'], { stdin: Buffer.from([0x9b, 0x32, 0x4a, 0x41]) });
    expect(r.out.toString()).toContain('|<CSI>2JA|');
    expect(r.out.toString()).toContain('ED erase display (all) [8-bit, raw byte outside UTF-8: C1 to 8-bit terminals only]');
    expect(r.out.toString()).toContain('terminal readings disagree (text not every reading shows): 1 stretches');
  });

  it('gives clear errors for a missing file, a directory and bad flags', async () => {
    expect((await runAirlock(['inspect', join(dir, 'nope.bin')])).err).toMatch(/cannot open .*nope\.bin: ENOENT/);
    expect((await runAirlock(['inspect', dir])).err).toMatch(/is not a regular file/);
    expect((await runAirlock(['inspect'])).code).toBe(2);
    expect((await runAirlock(['inspect', SAMPLE, '--width', '0'])).err).toMatch(/--width/);
    expect((await runAirlock(['inspect', SAMPLE, '--color', 'maybe'])).code).toBe(2);
  });

  it('keeps rows aligned across page edges, from a file and from stdin', async () => {
    const bytes = Buffer.alloc(200_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
    const file = join(dir, 'big.bin');
    writeFileSync(file, bytes);
    for (const r of [await runAirlock(['inspect', file, '--width', '7']), await runAirlock(['inspect', '-', '--width', '7'], { stdin: bytes })]) {
      const offsets = (r.out.toString('utf8').match(/^[0-9a-f]{8}(?= {2})/gm) ?? []).map((o) => parseInt(o, 16));
      expect(offsets).toHaveLength(Math.ceil(bytes.length / 7));
      expect(offsets.every((o, i) => o === i * 7)).toBe(true);
    }
  });

  it('prints nothing unsafe for any input bytes, split across pages', async () => {
    await fc.assert(fc.asyncProperty(fc.uint8Array({ maxLength: 600 }), async (bytes) => {
      const file = join(dir, 'f.bin');
      writeFileSync(file, bytes);
      const r = await runAirlock(['inspect', file, '--width', '7']);
      expect(r.code).toBe(0);
      expect(r.out.toString('utf8')).not.toMatch(UNSAFE);
    }), { numRuns: 60, seed: 20261130 });
  });
});
