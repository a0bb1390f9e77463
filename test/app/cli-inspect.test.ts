// `airlock inspect`: a byte viewer whose own output is inert — whatever the input, it prints no
// control byte unless it coloured a TTY itself — and that names each class it found.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAirlock } from '../helpers/cli';

const SAMPLE = join(__dirname, '../../assets/samples/hostile-transcript.bin');
/** What inert output may not contain: C0 except LF, DEL, C1, bidi controls, tag characters. */
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\u{e0000}-\u{e007f}/u;

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
    // A span is coloured over its whole extent (the OSC's payload too), LF as kept text, with a legend.
    expect(coloured).toContain('\x1b[30;43m^[\x1b[0m\x1b[30;43m]\x1b[0m\x1b[30;43m0\x1b[0m');
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

  it('says so when the range starts past the end of the input', async () => {
    const r = await runAirlock(['inspect', SAMPLE, '--offset', '1000000']);
    expect(r.code).toBe(0);
    expect(r.out.toString()).toMatch(/--offset 1000000 is at or past the end of the input \(\d+ bytes\)/);
  });

  it('reads stdin with -', async () => {
    const r = await runAirlock(['inspect', '-'], { stdin: Buffer.from([0x9b, 0x32, 0x4a, 0x41]) });
    expect(r.out.toString()).toContain('|<CSI>2JA|');
    expect(r.out.toString()).toContain('ED erase display (all) [8-bit, raw byte outside UTF-8: C1 to 8-bit terminals only]');
    expect(r.out.toString()).toContain('readings disagree (UTF-8 vs 8-bit terminal): 1 stretches');
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
